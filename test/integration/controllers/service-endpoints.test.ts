// A Service's Endpoints and EndpointSlices as real kubectl shows them: a ready and a not-ready
// pod (their "kubelet" is kubectl patching pods/status), the ready one listed by `kubectl get
// endpoints`, both in the slice with their conditions, and the Endpoints gone with the Service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster('ctl-endpoints');
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Polls a kubectl read until its output passes `accept`. */
async function until(args: string[], accept: (out: string) => boolean): Promise<string> {
  let out = '';
  for (let i = 0; i < 100; i++) {
    out = (await cluster.kubectl(args)).stdout;
    if (accept(out)) return out;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`kubectl ${args.join(' ')} never printed what was expected; last: ${out}`);
}

const manifests = `
apiVersion: v1
kind: Node
metadata:
  name: ep-node
  labels:
    topology.kubernetes.io/zone: zone-a
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: http
${['web-1', 'web-2']
  .map(
    (name) => `---
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: default
  labels:
    app: web
spec:
  nodeName: ep-node
  containers:
  - name: app
    image: nginx
    ports:
    - name: http
      containerPort: 8080
`,
  )
  .join('')}`;

/** What the kubelet would report: Running with an IP, Ready or not. */
async function reportStatus(pod: string, ip: string, ready: boolean): Promise<void> {
  const status = {
    status: {
      phase: 'Running',
      podIP: ip,
      podIPs: [{ ip }],
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    },
  };
  await ok(['patch', 'pod', pod, '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]);
}

describe('service endpoints with kubectl', () => {
  it('shows the ready pod in Endpoints and both pods in the EndpointSlice', async () => {
    await ok(['apply', '-f', '-'], manifests);
    await reportStatus('web-1', '10.244.1.5', true);
    await reportStatus('web-2', '10.244.1.6', false);

    const table = await until(['get', 'endpoints', 'web'], (out) => out.includes('10.244.1.5:8080'));
    const lines = table.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+ENDPOINTS\s+AGE$/);
    expect(lines[1]).toMatch(/^web\s+10\.244\.1\.5:8080\s+\d+s$/);
    const notReady = await until(
      ['get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[*].notReadyAddresses[*].ip}'],
      (out) => out !== '',
    );
    expect(notReady).toBe('10.244.1.6');

    const slices = await until(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web'], (out) =>
      /10\.244\.1\.5.*10\.244\.1\.6|10\.244\.1\.6.*10\.244\.1\.5/.test(out),
    );
    const sliceLines = slices.trim().split('\n');
    expect(sliceLines[0]).toMatch(/^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
    expect(sliceLines[1]).toMatch(
      /^web-[a-z0-9]{5}\s+IPv4\s+8080\s+(10\.244\.1\.5,10\.244\.1\.6|10\.244\.1\.6,10\.244\.1\.5)\s+\d+s$/,
    );
    const conditions = await ok([
      'get',
      'endpointslices',
      '-l',
      'kubernetes.io/service-name=web',
      '-o',
      'jsonpath={range .items[0].endpoints[*]}{.targetRef.name} {.conditions.ready} {.conditions.serving} {.zone}{"\\n"}{end}',
    ]);
    expect(conditions.trim().split('\n').sort()).toEqual([
      'web-1 true true zone-a',
      'web-2 false false zone-a',
    ]);
    const labels = await ok([
      'get',
      'endpointslices',
      '-l',
      'kubernetes.io/service-name=web',
      '-o',
      'jsonpath={.items[0].metadata.labels.endpointslice\\.kubernetes\\.io/managed-by}',
    ]);
    expect(labels).toBe('endpointslice-controller.k8s.io');
  });

  it('follows readiness, and deletes the Endpoints with the Service', async () => {
    await reportStatus('web-2', '10.244.1.6', true);
    const table = await until(['get', 'endpoints', 'web'], (out) => out.includes('10.244.1.6:8080'));
    expect(table.trim().split('\n')[1]).toMatch(/^web\s+10\.244\.1\.5:8080,10\.244\.1\.6:8080\s+\d+s$/);
    await ok(['delete', 'service', 'web']);
    const gone = await until(
      ['get', 'endpoints', 'web', '--ignore-not-found', '-o', 'name'],
      (out) => out === '',
    );
    expect(gone).toBe('');
  });
});
