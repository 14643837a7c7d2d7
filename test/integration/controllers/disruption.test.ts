// PodDisruptionBudgets with real kubectl on `tkube up --nodes 0 --fake-nodes 2`: the disruption
// controller fills the columns `kubectl get pdb` prints, and `kubectl drain` evicts a node's pods
// through pods/eviction — retrying the 429s the budget answers with — until the ReplicaSet has
// replaced them on the other node; cordon and uncordon flip the node's schedulability.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('disruption', { fakeNodes: 2 });
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

async function ok(args: string[]): Promise<string> {
  const result = await cluster.kubectl(args);
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

const podNodes = async (): Promise<string[]> =>
  (await ok(['get', 'pods', '-n', 'shop', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.nodeName}']))
    .split(' ')
    .filter(Boolean);

describe('disruption budgets and kubectl drain', () => {
  it('prints the budget of a Deployment of 3 with minAvailable 2: one disruption allowed', async () => {
    await ok(['create', 'namespace', 'shop']);
    await ok(['create', 'deployment', 'web', '-n', 'shop', '--image=nginx:1.27', '--replicas=3']);
    await ok(['rollout', 'status', 'deployment/web', '-n', 'shop', '--timeout=60s']);
    await ok([
      'create',
      'poddisruptionbudget',
      'web',
      '-n',
      'shop',
      '--selector=app=web',
      '--min-available=2',
    ]);
    const table = await eventually(async () => {
      const out = await ok(['get', 'pdb', 'web', '-n', 'shop']);
      return /^web\s+2\s+N\/A\s+1\s+\S+$/m.test(out) ? out : undefined;
    }, 30_000);
    expect(table.split('\n')[0]).toMatch(
      /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/,
    );
    const described = await ok(['get', 'pdb', 'web', '-n', 'shop', '-o', 'jsonpath={.status}']);
    expect(JSON.parse(described)).toMatchObject({
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      disruptionsAllowed: 1,
      observedGeneration: 1,
      conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods' }],
    });
  }, 90_000);

  it('drains the busier node within the budget, then uncordons it', async () => {
    const nodes = await podNodes();
    const counts = new Map<string, number>();
    for (const node of nodes) counts.set(node, (counts.get(node) ?? 0) + 1);
    const [busiest] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const drained = await cluster.kubectl([
      'drain',
      busiest,
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--timeout=90s',
    ]);
    expect(drained.exitCode, drained.stderr).toBe(0);
    expect(drained.stdout).toContain(`node/${busiest} drained`);
    for (let i = 0; i < (counts.get(busiest) ?? 0); i++)
      expect(drained.stdout).toMatch(/pod\/web-\S+ evicted/);
    // More than one web pod on the node: the budget refused one of them at least once.
    if ((counts.get(busiest) ?? 0) > 1) expect(drained.stderr).toContain('would violate the pod');
    expect(await ok(['get', 'node', busiest, '-o', 'jsonpath={.spec.unschedulable}'])).toBe('true');
    const after = await eventually(async () => {
      const placed = await podNodes();
      return placed.length === 3 && !placed.includes(busiest) ? placed : undefined;
    }, 60_000);
    expect(after).toHaveLength(3);
    await eventually(async () => {
      const out = await ok(['get', 'pdb', 'web', '-n', 'shop', '-o', 'jsonpath={.status.currentHealthy}']);
      return out === '3' ? out : undefined;
    }, 30_000);
    await ok(['uncordon', busiest]);
    expect(await ok(['get', 'node', busiest, '-o', 'jsonpath={.spec.unschedulable}'])).toBe('');
    await ok(['cordon', busiest]);
    expect(await ok(['get', 'node', busiest, '-o', 'jsonpath={.spec.unschedulable}'])).toBe('true');
    await ok(['uncordon', busiest]);
  }, 150_000);
});
