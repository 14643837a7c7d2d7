// `tkube up --nodes 0 --fake-nodes 3` with real kubectl: three Ready nodes that kubectl waits on,
// shows with their addresses and runtime, and whose kubelets run a bound pod and finish its
// deletion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('fakenodes', { fakeNodes: 3 });
}, 120_000);
afterAll(() => cluster?.down(), 60_000);

describe('tkube up --fake-nodes', () => {
  it('gives kubectl three Ready nodes', async () => {
    const wait = await cluster.kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=30s']);
    expect(wait.stderr).toBe('');
    expect(wait.exitCode).toBe(0);
    expect(wait.stdout.trim().split('\n').sort()).toEqual([
      'node/fake-node-0 condition met',
      'node/fake-node-1 condition met',
      'node/fake-node-2 condition met',
    ]);
    const wide = await cluster.kubectl(['get', 'nodes', '-o', 'wide', '--no-headers']);
    expect(wide.exitCode).toBe(0);
    const rows = wide.stdout.trim().split('\n');
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      const [name, status, roles, , version, internalIP] = row.split(/\s{2,}/);
      expect(name).toMatch(/^fake-node-\d$/);
      expect(status).toBe('Ready');
      expect(roles).toBe('<none>');
      expect(version).toBe('v1.33.0');
      expect(internalIP).toMatch(/^198\.18\.0\.\d+$/);
      expect(row).toContain('fake://');
    }
  });

  it('runs a bound pod and honours its deletion', async () => {
    const pod = `
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  nodeName: fake-node-1
  containers: [{name: app, image: nginx}]
`;
    expect((await cluster.kubectl(['apply', '-f', '-'], { input: pod })).exitCode).toBe(0);
    const ready = await cluster.kubectl(['wait', '--for=condition=Ready', 'pod/web', '--timeout=30s']);
    expect(ready.exitCode).toBe(0);
    const ip = await cluster.kubectl([
      'get',
      'pod',
      'web',
      '-o',
      'jsonpath={.status.podIP} {.spec.nodeName}',
    ]);
    expect(ip.stdout).toMatch(/^10\.244\.\d+\.\d+ fake-node-1$/);
    const deleted = await cluster.kubectl(['delete', 'pod', 'web', '--timeout=30s']);
    expect(deleted.exitCode).toBe(0);
    expect(deleted.stdout).toContain('pod "web" deleted');
    const gone = await cluster.kubectl(['get', 'pod', 'web']);
    expect(gone.stderr).toContain('pods "web" not found');
  });
});
