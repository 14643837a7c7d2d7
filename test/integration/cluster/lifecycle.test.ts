// `tkube stop` / `start` and `tkube node add --fake` with the real control plane and simulated
// nodes (no Docker): every object survives the stop, the fake nodes come back Ready, and more
// fake nodes join a running cluster. test/e2e/lifecycle covers Docker nodes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tkube } from '../../support/cli.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster('lc-fake', { fakeNodes: 1 });
}, 120_000);

afterAll(async () => {
  await cluster?.down();
});

async function readyNodes(): Promise<string> {
  const out = await cluster.kubectl([
    'get',
    'nodes',
    '-o',
    'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}',
  ]);
  return out.stdout.trim();
}

async function state(): Promise<string> {
  const out = await tkube(['status', cluster.name, '-o', 'json'], cluster.env);
  return (JSON.parse(out.stdout) as { state: string }).state;
}

describe('a cluster with fake nodes', () => {
  it('stops and starts again with every object and its fake node', async () => {
    expect((await cluster.kubectl(['create', 'configmap', 'kept', '--from-literal=k=v'])).exitCode).toBe(0);
    const stopped = await tkube(['stop', cluster.name], cluster.env);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(await state()).toBe('Stopped');
    const started = await tkube(['start', cluster.name], cluster.env);
    expect(started.exitCode, started.stderr).toBe(0);
    expect(await state()).toBe('Running');
    expect((await cluster.kubectl(['get', 'configmap', 'kept', '-o', 'jsonpath={.data.k}'])).stdout).toBe(
      'v',
    );
    await expect.poll(readyNodes, { timeout: 30_000 }).toBe('fake-node-0=True');
  }, 120_000);

  it('adds fake nodes to the running cluster; a Docker node needs a node network', async () => {
    const added = await tkube(['node', 'add', cluster.name, '--fake', '2'], cluster.env);
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.stderr).toContain('Added fake nodes "fake-node-1", "fake-node-2"');
    await expect
      .poll(readyNodes, { timeout: 30_000 })
      .toBe('fake-node-0=True fake-node-1=True fake-node-2=True');
    expect((await cluster.kubectl(['get', 'configmap', 'kept', '-o', 'jsonpath={.data.k}'])).stdout).toBe(
      'v',
    );

    const docker = await tkube(['node', 'add', cluster.name], cluster.env);
    expect(docker.exitCode).toBe(1);
    expect(docker.stderr.trim()).toBe(
      `Error: cluster "${cluster.name}" has no node network (it was created with --nodes 0); create a cluster with at least one node to add Docker nodes to it`,
    );
  }, 120_000);
});
