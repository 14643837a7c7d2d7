// Cascading deletion with real kubectl: `kubectl delete` of an owner removes its dependents
// (background), `--cascade=orphan` keeps them without the reference, and `--cascade=foreground`
// waits while the owner shows its deletionTimestamp and `foregroundDeletion` finalizer until the
// blocking dependents are gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster('gc-cascade');
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

const NS = 'gc-cascade';

/** A ReplicaSet of no replicas (so no controller makes pods) and ConfigMaps it owns. */
async function ownerWithDependents(owner: string, dependents: string[], holdFirst = false): Promise<void> {
  const replicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: owner, namespace: NS },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: owner } },
      template: {
        metadata: { labels: { app: owner } },
        spec: { containers: [{ name: 'app', image: 'busybox' }] },
      },
    },
  };
  const created = await cluster.kubectl(['create', '-o', 'json', '-f', '-'], {
    input: JSON.stringify(replicaSet),
  });
  expect(created.exitCode, created.stderr).toBe(0);
  const uid = (JSON.parse(created.stdout) as { metadata: { uid: string } }).metadata.uid;
  const items = dependents.map((name, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: NS,
      ...(holdFirst && i === 0 ? { finalizers: ['example.com/hold'] } : {}),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: owner,
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
  }));
  const result = await cluster.kubectl(['create', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
  });
  expect(result.exitCode, result.stderr).toBe(0);
}

async function configMapNames(): Promise<string[]> {
  const result = await cluster.kubectl(['get', 'configmaps', '-n', NS, '-o', 'name']);
  expect(result.exitCode, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace('configmap/', ''))
    .filter((name) => name !== 'kube-root-ca.crt')
    .sort();
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('cascading deletion with kubectl', () => {
  beforeAll(async () => {
    const result = await cluster.kubectl(['create', 'namespace', NS]);
    expect(result.exitCode, result.stderr).toBe(0);
  });

  it('deletes the dependents of an owner deleted in the background (the default)', async () => {
    await ownerWithDependents('background', ['bg-a', 'bg-b']);
    const result = await cluster.kubectl(['delete', 'replicaset', 'background', '-n', NS]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('replicaset.apps "background" deleted');
    await waitFor(async () => !(await configMapNames()).some((name) => name.startsWith('bg-')));
  });

  it('keeps the dependents, without the reference, with --cascade=orphan', async () => {
    await ownerWithDependents('orphaning', ['orphan-a', 'orphan-b']);
    const result = await cluster.kubectl(['delete', 'replicaset', 'orphaning', '-n', NS, '--cascade=orphan']);
    expect(result.exitCode, result.stderr).toBe(0);
    const gone = await cluster.kubectl(['get', 'replicaset', 'orphaning', '-n', NS]);
    expect(gone.exitCode).not.toBe(0);
    expect(gone.stderr).toContain('replicasets.apps "orphaning" not found');
    expect(await configMapNames()).toEqual(expect.arrayContaining(['orphan-a', 'orphan-b']));
    const refs = await cluster.kubectl([
      'get',
      'configmap',
      'orphan-a',
      '-n',
      NS,
      '-o',
      'jsonpath={.metadata.ownerReferences}',
    ]);
    expect(refs.stdout).not.toContain('orphaning');
  });

  it('waits for the dependents with --cascade=foreground', async () => {
    await ownerWithDependents('foreground', ['fg-held', 'fg-b'], true);
    // kubectl waits for the owner to go; it cannot while fg-held lingers with its finalizer.
    const deleting = cluster.kubectl([
      'delete',
      'replicaset',
      'foreground',
      '-n',
      NS,
      '--cascade=foreground',
    ]);
    await waitFor(async () => !(await configMapNames()).includes('fg-b'));
    const owner = await cluster.kubectl([
      'get',
      'replicaset',
      'foreground',
      '-n',
      NS,
      '-o',
      'jsonpath={.metadata.deletionTimestamp} {.metadata.finalizers}',
    ]);
    expect(owner.exitCode, owner.stderr).toBe(0);
    expect(owner.stdout).toMatch(/^\d{4}-\d\d-\d\dT\S+ \["foregroundDeletion"\]$/);
    const held = await cluster.kubectl([
      'get',
      'configmap',
      'fg-held',
      '-n',
      NS,
      '-o',
      'jsonpath={.metadata.deletionTimestamp}',
    ]);
    expect(held.stdout).not.toBe('');

    const release = await cluster.kubectl([
      'patch',
      'configmap',
      'fg-held',
      '-n',
      NS,
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ]);
    expect(release.exitCode, release.stderr).toBe(0);
    const result = await deleting;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('replicaset.apps "foreground" deleted');
    const gone = await cluster.kubectl(['get', 'replicaset', 'foreground', '-n', NS]);
    expect(gone.exitCode).not.toBe(0);
  }, 60_000);
});
