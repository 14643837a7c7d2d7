// Issue 7's acceptance, end to end with real kubectl on `tkube up --nodes 0 --fake-nodes 3`: the
// scheduler places pods, fake kubelets run them, and the controllers roll, scale, heal, cascade
// and clean up as Kubernetes does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { PODS } from '../../../src/client/resources.js';
import { clientFromKubeconfig } from '../../../src/client/transports.js';
import type { Client } from '../../../src/client/types.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';

let cluster: TestCluster;
let client: Client;
beforeAll(async () => {
  cluster = await startTestCluster('workloads', { fakeNodes: 3 });
  client = clientFromKubeconfig(cluster.kubeconfig, undefined, 'test');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await cluster?.down();
}, 60_000);

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** kubectl is slow to start: poll every 200 ms, for up to 30 s. */
const until = <T>(check: () => Promise<T | undefined>): Promise<T> => eventually(check, 30_000, 200);

const names = async (kind: string, namespace: string, selector?: string): Promise<string[]> =>
  (await ok(['get', kind, '-n', namespace, '-o', 'name', ...(selector ? ['-l', selector] : [])]))
    .split('\n')
    .filter(Boolean)
    .sort();

describe('workloads on fake nodes', () => {
  it('rolls a Deployment out across the nodes and `rollout status` returns', async () => {
    await ok(['create', 'namespace', 'apps']);
    await ok(['create', 'deployment', 'web', '-n', 'apps', '--image=nginx:1.27', '--replicas=4']);
    const status = await ok(['rollout', 'status', 'deployment/web', '-n', 'apps', '--timeout=60s']);
    expect(status).toContain('deployment "web" successfully rolled out');
    const nodes = await ok(['get', 'pods', '-n', 'apps', '-o', 'jsonpath={.items[*].spec.nodeName}']);
    expect(new Set(nodes.split(' ')).size).toBeGreaterThan(1);
  });

  it('rolls an image change within maxSurge and maxUnavailable at every observed step', async () => {
    await ok([
      'patch',
      'deployment',
      'web',
      '-n',
      'apps',
      '--type=merge',
      '-p',
      '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":1}}}}',
    ]);
    const pods = client.resource<Pod>(PODS);
    const list = await pods.list('apps');
    const live = new Map(list.items.map((pod) => [pod.metadata!.name!, pod]));
    const violations: string[] = [];
    const abort = new AbortController();
    const watching = (async () => {
      for await (const event of pods.watch('apps', {
        resourceVersion: list.metadata.resourceVersion,
        signal: abort.signal,
      })) {
        if (event.type === 'ERROR' || event.type === 'BOOKMARK') continue;
        const pod = event.object;
        if (event.type === 'DELETED') live.delete(pod.metadata!.name!);
        else live.set(pod.metadata!.name!, pod);
        const existing = [...live.values()].filter((p) => !p.metadata?.deletionTimestamp);
        const ready = existing.filter((p) =>
          p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        // 4 replicas, maxSurge 1, maxUnavailable 1: at most 5 pods, at least 3 ready.
        if (existing.length > 5) violations.push(`${existing.length} pods`);
        if (ready.length < 3) violations.push(`${ready.length} ready`);
      }
    })();
    await ok(['set', 'image', 'deployment/web', '-n', 'apps', 'nginx=nginx:1.28']);
    await ok(['rollout', 'status', 'deployment/web', '-n', 'apps', '--timeout=60s']);
    abort.abort();
    await watching;
    expect(violations).toEqual([]);
    const images = await ok([
      'get',
      'pods',
      '-n',
      'apps',
      '-o',
      'jsonpath={.items[*].spec.containers[0].image}',
    ]);
    expect(new Set(images.split(' '))).toEqual(new Set(['nginx:1.28']));
  });

  it('undoes the rollout back to the previous ReplicaSet', async () => {
    const before = await names('replicasets', 'apps');
    expect(before).toHaveLength(2);
    await ok(['rollout', 'undo', 'deployment/web', '-n', 'apps']);
    await ok(['rollout', 'status', 'deployment/web', '-n', 'apps', '--timeout=60s']);
    const image = await ok([
      'get',
      'deployment',
      'web',
      '-n',
      'apps',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
    ]);
    expect(image).toBe('nginx:1.27');
    expect(await names('replicasets', 'apps')).toEqual(before);
    const history = await ok(['rollout', 'history', 'deployment/web', '-n', 'apps']);
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
  });

  it('scales up and down, and replaces a deleted pod', async () => {
    await ok(['scale', 'deployment/web', '-n', 'apps', '--replicas=6']);
    await until(async () => ((await names('pods', 'apps', 'app=web')).length === 6 ? true : undefined));
    await ok(['scale', 'deployment/web', '-n', 'apps', '--replicas=2']);
    const two = await until(async () => {
      const pods = await names('pods', 'apps', 'app=web');
      return pods.length === 2 ? pods : undefined;
    });
    await ok(['delete', two[0]!, '-n', 'apps', '--wait=true']);
    const healed = await until(async () => {
      const pods = await names('pods', 'apps', 'app=web');
      return pods.length === 2 && !pods.includes(two[0]!) ? pods : undefined;
    });
    expect(healed).toContain(two[1]);
  });

  it('cascades deletion in the background, orphans on request, and deletes dependents first in foreground', async () => {
    await ok(['create', 'deployment', 'orphaned', '-n', 'apps', '--image=nginx', '--replicas=2']);
    await ok(['rollout', 'status', 'deployment/orphaned', '-n', 'apps', '--timeout=60s']);
    await ok(['delete', 'deployment', 'orphaned', '-n', 'apps', '--cascade=orphan']);
    expect(await names('replicasets', 'apps', 'app=orphaned')).toHaveLength(1);
    expect(await names('pods', 'apps', 'app=orphaned')).toHaveLength(2);

    await ok(['create', 'deployment', 'front', '-n', 'apps', '--image=nginx', '--replicas=2']);
    await ok(['rollout', 'status', 'deployment/front', '-n', 'apps', '--timeout=60s']);
    const deleted = await ok(['delete', 'deployment', 'front', '-n', 'apps', '--cascade=foreground']);
    expect(deleted).toContain('deployment.apps "front" deleted');
    // kubectl waited for the foreground deletion: the dependents went first.
    expect(await names('replicasets', 'apps', 'app=front')).toEqual([]);

    await ok(['delete', 'deployment', 'web', '-n', 'apps']);
    await until(async () =>
      (await names('replicasets', 'apps', 'app=web')).length === 0 &&
      (await names('pods', 'apps', 'app=web')).length === 0
        ? true
        : undefined,
    );
  });

  it('gives a Service Endpoints and EndpointSlices that follow pod readiness', async () => {
    // A readiness gate lets the test decide readiness; the fake kubelets honour it.
    await ok(
      ['apply', '-f', '-'],
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: apps}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      readinessGates: [{conditionType: tkube.dev/serving}]
      containers: [{name: api, image: nginx, ports: [{containerPort: 80}]}]
`,
    );
    await ok(['expose', 'deployment', 'api', '-n', 'apps', '--port=80']);
    const endpoint = (field: string) =>
      ok(['get', 'endpoints', 'api', '-n', 'apps', '-o', `jsonpath={.subsets[*].${field}[*].ip}`]);
    const podIPs = await until(async () => {
      const ips = await ok([
        'get',
        'pods',
        '-n',
        'apps',
        '-l',
        'app=api',
        '-o',
        'jsonpath={.items[*].status.podIP}',
      ]);
      return ips.split(' ').filter(Boolean).length === 2 ? ips.split(' ').sort() : undefined;
    });
    await until(async () =>
      (await endpoint('notReadyAddresses')).split(' ').sort().join() === podIPs.join() ? true : undefined,
    );
    expect(await endpoint('addresses')).toBe('');

    const gate = (pod: string, status: 'True' | 'False') =>
      client.resource<Pod>(PODS).patch(
        'apps',
        pod,
        'strategic',
        { status: { conditions: [{ type: 'tkube.dev/serving', status }] } },
        {
          subresource: 'status',
        },
      );
    const pods = (await names('pods', 'apps', 'app=api')).map((name) => name.replace('pod/', ''));
    for (const pod of pods) await gate(pod, 'True');
    await until(async () =>
      (await endpoint('addresses')).split(' ').sort().join() === podIPs.join() ? true : undefined,
    );
    const sliceReady = () =>
      ok([
        'get',
        'endpointslices',
        '-n',
        'apps',
        '-l',
        'kubernetes.io/service-name=api',
        '-o',
        'jsonpath={.items[0].endpoints[*].conditions.ready}',
      ]);
    await until(async () => ((await sliceReady()) === 'true true' ? true : undefined));

    await gate(pods[0]!, 'False');
    const ip = await ok(['get', 'pod', pods[0]!, '-n', 'apps', '-o', 'jsonpath={.status.podIP}']);
    await until(async () => ((await endpoint('notReadyAddresses')) === ip ? true : undefined));
    await until(async () =>
      (await sliceReady()).split(' ').sort().join() === 'false,true' ? true : undefined,
    );
  });

  it('gives every new namespace its default ServiceAccount and kube-root-ca.crt, and deletes a namespace with everything in it', async () => {
    await ok(['create', 'namespace', 'fresh']);
    await until(async () =>
      (await cluster.kubectl(['get', 'serviceaccount', 'default', '-n', 'fresh'])).exitCode === 0 &&
      (await cluster.kubectl(['get', 'configmap', 'kube-root-ca.crt', '-n', 'fresh'])).exitCode === 0
        ? true
        : undefined,
    );
    await ok(['delete', 'namespace', 'apps', '--timeout=60s']);
    const gone = await cluster.kubectl(['get', 'namespace', 'apps']);
    expect(gone.stderr).toContain('namespaces "apps" not found');
    expect(await ok(['get', 'pods', '-A', '-o', 'name'])).toBe('');
  });
});
