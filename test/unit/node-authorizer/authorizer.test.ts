// The Node authorizer's decisions through the whole chain (system:masters, Node, RBAC with the
// bootstrap policy), for objects created through the registry and followed by the node graph.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { UserInfo } from '../../../src/apiserver/http/types.js';
import { named, nodeUser, pod, startTestApi, type TestApi } from './support.js';

let t: TestApi;
const a = nodeUser('a');

beforeAll(async () => {
  t = await startTestApi();
  await t.create('', 'namespaces', named('Namespace', '', 'ns1'));
  for (const account of ['default', 'sa-a', 'sa-b']) {
    await t.create('', 'serviceaccounts', named('ServiceAccount', 'ns1', account));
  }
  await t.create(
    '',
    'pods',
    pod('ns1', 'pa', 'a', {
      serviceAccountName: 'sa-a',
      imagePullSecrets: [{ name: 'pull-a' }],
      initContainers: [
        {
          name: 'init',
          image: 'busybox',
          env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'init-secret-a', key: 'k' } } }],
        },
      ],
      containers: [
        {
          name: 'app',
          image: 'busybox',
          env: [
            { name: 'S', valueFrom: { secretKeyRef: { name: 'env-secret-a', key: 'k' } } },
            { name: 'C', valueFrom: { configMapKeyRef: { name: 'env-cm-a', key: 'k' } } },
          ],
          envFrom: [{ configMapRef: { name: 'envfrom-cm-a' } }],
        },
      ],
      volumes: [
        { name: 'secret', secret: { secretName: 'vol-secret-a' } },
        { name: 'config', configMap: { name: 'vol-cm-a' } },
        {
          name: 'projected',
          projected: {
            sources: [{ secret: { name: 'proj-secret-a' } }, { configMap: { name: 'proj-cm-a' } }],
          },
        },
        { name: 'data', persistentVolumeClaim: { claimName: 'claim-a' } },
        {
          name: 'scratch',
          ephemeral: {
            volumeClaimTemplate: {
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          },
        },
        { name: 'csi', csi: { driver: 'csi.example.com', nodePublishSecretRef: { name: 'csi-secret-a' } } },
      ],
    }),
  );
  await t.create(
    '',
    'pods',
    pod('ns1', 'pb', 'b', { serviceAccountName: 'sa-b', imagePullSecrets: [{ name: 'secret-b' }] }),
  );
  await t.create('', 'pods', pod('ns1', 'unbound', '', { imagePullSecrets: [{ name: 'secret-unbound' }] }));
  // A mirror pod (ServiceAccount admission refuses one that names a secret; that the graph
  // ignores such references anyway is graph.test.ts's).
  await t.create('', 'pods', {
    ...pod('ns1', 'mirror-a', 'a', {}),
    metadata: { name: 'mirror-a', namespace: 'ns1', annotations: { 'kubernetes.io/config.mirror': 'x' } },
  });
  await t.create(
    '',
    'persistentvolumes',
    named('PersistentVolume', '', 'pv-a', {
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        claimRef: { namespace: 'ns1', name: 'claim-a' },
        csi: {
          driver: 'csi.example.com',
          volumeHandle: 'h',
          nodeStageSecretRef: { name: 'pv-secret-a', namespace: 'ns1' },
          controllerPublishSecretRef: { name: 'pv-controller-secret', namespace: 'ns1' },
        },
      },
    }),
  );
  await t.create(
    '',
    'persistentvolumes',
    named('PersistentVolume', '', 'pv-other', {
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        claimRef: { namespace: 'ns1', name: 'claim-other' },
        hostPath: { path: '/data' },
      },
    }),
  );
  for (const [name, node] of [
    ['va-a', 'a'],
    ['va-b', 'b'],
  ] as const) {
    await t.create('storage.k8s.io', 'volumeattachments', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name },
      spec: { attacher: 'csi.example.com', nodeName: node, source: { persistentVolumeName: 'pv-a' } },
    });
  }
  await t.synced();
}, 30_000);

afterAll(async () => {
  await t?.stop();
});

const ns1 = '/api/v1/namespaces/ns1';
const cannot = (verb: string, resource: string, where: string, group = '') =>
  `User "system:node:a" cannot ${verb} resource "${resource}" in API group "${group}" ${where}`;
const inNs1 = 'in the namespace "ns1"';
const cluster = 'at the cluster scope';
const unrelated = "no relationship found between node 'a' and this object";

type Case = [title: string, method: string, path: string, query: string, outcome: string];

const cases: Case[] = [
  // Secrets: only those a pod bound to the node uses, by any of the ways a pod can name them.
  ...['pull-a', 'init-secret-a', 'env-secret-a', 'vol-secret-a', 'proj-secret-a', 'csi-secret-a'].map(
    (name): Case => [`get secret ${name} used by its pod`, 'GET', `${ns1}/secrets/${name}`, '', 'allowed'],
  ),
  ['get the secret its pod’s PV mounts with', 'GET', `${ns1}/secrets/pv-secret-a`, '', 'allowed'],
  ...(
    [
      ['a PV secret only the attach controller uses', 'pv-controller-secret'],
      ['the secret of a pod on another node', 'secret-b'],
      ['the secret of an unscheduled pod', 'secret-unbound'],
    ] as const
  ).map(
    ([what, name]): Case => [
      `get ${what}`,
      'GET',
      `${ns1}/secrets/${name}`,
      '',
      `secrets "${name}" is forbidden: ${cannot('get', 'secrets', inNs1)}: ${unrelated}`,
    ],
  ),
  [
    'list all secrets',
    'GET',
    `${ns1}/secrets`,
    '',
    `secrets is forbidden: ${cannot('list', 'secrets', inNs1)}: No Object name found`,
  ],
  [
    'list one related secret by metadata.name',
    'GET',
    `${ns1}/secrets`,
    'fieldSelector=metadata.name%3Denv-secret-a',
    'allowed',
  ],
  [
    'watch one related secret by metadata.name',
    'GET',
    `${ns1}/secrets`,
    'watch=true&fieldSelector=metadata.name%3Denv-secret-a',
    'allowed',
  ],
  [
    'list an unrelated secret by metadata.name',
    'GET',
    `${ns1}/secrets`,
    'fieldSelector=metadata.name%3Dsecret-b',
    `secrets "secret-b" is forbidden: ${cannot('list', 'secrets', inNs1)}: ${unrelated}`,
  ],
  [
    'create a secret',
    'POST',
    `${ns1}/secrets`,
    '',
    `secrets is forbidden: ${cannot('create', 'secrets', inNs1)}: can only read resources of this type`,
  ],
  // ConfigMaps.
  ...['env-cm-a', 'envfrom-cm-a', 'vol-cm-a', 'proj-cm-a'].map(
    (name): Case => [
      `get configmap ${name} used by its pod`,
      'GET',
      `${ns1}/configmaps/${name}`,
      '',
      'allowed',
    ],
  ),
  [
    'get an unrelated configmap',
    'GET',
    `${ns1}/configmaps/other`,
    '',
    `configmaps "other" is forbidden: ${cannot('get', 'configmaps', inNs1)}: ${unrelated}`,
  ],
  // Claims and volumes.
  ['get its pod’s claim', 'GET', `${ns1}/persistentvolumeclaims/claim-a`, '', 'allowed'],
  ['get its pod’s ephemeral volume claim', 'GET', `${ns1}/persistentvolumeclaims/pa-scratch`, '', 'allowed'],
  ['update its claim’s status', 'PUT', `${ns1}/persistentvolumeclaims/claim-a/status`, '', 'allowed'],
  [
    'read a claim’s status',
    'GET',
    `${ns1}/persistentvolumeclaims/claim-a/status`,
    '',
    `persistentvolumeclaims "claim-a" is forbidden: ${cannot('get', 'persistentvolumeclaims/status', inNs1)}: can only get/update/patch this type`,
  ],
  [
    'list claims',
    'GET',
    `${ns1}/persistentvolumeclaims`,
    '',
    `persistentvolumeclaims is forbidden: ${cannot('list', 'persistentvolumeclaims', inNs1)}: can only get individual resources of this type`,
  ],
  ['get the PV bound to its claim', 'GET', '/api/v1/persistentvolumes/pv-a', '', 'allowed'],
  [
    'get a PV bound to another claim',
    'GET',
    '/api/v1/persistentvolumes/pv-other',
    '',
    `persistentvolumes "pv-other" is forbidden: ${cannot('get', 'persistentvolumes', cluster)}: ${unrelated}`,
  ],
  ['get its volume attachment', 'GET', '/apis/storage.k8s.io/v1/volumeattachments/va-a', '', 'allowed'],
  [
    'get another node’s volume attachment',
    'GET',
    '/apis/storage.k8s.io/v1/volumeattachments/va-b',
    '',
    `volumeattachments.storage.k8s.io "va-b" is forbidden: ${cannot('get', 'volumeattachments', cluster, 'storage.k8s.io')}: ${unrelated}`,
  ],
  // Service accounts: tokens for its pods' accounts only; reading accounts is off in 1.33.
  ['create a token for its pod’s account', 'POST', `${ns1}/serviceaccounts/sa-a/token`, '', 'allowed'],
  [
    'create a token for another node’s pod account',
    'POST',
    `${ns1}/serviceaccounts/sa-b/token`,
    '',
    `serviceaccounts "sa-b" is forbidden: ${cannot('create', 'serviceaccounts/token', inNs1)}: ${unrelated}`,
  ],
  [
    'create a token for the account of an unscheduled or mirror pod',
    'POST',
    `${ns1}/serviceaccounts/default/token`,
    '',
    `serviceaccounts "default" is forbidden: ${cannot('create', 'serviceaccounts/token', inNs1)}: ${unrelated}`,
  ],
  [
    'get its pod’s service account',
    'GET',
    `${ns1}/serviceaccounts/sa-a`,
    '',
    `serviceaccounts "sa-a" is forbidden: ${cannot('get', 'serviceaccounts', inNs1)}: not allowed to get service accounts`,
  ],
  [
    'create a service account',
    'POST',
    `${ns1}/serviceaccounts`,
    '',
    `serviceaccounts is forbidden: ${cannot('create', 'serviceaccounts', inNs1)}: can only create tokens for individual service accounts`,
  ],
  // Nodes: its own by name; writes are left to NodeRestriction.
  ['get its own node', 'GET', '/api/v1/nodes/a', '', 'allowed'],
  [
    'watch its own node by metadata.name',
    'GET',
    '/api/v1/nodes',
    'watch=1&fieldSelector=metadata.name%3Da',
    'allowed',
  ],
  [
    'get another node',
    'GET',
    '/api/v1/nodes/b',
    '',
    `nodes "b" is forbidden: ${cannot('get', 'nodes', cluster)}: node 'a' cannot read 'b', only its own Node object`,
  ],
  [
    'list nodes',
    'GET',
    '/api/v1/nodes',
    '',
    `nodes is forbidden: ${cannot('list', 'nodes', cluster)}: node 'a' cannot read all nodes, only its own Node object`,
  ],
  ['create a node', 'POST', '/api/v1/nodes', '', 'allowed'],
  ['patch a node', 'PATCH', '/api/v1/nodes/b', '', 'allowed'],
  ['update node status', 'PUT', '/api/v1/nodes/a/status', '', 'allowed'],
  [
    'delete its node',
    'DELETE',
    '/api/v1/nodes/a',
    '',
    `nodes "a" is forbidden: ${cannot('delete', 'nodes', cluster)}`,
  ],
  // Pods: bound to it, or listed by spec.nodeName.
  ['get its pod', 'GET', `${ns1}/pods/pa`, '', 'allowed'],
  ['get its mirror pod', 'GET', `${ns1}/pods/mirror-a`, '', 'allowed'],
  [
    'get another node’s pod',
    'GET',
    `${ns1}/pods/pb`,
    '',
    `pods "pb" is forbidden: ${cannot('get', 'pods', inNs1)}: ${unrelated}`,
  ],
  ['list its pods by spec.nodeName', 'GET', '/api/v1/pods', 'fieldSelector=spec.nodeName%3Da', 'allowed'],
  [
    'watch its pods by spec.nodeName',
    'GET',
    '/api/v1/pods',
    'watch=true&fieldSelector=spec.nodeName%3Da',
    'allowed',
  ],
  [
    'list all pods',
    'GET',
    '/api/v1/pods',
    '',
    `pods is forbidden: ${cannot('list', 'pods', cluster)}: can only list/watch pods with spec.nodeName field selector`,
  ],
  [
    'list another node’s pods',
    'GET',
    '/api/v1/pods',
    'fieldSelector=spec.nodeName%3Db',
    `pods is forbidden: ${cannot('list', 'pods', cluster)}: can only list/watch pods with spec.nodeName field selector`,
  ],
  ['create a (mirror) pod', 'POST', `${ns1}/pods`, '', 'allowed'],
  ['delete a pod', 'DELETE', `${ns1}/pods/pb`, '', 'allowed'],
  ['update pod status', 'PUT', `${ns1}/pods/pb/status`, '', 'allowed'],
  ['evict a pod', 'POST', `${ns1}/pods/pa/eviction`, '', 'allowed'],
  [
    'exec into its pod',
    'POST',
    `${ns1}/pods/pa/exec`,
    '',
    `pods "pa" is forbidden: ${cannot('create', 'pods/exec', inNs1)}`,
  ],
  ['update a pod', 'PUT', `${ns1}/pods/pa`, '', `pods "pa" is forbidden: ${cannot('update', 'pods', inNs1)}`],
  // Leases: its own, in kube-node-lease.
  ['get its lease', 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/a', '', 'allowed'],
  ['create a lease', 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', '', 'allowed'],
  [
    'update another node’s lease',
    'PUT',
    '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/b',
    '',
    `leases.coordination.k8s.io "b" is forbidden: ${cannot('update', 'leases', 'in the namespace "kube-node-lease"', 'coordination.k8s.io')}: can only access node lease with the same name as the requesting node`,
  ],
  [
    'get a lease elsewhere',
    'GET',
    '/apis/coordination.k8s.io/v1/namespaces/default/leases/a',
    '',
    `leases.coordination.k8s.io "a" is forbidden: ${cannot('get', 'leases', 'in the namespace "default"', 'coordination.k8s.io')}: can only access leases in the "kube-node-lease" system namespace`,
  ],
  [
    'list leases',
    'GET',
    '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
    '',
    `leases.coordination.k8s.io is forbidden: ${cannot('list', 'leases', 'in the namespace "kube-node-lease"', 'coordination.k8s.io')}: can only get, create, update, patch, or delete a node lease`,
  ],
  // Everything else: the static system:node rules, the same for every node.
  ['list services', 'GET', '/api/v1/services', '', 'allowed'],
  ['create an event', 'POST', `${ns1}/events`, '', 'allowed'],
  ['create a token review', 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', '', 'allowed'],
  [
    'list namespaces',
    'GET',
    '/api/v1/namespaces',
    '',
    `namespaces is forbidden: ${cannot('list', 'namespaces', cluster)}`,
  ],
  ['get /healthz (RBAC: system:public-info-viewer)', 'GET', '/healthz', '', 'allowed'],
  ['get /metrics', 'GET', '/metrics', '', 'forbidden: User "system:node:a" cannot get path "/metrics"'],
];

describe('Node authorizer decisions for node "a"', () => {
  it.each(cases)('%s', (_title, method, path, query, expected) => {
    expect(t.outcome(a, method, path, query)).toBe(expected);
  });
});

describe('who the Node authorizer speaks for', () => {
  it('a node user without a name gets the unknown-node reason', () => {
    const nameless: UserInfo = { name: 'system:node:', groups: ['system:nodes'] };
    expect(t.outcome(nameless, 'GET', '/api/v1/nodes/x')).toBe(
      'nodes "x" is forbidden: User "system:node:" cannot get resource "nodes" in API group "" at the cluster scope: unknown node for user "system:node:"',
    );
  });

  it('the node user name without the system:nodes group is no node', () => {
    const impostor: UserInfo = { name: 'system:node:a', groups: ['system:authenticated'] };
    expect(t.outcome(impostor, 'GET', '/api/v1/nodes/a')).toBe(
      'nodes "a" is forbidden: User "system:node:a" cannot get resource "nodes" in API group "" at the cluster scope',
    );
    expect(t.decide(impostor, 'GET', `${ns1}/secrets/env-secret-a`).decision).toBe('noOpinion');
  });

  it('other users are left to RBAC, and system:masters may do anything', () => {
    const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
    expect(t.outcome(alice, 'GET', '/api/v1/nodes/a')).toBe(
      'nodes "a" is forbidden: User "alice" cannot get resource "nodes" in API group "" at the cluster scope',
    );
    const admin: UserInfo = { name: 'admin', groups: ['system:masters'] };
    expect(t.decide(admin, 'GET', `${ns1}/secrets/secret-b`).decision).toBe('allow');
  });

  it('RBAC still grants a node what a binding gives it', async () => {
    await t.create('rbac.authorization.k8s.io', 'clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'namespace-reader' },
      rules: [{ verbs: ['list'], apiGroups: [''], resources: ['namespaces'] }],
    });
    await t.create('rbac.authorization.k8s.io', 'clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'node-a-namespaces' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'namespace-reader' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:node:a' }],
    });
    await vi.waitFor(() => expect(t.outcome(a, 'GET', '/api/v1/namespaces')).toBe('allowed'));
    expect(t.outcome(nodeUser('b'), 'GET', '/api/v1/namespaces')).toBe(
      'namespaces is forbidden: User "system:node:b" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
  });
});

describe('the graph follows the store', () => {
  it('a pod recreated on the node, then deleted, grants and then withdraws access', async () => {
    const path = `${ns1}/secrets/late-secret`;
    const pods = t.resources('', 'pods');
    await t.create('', 'pods', pod('ns1', 'late', '', { imagePullSecrets: [{ name: 'late-secret' }] }));
    await t.synced();
    expect(t.decide(a, 'GET', path).decision).toBe('noOpinion');
    await pods.delete('ns1', 'late', { gracePeriodSeconds: 0 });
    await t.create('', 'pods', pod('ns1', 'late', 'a', { imagePullSecrets: [{ name: 'late-secret' }] }));
    await t.synced();
    expect(t.decide(a, 'GET', path).decision).toBe('allow');
    await pods.delete('ns1', 'late', { gracePeriodSeconds: 0 });
    await t.synced();
    expect(t.outcome(a, 'GET', path)).toBe(
      `secrets "late-secret" is forbidden: ${cannot('get', 'secrets', inNs1)}: ${unrelated}`,
    );
  });

  it('a secret two pods share stays readable until the last of them goes', async () => {
    const path = `${ns1}/secrets/shared`;
    const pods = t.resources('', 'pods');
    await t.create('', 'pods', pod('ns1', 'one', 'a', { imagePullSecrets: [{ name: 'shared' }] }));
    await t.create('', 'pods', pod('ns1', 'two', 'a', { imagePullSecrets: [{ name: 'shared' }] }));
    await t.synced();
    await pods.delete('ns1', 'one', { gracePeriodSeconds: 0 });
    await t.synced();
    expect(t.decide(a, 'GET', path).decision).toBe('allow');
    await pods.delete('ns1', 'two', { gracePeriodSeconds: 0 });
    await t.synced();
    expect(t.decide(a, 'GET', path).decision).toBe('noOpinion');
  });

  it('a PV rebound to another claim moves its access with it', async () => {
    const volumes = t.resources('', 'persistentvolumes');
    await volumes.guaranteedUpdate('', 'pv-other', (current) => ({
      ...current,
      spec: { ...(current.spec as object), claimRef: { namespace: 'ns1', name: 'claim-a' } },
    }));
    await t.synced();
    expect(t.decide(a, 'GET', '/api/v1/persistentvolumes/pv-other').decision).toBe('allow');
    await volumes.delete('', 'pv-other', { gracePeriodSeconds: 0 });
    // Admission gave the volume kubernetes.io/pv-protection: lift it as the pv-protection controller would.
    await volumes.guaranteedUpdate('', 'pv-other', (current) => ({
      ...current,
      metadata: { ...current.metadata, finalizers: [] },
    }));
    await t.synced();
    expect(t.decide(a, 'GET', '/api/v1/persistentvolumes/pv-other').decision).toBe('noOpinion');
  });
});
