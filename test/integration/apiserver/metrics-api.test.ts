// The built-in metrics server's API (metrics.k8s.io/v1beta1, as metrics-server serves it) with real
// kubectl on `tkube up --nodes 0 --fake-nodes 2`: discovery, the Local APIService, get/list and
// their errors, RBAC (403 without a grant, `view` aggregating system:aggregated-metrics-reader), and
// `kubectl top` on simulated nodes, whose usage is their pods' requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('mt-metrics-api', { fakeNodes: 2 });
  await ok(['create', 'namespace', 'shop']);
  // Two replicas that request 100m and 64Mi, and a pod that requests nothing (the default usage).
  await ok(['create', 'deployment', 'web', '-n', 'shop', '--image=nginx:1.27', '--replicas=2']);
  await ok(['set', 'resources', 'deployment/web', '-n', 'shop', '--requests=cpu=100m,memory=64Mi']);
  await ok(['run', 'idle', '-n', 'shop', '--image=busybox:1.36', '--labels=app=idle']);
  await ok(['rollout', 'status', 'deployment/web', '-n', 'shop', '--timeout=60s']);
  await ok(['wait', '--for=condition=Ready', 'pod/idle', '-n', 'shop', '--timeout=60s']);
}, 180_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

async function ok(args: string[]): Promise<string> {
  const result = await cluster.kubectl(args);
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

async function fails(args: string[]): Promise<string> {
  const result = await cluster.kubectl(args);
  expect(result.exitCode, `kubectl ${args.join(' ')} should fail: ${result.stdout}`).not.toBe(0);
  return result.stderr;
}

/** Runs kubectl until it succeeds with output that `accept` takes (metrics need two scrapes, 15 s apart). */
async function okEventually(args: string[], accept: (stdout: string) => boolean): Promise<string> {
  return eventually(
    async () => {
      const result = await cluster.kubectl(args);
      return result.exitCode === 0 && accept(result.stdout) ? result.stdout : undefined;
    },
    75_000,
    2_000,
  );
}

const rows = (table: string): string[][] =>
  table
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/));

describe('metrics.k8s.io discovery', () => {
  it('lists nodes and pods with get and list only, in the legacy and aggregated documents', async () => {
    const group = JSON.parse(await ok(['get', '--raw', '/apis/metrics.k8s.io']));
    expect(group).toMatchObject({
      kind: 'APIGroup',
      name: 'metrics.k8s.io',
      versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }],
      preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' },
    });
    const list = JSON.parse(await ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1']));
    expect(list.resources).toEqual([
      { name: 'nodes', singularName: 'node', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
      { name: 'pods', singularName: 'pod', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
    ]);
    const groups = JSON.parse(await ok(['get', '--raw', '/apis'])).groups.map(
      (g: { name: string }) => g.name,
    );
    expect(groups).toContain('metrics.k8s.io');
    // kubectl 1.33 reads the aggregated document.
    const resources = rows(await ok(['api-resources', '--api-group=metrics.k8s.io', '-o', 'wide']));
    expect(resources[0]).toEqual([
      'NAME',
      'SHORTNAMES',
      'APIVERSION',
      'NAMESPACED',
      'KIND',
      'VERBS',
      'CATEGORIES',
    ]);
    expect(resources.slice(1)).toEqual([
      ['nodes', 'metrics.k8s.io/v1beta1', 'false', 'NodeMetrics', 'get,list'],
      ['pods', 'metrics.k8s.io/v1beta1', 'true', 'PodMetrics', 'get,list'],
    ]);
  });

  it('registers v1beta1.metrics.k8s.io as a Local, Available APIService', async () => {
    const table = rows(await ok(['get', 'apiservices', 'v1beta1.metrics.k8s.io']));
    expect(table[1]?.slice(0, 3)).toEqual(['v1beta1.metrics.k8s.io', 'Local', 'True']);
    const service = JSON.parse(await ok(['get', 'apiservices', 'v1beta1.metrics.k8s.io', '-o', 'json']));
    expect(service.spec).toEqual({
      group: 'metrics.k8s.io',
      version: 'v1beta1',
      groupPriorityMinimum: 100,
      versionPriority: 100,
    });
  });

  it('documents NodeMetrics and PodMetrics in OpenAPI (kubectl explain)', async () => {
    const node = await ok(['explain', 'nodes', '--api-version=metrics.k8s.io/v1beta1']);
    expect(node).toContain('KIND:       NodeMetrics');
    expect(node).toContain('GROUP:      metrics.k8s.io');
    expect(node).toContain('VERSION:    v1beta1');
    expect(node).toContain('NodeMetrics sets resource usage metrics of a node.');
    const containers = await ok(['explain', 'pods.containers', '--api-version=metrics.k8s.io/v1beta1']);
    expect(containers).toContain('ContainerMetrics sets resource usage metrics of a container.');
    const v2 = JSON.parse(await ok(['get', '--raw', '/openapi/v2']));
    expect(v2.definitions['io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics'].required).toEqual([
      'timestamp',
      'window',
      'containers',
    ]);
    expect(v2.paths['/apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods/{name}']).toBeDefined();
  });
});

describe('kubectl top on simulated nodes', () => {
  it('prints each node with non-zero CPU and memory in kubectl top nodes columns', async () => {
    const table = rows(await okEventually(['top', 'nodes'], (out) => rows(out).length === 3));
    expect(table[0]).toEqual(['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']);
    for (const [name, cpu, cpuPercent, memory] of table.slice(1)) {
      expect(name).toMatch(/^fake-node-\d$/);
      expect(cpu).toMatch(/^[1-9]\d*m$/);
      expect(cpuPercent).toMatch(/^\d+%$/);
      expect(memory).toMatch(/^[1-9]\d*Mi$/);
    }
  });

  it('prints containers at their requests, and a container requesting nothing at the default', async () => {
    const out = await okEventually(['top', 'pods', '-A', '--containers'], (text) =>
      ['web-', 'idle'].every((name) => text.includes(name)),
    );
    const table = rows(out);
    expect(table[0]).toEqual(['NAMESPACE', 'POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    const web = table.filter((row) => row[1]?.startsWith('web-'));
    expect(web).toHaveLength(2);
    for (const row of web) expect(row.slice(2)).toEqual(['nginx', '100m', '64Mi']);
    expect(table.find((row) => row[1] === 'idle')).toEqual(['shop', 'idle', 'idle', '1m', '8Mi']);
  });

  it('selects pods by label, as the HPA lists them', async () => {
    const list = JSON.parse(
      await ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods?labelSelector=app%3Dweb']),
    );
    expect(list.kind).toBe('PodMetricsList');
    expect(list.items).toHaveLength(2);
    for (const item of list.items) {
      expect(item.metadata.labels.app).toBe('web');
      expect(item.window).toMatch(/^\d+(\.\d+)?s$/);
      expect(item.containers).toEqual([{ name: 'nginx', usage: { cpu: '100m', memory: '64Mi' } }]);
    }
    const idle = JSON.parse(
      await ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods/idle']),
    );
    expect(idle).toMatchObject({ kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1' });
    expect(idle.metadata).toMatchObject({ name: 'idle', namespace: 'shop' });
  });
});

describe('kubectl get of metrics objects', () => {
  it("prints metrics-server's Table: name, cpu and memory (a pod's summed), window", async () => {
    const pods = rows(await ok(['get', 'pods.metrics.k8s.io', '-n', 'shop', '-l', 'app=idle']));
    expect(pods[0]).toEqual(['NAME', 'CPU', 'MEMORY', 'WINDOW']);
    expect(pods[1]?.slice(0, 3)).toEqual(['idle', '1m', '8Mi']);
    expect(pods[1]?.[3]).toMatch(/^\d+(\.\d+)?s$/);
    const nodes = rows(await ok(['get', 'nodes.metrics.k8s.io', 'fake-node-0']));
    expect(nodes[0]).toEqual(['NAME', 'CPU', 'MEMORY', 'WINDOW']);
    expect(nodes[1]?.[0]).toBe('fake-node-0');
    expect(nodes[1]?.[1]).toMatch(/^[1-9]\d*m$/);
  });
});

describe('an installed metrics-server', () => {
  it('takes metrics.k8s.io over with its APIService; the built-in server answers again once it is deleted', async () => {
    // What metrics-server's manifest applies (its Service need not exist for the takeover).
    await ok(['create', 'namespace', 'ms']);
    const apiService = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.metrics.k8s.io', labels: { 'k8s-app': 'metrics-server' } },
      spec: {
        group: 'metrics.k8s.io',
        version: 'v1beta1',
        service: { name: 'metrics-server', namespace: 'ms' },
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    };
    const applied = await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(apiService) });
    expect(applied.exitCode, applied.stderr).toBe(0);
    // Requests go to the (missing) service, and the built-in server does not take its APIService back.
    await eventually(
      async () => {
        const result = await cluster.kubectl(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/nodes']);
        return result.exitCode !== 0 && /ServiceUnavailable|service unavailable|503/i.test(result.stderr)
          ? true
          : undefined;
      },
      20_000,
      500,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const kept = JSON.parse(await ok(['get', 'apiservice', 'v1beta1.metrics.k8s.io', '-o', 'json']));
    expect(kept.spec.service).toEqual({ name: 'metrics-server', namespace: 'ms', port: 443 });
    // As upstream's autoregister treats an `onstart` APIService, it is not made again until a restart.
    await ok(['delete', 'apiservice', 'v1beta1.metrics.k8s.io']);
    await okEventually(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/nodes'], (out) =>
      out.includes('"kind":"NodeMetricsList"'),
    );
  }, 60_000);
});

describe('metrics.k8s.io errors and authorization', () => {
  it('answers an unknown node or pod with metrics-server NotFound texts', async () => {
    expect(await fails(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/nodes/nope'])).toContain(
      'nodemetrics.metrics.k8s.io "nope" not found',
    );
    expect(await fails(['top', 'pod', 'nope', '-n', 'shop'])).toContain(
      'podmetrics.metrics.k8s.io "nope" not found',
    );
  });

  it('refuses other methods and watch with 405 MethodNotAllowed', async () => {
    const stderr = await fails(['delete', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods/idle']);
    expect(stderr).toContain('the server does not allow this method on the requested resource');
    const watch = await fails([
      'get',
      'pods.metrics.k8s.io',
      '-n',
      'shop',
      '--watch',
      '--request-timeout=5s',
    ]);
    expect(watch).toContain('watch is not supported on resources of kind "pods.metrics.k8s.io"');
  });

  it('forbids a user without a grant, and lets one bound to view read its namespace', async () => {
    expect(await fails(['top', 'pods', '-n', 'shop', '--as=alice'])).toContain(
      'pods.metrics.k8s.io is forbidden: User "alice" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "shop"',
    );
    expect(await fails(['top', 'nodes', '--as=alice'])).toContain(
      'nodes.metrics.k8s.io is forbidden: User "alice" cannot list resource "nodes" in API group "metrics.k8s.io" at the cluster scope',
    );
    await ok(['create', 'rolebinding', 'alice-view', '-n', 'shop', '--clusterrole=view', '--user=alice']);
    const table = rows(
      await okEventually(['top', 'pods', '-n', 'shop', '--as=alice'], (out) => out.includes('idle')),
    );
    expect(table.map((row) => row[0])).toContain('idle');
  });
});
