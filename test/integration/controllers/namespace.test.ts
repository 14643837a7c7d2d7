// Namespace lifecycle with real kubectl: `kubectl delete namespace` of a namespace with content
// returns once the namespace is gone; a new namespace has its default account and root CA; a
// legacy token Secret is filled in and its token (with the CA from the same Secret) is a working
// kubectl credential until the Secret is deleted.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster('ns-lifecycle');
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Polls a kubectl read until it prints something. */
async function until(args: string[]): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const out = (await cluster.kubectl(args)).stdout;
    if (out !== '') return out;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`kubectl ${args.join(' ')} printed nothing`);
}

describe('namespace lifecycle', () => {
  it('deletes a namespace with content, and the namespace is then gone', async () => {
    await ok(['create', 'namespace', 'doomed']);
    expect(await until(['get', 'serviceaccount', 'default', '-n', 'doomed', '-o', 'name'])).toBe(
      'serviceaccount/default',
    );
    expect(await until(['get', 'configmap', 'kube-root-ca.crt', '-n', 'doomed', '-o', 'name'])).toBe(
      'configmap/kube-root-ca.crt',
    );
    await ok(['create', 'configmap', 'settings', '-n', 'doomed', '--from-literal=a=b']);
    await ok(['create', 'secret', 'generic', 'password', '-n', 'doomed', '--from-literal=p=q']);
    await ok(['create', 'deployment', 'web', '-n', 'doomed', '--image=nginx']);
    await ok(['run', 'solo', '-n', 'doomed', '--image=nginx']);

    // kubectl waits for the namespace to be gone before it returns.
    expect((await ok(['delete', 'namespace', 'doomed', '--timeout=30s'])).trim()).toBe(
      'namespace "doomed" deleted',
    );
    const after = await cluster.kubectl(['get', 'namespace', 'doomed']);
    expect(after.exitCode).toBe(1);
    expect(after.stderr.trim()).toBe('Error from server (NotFound): namespaces "doomed" not found');
    // The name is free again, with nothing of the old content.
    await ok(['create', 'namespace', 'doomed']);
    expect(
      await ok(['get', 'configmaps,secrets,deployments,pods', '-n', 'doomed', '-o', 'name']),
    ).not.toMatch(/settings|password|web|solo/);
  });

  it('fills a legacy service-account token Secret whose token works as a kubectl credential', async () => {
    await ok(['create', 'namespace', 'legacy']);
    await ok(['create', 'serviceaccount', 'robot', '-n', 'legacy']);
    await ok(['create', 'role', 'pod-reader', '-n', 'legacy', '--verb=list', '--resource=pods']);
    await ok([
      'create',
      'rolebinding',
      'robot-reads',
      '-n',
      'legacy',
      '--role=pod-reader',
      '--serviceaccount=legacy:robot',
    ]);
    await ok(
      ['apply', '-f', '-'],
      [
        'apiVersion: v1',
        'kind: Secret',
        'metadata:',
        '  name: robot-token',
        '  namespace: legacy',
        '  annotations: {kubernetes.io/service-account.name: robot}',
        'type: kubernetes.io/service-account-token',
      ].join('\n'),
    );
    const field = async (key: string) =>
      Buffer.from(
        await until(['get', 'secret', 'robot-token', '-n', 'legacy', '-o', `jsonpath={.data.${key}}`]),
        'base64',
      ).toString('utf8');
    const token = await field('token');
    expect(await field('namespace')).toBe('legacy');
    const uid = await ok([
      'get',
      'serviceaccount',
      'robot',
      '-n',
      'legacy',
      '-o',
      'jsonpath={.metadata.uid}',
    ]);
    expect(
      await ok([
        'get',
        'secret',
        'robot-token',
        '-n',
        'legacy',
        '-o',
        "jsonpath={.metadata.annotations['kubernetes\\.io/service-account\\.uid']}",
      ]),
    ).toBe(uid);

    const server = await ok(['config', 'view', '--raw', '-o', 'jsonpath={.clusters[0].cluster.server}']);
    const caFile = join(mkdtempSync(join(tmpdir(), 'tkube-ns-lifecycle-')), 'ca.crt');
    writeFileSync(caFile, await field('ca\\.crt'));
    // Nothing but the Secret's token and CA: no kubeconfig, no client certificate.
    const asRobot = (args: string[]) =>
      cluster.kubectl([
        '--kubeconfig=/dev/null',
        `--server=${server}`,
        `--certificate-authority=${caFile}`,
        `--token=${token}`,
        ...args,
      ]);
    const whoami = await asRobot(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(whoami.stdout, whoami.stderr).toBe('system:serviceaccount:legacy:robot');
    const pods = await asRobot(['get', 'pods', '-n', 'legacy']);
    expect(pods.exitCode, pods.stderr).toBe(0);
    const secrets = await asRobot(['get', 'secrets', '-n', 'legacy']);
    expect(secrets.stderr.trim()).toBe(
      'Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:legacy:robot" cannot list resource "secrets" in API group "" in the namespace "legacy"',
    );

    await ok(['delete', 'secret', 'robot-token', '-n', 'legacy']);
    // Verified tokens are cached for 2 s.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const revoked = await asRobot(['auth', 'whoami']);
    expect(revoked.exitCode).toBe(1);
    expect(revoked.stderr).toContain('Unauthorized');
  });
});
