// Services through the proxy on `tkube up --nodes 3` with real Docker nodes: a Deployment of three
// busybox httpd backends behind a ClusterIP reached from a pod on every node by the service's name,
// its FQDN and its ClusterIP (300 requests each, all three backends answering); a NodePort reached
// from the host at every node's address; externalTrafficPolicy Local keeping the client's address
// and answering only where a backend runs (its health check node port says so); ClientIP affinity
// pinning a client; a service without endpoints refusing connections at once; bad input (ports
// out of range, hand-written EndpointSlices that are malformed or of no use to the proxy).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../../src/api/types/apps-v1.generated.js';
import type { Service } from '../../../src/api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../../src/api/types/discovery-v1.generated.js';
import { DEPLOYMENTS, ENDPOINT_SLICES, SERVICES } from '../../../src/client/resources.js';
import { BUSYBOX, containerLog, waitFor } from '../kubelet/pods-support.js';
import {
  backendContainer,
  get,
  getLoop,
  type NetworkCluster,
  runClient,
  startNetworkCluster,
  waitForRules,
} from './support.js';

let cluster: NetworkCluster;
let nodes: string[];

function service(name: string, spec: Service['spec']): Service {
  return { metadata: { name, namespace: 'default' }, spec: { selector: { app: 'web' }, ...spec } };
}

async function createService(svc: Service): Promise<Service> {
  return cluster.client.resource<Service>(SERVICES).create(svc);
}

/** Requests per target (name, FQDN, ClusterIP) from each node's client, as the acceptance asks. */
const REQUESTS = 300;

/** Backend pod names seen in client output lines. */
const backendsIn = (output: string) => new Set(output.split('\n').filter((line) => line.startsWith('web-')));

beforeAll(async () => {
  cluster = await startNetworkCluster('svc', 3);
  nodes = [...cluster.nodeIPs.keys()].sort();
  const deployment: Deployment = {
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        // httpd as PID 1 ignores SIGTERM: a replaced or scaled-down backend serves, terminating,
        // for its whole grace period, which 5 s covers (the default 30 made the file wait).
        spec: { terminationGracePeriodSeconds: 5, containers: [backendContainer()] },
      },
    },
  };
  await cluster.client.resource<Deployment>(DEPLOYMENTS).create(deployment);
  await waitFor(
    () => cluster.client.resource<Deployment>(DEPLOYMENTS).get('default', 'web'),
    (d) => d.status?.readyReplicas === 3,
    120_000,
    'three ready backends',
  );
}, 400_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

describe('ClusterIP', () => {
  it('reaches all three backends from a pod on every node by name, FQDN and ClusterIP, by a named targetPort', async () => {
    const svc = await createService(
      service('web', { ports: [{ name: 'http', port: 80, targetPort: 'http' }] }),
    );
    await waitForRules(cluster, /"default\/web:http cluster IP" .*-j KUBE-SVC-/);
    // Names resolve through the pod's resolv.conf (ClusterFirst: 10.96.0.10, search default.svc.cluster.local).
    const targets = {
      name: 'http://web/',
      fqdn: 'http://web.default.svc.cluster.local/',
      clusterIP: `http://${svc.spec!.clusterIP}/`,
    };
    const script = Object.entries(targets)
      .map(([label, url]) => `echo "=== ${label}"; ${getLoop(url, REQUESTS)}`)
      .join('; ');
    const outputs = await Promise.all(
      nodes.map((node, i) => runClient(cluster, node, `client-${i}`, script, 240_000)),
    );
    expect(nodes).toHaveLength(3);
    for (const output of outputs) {
      const sections = output.split('=== ').slice(1);
      expect(sections.map((section) => section.split('\n')[0])).toEqual(Object.keys(targets));
      for (const section of sections) {
        const lines = section.split('\n').slice(1).filter(Boolean);
        expect(lines).toHaveLength(REQUESTS);
        expect(lines).not.toContain('ERR');
        expect(backendsIn(section).size).toBe(3);
      }
    }
  }, 300_000);

  it('pins a client to one backend with sessionAffinity ClientIP', async () => {
    const svc = await createService(
      service('web-sticky', { sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 'http' }] }),
    );
    await waitForRules(cluster, /"default\/web-sticky cluster IP" .*-j KUBE-SVC-/);
    const output = await runClient(
      cluster,
      nodes[0]!,
      'client-sticky',
      getLoop(`http://${svc.spec!.clusterIP}/`, 20),
    );
    expect(output.split('\n').filter(Boolean)).toHaveLength(20);
    expect(backendsIn(output).size).toBe(1);
  }, 120_000);

  it('refuses connections at once to a service without endpoints', async () => {
    const svc = await createService({
      metadata: { name: 'nobody', namespace: 'default' },
      spec: { selector: { app: 'nobody' }, ports: [{ port: 80 }] },
    });
    await waitForRules(cluster, /"default\/nobody has no endpoints" .*-j REJECT/);
    const output = await runClient(
      cluster,
      nodes[1]!,
      'client-refused',
      `start=$(busybox date +%s); ${get(`http://${svc.spec!.clusterIP}/`)} 2>&1; echo "took $(( $(busybox date +%s) - start ))"`,
    );
    expect(output).toContain('Connection refused');
    expect(Number(/took (\d+)/.exec(output)?.[1])).toBeLessThanOrEqual(2);
  }, 120_000);

  it('routes internalTrafficPolicy Local only to backends on the client node', async () => {
    const svc = await createService(
      service('web-local', { internalTrafficPolicy: 'Local', ports: [{ port: 80, targetPort: 'http' }] }),
    );
    await waitForRules(cluster, /"default\/web-local (cluster IP" .*-j KUBE-SVL-|has no local endpoints")/);
    const backends = await cluster.pods.list('default', { labelSelector: 'app=web' });
    const outputs = await Promise.all(
      nodes.map((node, i) =>
        runClient(cluster, node, `client-itp-${i}`, getLoop(`http://${svc.spec!.clusterIP}/`, 6)),
      ),
    );
    nodes.forEach((node, i) => {
      const local = backends.items
        .filter((pod) => pod.spec?.nodeName === node)
        .map((pod) => pod.metadata!.name!);
      const lines = outputs[i]!.split('\n').filter(Boolean);
      if (local.length === 0) expect(lines).toEqual(Array(6).fill('ERR'));
      else {
        expect(lines).toHaveLength(6);
        expect(lines.every((line) => local.includes(line))).toBe(true);
      }
    });
  }, 120_000);

  it('lets a pod reach itself through its own service (hairpin)', async () => {
    const svc = await createService({
      metadata: { name: 'hairpin', namespace: 'default' },
      spec: { selector: { app: 'hairpin' }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    // The only endpoint, serving and then asking its own service until the proxy has it.
    const script = [
      'busybox mkdir -p /www',
      'echo "$POD_NAME" > /www/index.html',
      'httpd -p 8080 -h /www',
      `i=0; while [ $i -lt 30 ]; do ${get(`http://${svc.spec!.clusterIP}/`)} 2>/dev/null && break; i=$((i+1)); busybox sleep 1; done`,
    ].join(' && ');
    await cluster.pods.create({
      metadata: { name: 'hairpin', namespace: 'default', labels: { app: 'hairpin' } },
      spec: {
        nodeName: nodes[0]!,
        restartPolicy: 'Never',
        containers: [{ ...backendContainer(), command: ['sh', '-c', script] }],
      },
    });
    const pod = await waitFor(
      () => cluster.pods.get('default', 'hairpin'),
      (pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed',
      90_000,
      'the hairpin pod',
    );
    expect((await containerLog(pod, 'web')).trim()).toBe('hairpin');
  }, 120_000);
});

describe('NodePort', () => {
  it('answers from the host at every node address', async () => {
    const svc = await createService(
      service('web-np', { type: 'NodePort', ports: [{ port: 80, targetPort: 'http' }] }),
    );
    const nodePort = svc.spec!.ports![0]!.nodePort!;
    // Programmed within a moment of the service's creation, by each node's proxy on its own.
    for (const ip of cluster.nodeIPs.values()) {
      await waitFor(
        () => fetch(`http://${ip}:${nodePort}/`, { signal: AbortSignal.timeout(2000) }),
        (response) => response.ok,
        10_000,
        `the node port on ${ip}`,
      );
    }
    for (const ip of cluster.nodeIPs.values()) {
      const seen = new Set<string>();
      for (let i = 0; i < 15; i++) {
        const response = await fetch(`http://${ip}:${nodePort}/`, { signal: AbortSignal.timeout(5000) });
        expect(response.status).toBe(200);
        seen.add((await response.text()).trim());
      }
      expect([...seen].every((name) => name.startsWith('web-'))).toBe(true);
      expect(seen.size).toBeGreaterThan(1);
    }
  }, 60_000);

  it('keeps the client address under externalTrafficPolicy Local and answers only where a backend runs', async () => {
    // One backend, on the second node.
    await cluster.pods.create({
      metadata: { name: 'solo', namespace: 'default', labels: { app: 'solo' } },
      spec: { nodeName: nodes[1]!, containers: [backendContainer()] },
    });
    await waitFor(
      () => cluster.pods.get('default', 'solo'),
      (pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
      60_000,
      'pod solo ready',
    );
    const healthCheckNodePort = 32345;
    const svc = await createService({
      metadata: { name: 'solo', namespace: 'default' },
      spec: {
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        healthCheckNodePort,
        selector: { app: 'solo' },
        ports: [{ port: 80, targetPort: 'http' }],
      },
    });
    const nodePort = svc.spec!.ports![0]!.nodePort!;
    await waitForRules(cluster, /--comment "default\/solo" -m tcp --dport \d+ -j KUBE-EXT-/);
    const [withoutIP, withIP] = [cluster.nodeIPs.get(nodes[0]!)!, cluster.nodeIPs.get(nodes[1]!)!];
    // The host reaches the nodes from the network's gateway: that is the address the backend must see.
    const gateway = withIP.replace(/\.\d+$/, '.1');
    const seen = await waitFor(
      async () =>
        (
          await (
            await fetch(`http://${withIP}:${nodePort}/cgi-bin/ip`, { signal: AbortSignal.timeout(3000) })
          ).text()
        ).trim(),
      (text) => text.length > 0,
      30_000,
      'the Local node port',
    );
    // busybox httpd listens on an IPv6 socket: the address comes IPv4-mapped.
    expect(seen.replace(/^\[::ffff:(.*)\]$/, '$1')).toBe(gateway);
    await expect(
      fetch(`http://${withoutIP}:${nodePort}/`, { signal: AbortSignal.timeout(2000) }),
    ).rejects.toThrow();
    await expect(
      fetch(`http://${cluster.nodeIPs.get(nodes[2]!)}:${nodePort}/`, { signal: AbortSignal.timeout(2000) }),
    ).rejects.toThrow();

    const health = await fetch(`http://${withIP}:${healthCheckNodePort}/`, {
      signal: AbortSignal.timeout(3000),
    });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      service: { namespace: 'default', name: 'solo' },
      localEndpoints: 1,
      serviceProxyHealthy: true,
    });
    const none = await fetch(`http://${withoutIP}:${healthCheckNodePort}/`, {
      signal: AbortSignal.timeout(3000),
    });
    expect(none.status).toBe(503);
  }, 120_000);
});

describe('node addresses as endpoints', () => {
  it('routes internalTrafficPolicy Local to the client node own address (the shape of kube-dns)', async () => {
    // Each node's health check server of the `solo` service (above) answers with its own count.
    const svc = await createService({
      metadata: { name: 'node-local', namespace: 'default' },
      spec: { internalTrafficPolicy: 'Local', ports: [{ name: 'hc', port: 80, targetPort: 32345 }] },
    });
    await cluster.client.resource<EndpointSlice>(ENDPOINT_SLICES).create({
      metadata: {
        name: 'node-local-1',
        namespace: 'default',
        labels: { 'kubernetes.io/service-name': 'node-local' },
      },
      addressType: 'IPv4',
      ports: [{ name: 'hc', port: 32345, protocol: 'TCP' }],
      endpoints: nodes.map((node) => ({
        addresses: [cluster.nodeIPs.get(node)!],
        nodeName: node,
        conditions: { ready: true },
      })),
    });
    await waitForRules(cluster, /"default\/node-local:hc cluster IP" .*-j KUBE-SVL-/);
    const outputs = await Promise.all(
      nodes.map((node, i) =>
        runClient(
          cluster,
          node,
          `client-node-local-${i}`,
          `${get(`http://${svc.spec!.clusterIP}/`)} 2>&1; true`,
        ),
      ),
    );
    // Only the second node runs a `solo` backend: its own server says 1, the others answer 503.
    expect(outputs[0]).toContain('503 Service Unavailable');
    expect(outputs[1]).toContain('"localEndpoints": 1');
    expect(outputs[2]).toContain('503 Service Unavailable');
  }, 120_000);

  it("answers kube-proxy's /healthz on port 10256 of every node", async () => {
    for (const ip of cluster.nodeIPs.values()) {
      const response = await fetch(`http://${ip}:10256/healthz`, { signal: AbortSignal.timeout(3000) });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ nodeEligible: true });
    }
  });
});

describe('bad input', () => {
  const apply = (object: object) => cluster.kubectl(['create', '-f', '-'], JSON.stringify(object));
  const nodePortService = (name: string, ports: object[]) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { type: 'NodePort', selector: { app: 'web' }, ports },
  });

  it('refuses service ports and node ports out of range with the upstream messages', async () => {
    const port = await apply(nodePortService('bad-port', [{ port: 70000, targetPort: 8080 }]));
    expect(port.exitCode).toBe(1);
    expect(port.stderr).toContain(
      'spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
    );
    const nodePort = await apply(nodePortService('bad-node-port', [{ port: 80, nodePort: 20000 }]));
    expect(nodePort.exitCode).toBe(1);
    expect(nodePort.stderr).toContain(
      'spec.ports[0].nodePort: Invalid value: 20000: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
  });

  it('refuses a malformed hand-written EndpointSlice, and routes nothing to a slice the proxy cannot use', async () => {
    const svc = await createService({
      metadata: { name: 'hand', namespace: 'default' },
      spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    });
    const slice = (name: string, body: object) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': 'hand' } },
      ...body,
    });
    const invalid = await apply(
      slice('hand-invalid', {
        addressType: 'IPv4',
        ports: [{ name: 'http', port: 8080 }],
        endpoints: [{ addresses: ['not-an-ip'] }],
      }),
    );
    expect(invalid.exitCode).toBe(1);
    expect(invalid.stderr).toContain(
      'endpoints[0].addresses[0]: Invalid value: "not-an-ip": must be a valid IP address',
    );
    // Valid to the API, useless to the proxy: a port name the service does not have, and FQDN
    // addresses. The service keeps rejecting at once, and every node still programs the others.
    const wrongPort = await apply(
      slice('hand-wrong-port', {
        addressType: 'IPv4',
        ports: [{ name: 'other', port: 8080 }],
        endpoints: [{ addresses: ['10.244.9.9'], conditions: { ready: true } }],
      }),
    );
    expect(wrongPort.exitCode, wrongPort.stderr).toBe(0);
    const fqdn = await apply(
      slice('hand-fqdn', {
        addressType: 'FQDN',
        ports: [{ name: 'http', port: 8080 }],
        endpoints: [{ addresses: ['example.com'], conditions: { ready: true } }],
      }),
    );
    expect(fqdn.exitCode, fqdn.stderr).toBe(0);
    await waitForRules(cluster, /"default\/hand:http has no endpoints" .*-j REJECT/);
    await waitForRules(cluster, /"default\/web:http cluster IP" .*-j KUBE-SVC-/);
    const output = await runClient(
      cluster,
      nodes[2]!,
      'client-hand',
      `${get(`http://${svc.spec!.clusterIP}/`)} 2>&1; true`,
    );
    expect(output).toContain('Connection refused');
  }, 120_000);
});

describe('the proxy metrics', () => {
  it('are on the agent metrics endpoint beside the kubelet ones', async () => {
    const result = await cluster.kubectl(['get', '--raw', `/api/v1/nodes/${nodes[0]}/proxy/metrics`]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^kubeproxy_sync_proxy_rules_duration_seconds_count [1-9]/m);
    expect(result.stdout).toMatch(/^kubeproxy_sync_proxy_rules_last_timestamp_seconds \d/m);
    expect(result.stdout).toMatch(/^kubeproxy_network_programming_duration_seconds_count [1-9]/m);
    expect(result.stdout).toContain('kubelet_running_pods');
  });
});

describe('a rolling update', () => {
  it('loses no request of a steady client', async () => {
    const svc = await cluster.client.resource<Service>(SERVICES).get('default', 'web');
    const before = await cluster.pods.list('default', { labelSelector: 'app=web' });
    const loop = `i=0; while [ $i -lt 250 ]; do ${get(`http://${svc.spec!.clusterIP}/`)} 2>/dev/null || echo ERR; i=$((i+1)); busybox sleep 0.1; done`;
    await cluster.pods.create({
      metadata: { name: 'client-rollout', namespace: 'default' },
      spec: {
        nodeName: nodes[0]!,
        restartPolicy: 'Never',
        containers: [
          { name: 'client', image: BUSYBOX, imagePullPolicy: 'Never', command: ['sh', '-c', loop] },
        ],
      },
    });
    await waitFor(
      () => cluster.pods.get('default', 'client-rollout'),
      (pod) => pod.status?.phase === 'Running',
      60_000,
      'the client running',
    );
    const restart = await cluster.kubectl(['rollout', 'restart', 'deployment', 'web']);
    expect(restart.exitCode).toBe(0);
    const pod = await waitFor(
      () => cluster.pods.get('default', 'client-rollout'),
      (pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed',
      120_000,
      'the client done',
    );
    const lines = (await containerLog(pod, 'client')).split('\n').filter(Boolean);
    expect(lines).toHaveLength(250);
    expect(lines.filter((line) => line === 'ERR')).toEqual([]);
    // The answers moved from the old backends to the new ones.
    const old = new Set(before.items.map((p) => p.metadata!.name!));
    expect(lines.some((line) => old.has(line))).toBe(true);
    expect(lines.some((line) => !old.has(line))).toBe(true);
  }, 180_000);
});

describe('scaling to zero', () => {
  it('turns the service into a fast connection refusal', async () => {
    const svc = await cluster.client.resource<Service>(SERVICES).get('default', 'web');
    const scaled = await cluster.kubectl(['scale', 'deployment', 'web', '--replicas', '0']);
    expect(scaled.exitCode).toBe(0);
    // The backends keep serving through their grace period (terminating endpoints); then the
    // service has none left and every node rejects it.
    await waitForRules(cluster, /"default\/web:http has no endpoints" .*-j REJECT/, 90_000);
    const script = [
      'start=$(busybox date +%s)',
      `${get(`http://${svc.spec!.clusterIP}/`)} 2>&1`,
      'echo "took $(( $(busybox date +%s) - start ))"',
    ].join('; ');
    const output = await runClient(cluster, nodes[0]!, 'client-zero', script);
    expect(output).toContain('Connection refused');
    expect(Number(/took (\d+)/.exec(output)?.[1])).toBeLessThanOrEqual(1);
  }, 180_000);
});
