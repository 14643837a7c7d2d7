// A kubelet's identity with real kubectl: a client certificate for system:node:<name> issued
// from the cluster's CA. The Node authorizer lets it read its own Node and what its pods use;
// other nodes and unrelated secrets are Forbidden with kube-apiserver's text; NodeRestriction
// keeps its writes to its own objects.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterPaths } from '../../../src/cluster/state.js';
import { loadCertificateAuthority } from '../../../src/pki/certificate-authority.js';
import { issueNodeClientCertificate } from '../../../src/pki/cluster-pki.js';
import { CLUSTER_PKI_FILE_NAMES } from '../../../src/pki/cluster-pki-file-names.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

const CLUSTER = 'nodeid';
let cluster: TestCluster;
/** kubectl as system:node:nodeid-w1. */
let asNode: (args: string[], input?: string) => ReturnType<TestCluster['kubectl']>;

const manifests = `
apiVersion: v1
kind: Node
metadata: {name: nodeid-w1}
---
apiVersion: v1
kind: Node
metadata: {name: nodeid-w2}
---
apiVersion: v1
kind: Namespace
metadata: {name: apps}
---
apiVersion: v1
kind: Secret
metadata: {name: web-credentials, namespace: apps}
stringData: {password: s3cret}
---
apiVersion: v1
kind: Secret
metadata: {name: unrelated, namespace: apps}
stringData: {password: other}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: apps}
spec:
  nodeName: nodeid-w1
  automountServiceAccountToken: false
  containers:
  - name: web
    image: nginx
    envFrom: [{secretRef: {name: web-credentials}}]
`;

beforeAll(async () => {
  cluster = await startTestCluster(CLUSTER);
  const applied = await cluster.kubectl(['apply', '-f', '-'], { input: manifests });
  expect(applied.exitCode, applied.stderr).toBe(0);

  const pki = clusterPaths(CLUSTER, cluster.env).pkiDir;
  const ca = loadCertificateAuthority(
    readFileSync(join(pki, CLUSTER_PKI_FILE_NAMES.caCertificate), 'utf8'),
    readFileSync(join(pki, CLUSTER_PKI_FILE_NAMES.caKey), 'utf8'),
  );
  const issued = await issueNodeClientCertificate(
    { ca: { ...ca, certificatePath: '', privateKeyPath: '' } },
    'nodeid-w1',
  );
  const dir = mkdtempSync(join(tmpdir(), 'tkube-nodeid-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const server = (
    await cluster.kubectl(['config', 'view', '--raw', '-o', 'jsonpath={.clusters[0].cluster.server}'])
  ).stdout;
  const credentials = [
    '--kubeconfig=/dev/null',
    `--server=${server}`,
    `--certificate-authority=${join(pki, CLUSTER_PKI_FILE_NAMES.caCertificate)}`,
    `--client-certificate=${file('node.crt', issued.certificatePem)}`,
    `--client-key=${file('node.key', issued.privateKeyPem)}`,
  ];
  asNode = (args, input) => cluster.kubectl([...credentials, ...args], { input });
}, 90_000);

afterAll(async () => {
  await cluster?.down();
});

describe('a node client certificate', () => {
  it('authenticates as the node', async () => {
    const whoami = await asNode([
      'auth',
      'whoami',
      '-o',
      'jsonpath={.status.userInfo.username} {.status.userInfo.groups}',
    ]);
    expect(whoami.stdout).toBe('system:node:nodeid-w1 ["system:nodes","system:authenticated"]');
  });

  it('reads its own Node but not another', async () => {
    const own = await asNode(['get', 'node', 'nodeid-w1', '-o', 'name']);
    expect([own.exitCode, own.stdout]).toEqual([0, 'node/nodeid-w1']);
    const other = await asNode(['get', 'node', 'nodeid-w2']);
    expect(other.stderr).toBe(
      `Error from server (Forbidden): nodes "nodeid-w2" is forbidden: User "system:node:nodeid-w1" cannot get resource "nodes" in API group "" at the cluster scope: node 'nodeid-w1' cannot read 'nodeid-w2', only its own Node object`,
    );
  });

  it('reads the secret its pod uses but not an unrelated one', async () => {
    const used = await asNode([
      'get',
      'secret',
      'web-credentials',
      '-n',
      'apps',
      '-o',
      'jsonpath={.data.password}',
    ]);
    expect([used.exitCode, Buffer.from(used.stdout, 'base64').toString()]).toEqual([0, 's3cret']);
    const unrelated = await asNode(['get', 'secret', 'unrelated', '-n', 'apps']);
    expect(unrelated.stderr).toBe(
      `Error from server (Forbidden): secrets "unrelated" is forbidden: User "system:node:nodeid-w1" cannot get resource "secrets" in API group "" in the namespace "apps": no relationship found between node 'nodeid-w1' and this object`,
    );
  });

  it('lists only its own pods', async () => {
    const own = await asNode([
      'get',
      'pods',
      '-A',
      '--field-selector',
      'spec.nodeName=nodeid-w1',
      '-o',
      'name',
    ]);
    expect([own.exitCode, own.stdout]).toEqual([0, 'pod/web']);
    const all = await asNode(['get', 'pods', '-A']);
    expect(all.stderr).toBe(
      'Error from server (Forbidden): pods is forbidden: User "system:node:nodeid-w1" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector',
    );
  });

  it('may label only its own Node, not with restricted labels, and create no other Node', async () => {
    const own = await asNode(['label', 'node', 'nodeid-w1', 'example.com/rack=r1']);
    expect(own.exitCode, own.stderr).toBe(0);
    const restricted = await asNode(['label', 'node', 'nodeid-w1', 'node-role.kubernetes.io/control-plane=']);
    expect(restricted.stderr).toBe(
      'Error from server (Forbidden): nodes "nodeid-w1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane',
    );
    // A create is not read first: the Node authorizer lets it through, NodeRestriction does not.
    const other = await asNode(
      ['create', '-f', '-'],
      'apiVersion: v1\nkind: Node\nmetadata: {name: nodeid-w3}\n',
    );
    expect(other.stderr).toBe(
      'Error from server (Forbidden): error when creating "STDIN": nodes "nodeid-w3" is forbidden: node "nodeid-w1" is not allowed to modify node "nodeid-w3"',
    );
  });

  it('gets tokens only for its pods’ service accounts, bound to those pods', async () => {
    const uid = (await cluster.kubectl(['get', 'pod', 'web', '-n', 'apps', '-o', 'jsonpath={.metadata.uid}']))
      .stdout;
    const bound = await asNode([
      'create',
      'token',
      'default',
      '-n',
      'apps',
      '--bound-object-kind=Pod',
      '--bound-object-name=web',
      `--bound-object-uid=${uid}`,
    ]);
    expect(bound.exitCode, bound.stderr).toBe(0);
    expect(bound.stdout.split('.')).toHaveLength(3);
    const unbound = await asNode(['create', 'token', 'default', '-n', 'apps']);
    expect(unbound.stderr).toBe(
      'error: failed to create token: serviceaccounts "default" is forbidden: node requested token not bound to a pod',
    );
  });
});
