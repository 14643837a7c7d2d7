// NodeRestriction: nodes may write only their own Node, lease, mirror pods, pod statuses and
// pod deletions, and tokens bound to their own pods — with Kubernetes' messages. Writes go
// through the real registry and admission chain; checks whose objects the registry would
// reshape first (mirror pods, status labels) call the plugin itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import type {
  AdmissionAttributes,
  AdmissionOperation,
  AdmissionPlugin,
} from '../../../src/apiserver/admission/chain.js';
import {
  forbiddenLabels,
  nodeRestrictionAdmission,
} from '../../../src/apiserver/admission/plugins/node-restriction.js';
import type { UserInfo } from '../../../src/apiserver/http/types.js';
import { named, nodeUser, pod, rejection, startTestApi, type TestApi } from './support.js';

let t: TestApi;
let plugin: AdmissionPlugin;
let nodeAUid = '';
let podAUid = '';
const a = nodeUser('a');
const b = nodeUser('b');

beforeAll(async () => {
  t = await startTestApi();
  plugin = nodeRestrictionAdmission({ pods: t.resources('', 'pods'), nodes: t.resources('', 'nodes') });
  const node = await t.create(
    '',
    'nodes',
    named('Node', '', 'a', { metadata: { name: 'a', labels: { 'kubernetes.io/hostname': 'a' } } }),
  );
  nodeAUid = node.metadata?.uid ?? '';
  await t.create('', 'nodes', named('Node', '', 'b'));
  await t.create('', 'serviceaccounts', named('ServiceAccount', 'default', 'default'));
  podAUid = (await t.create('', 'pods', pod('default', 'pa', 'a'))).metadata?.uid ?? '';
  await t.create('', 'pods', pod('default', 'pb', 'b'));
}, 30_000);

afterAll(async () => {
  await t?.stop();
});

function attributes(
  user: UserInfo,
  operation: AdmissionOperation,
  resource: [group: string, resource: string],
  object: KubeObject,
  extra: Partial<AdmissionAttributes> = {},
): AdmissionAttributes {
  return {
    operation,
    resource: t.resources(...resource).info,
    subresource: '',
    namespace: object.metadata?.namespace ?? '',
    name: object.metadata?.name ?? '',
    object,
    user,
    dryRun: false,
    warnings: [],
    ...extra,
  };
}

async function admitted(attrs: AdmissionAttributes): Promise<string> {
  try {
    await plugin.admit!(attrs);
    return 'admitted';
  } catch (error) {
    return (error as Error).message;
  }
}

function mirrorPod(
  node: string,
  overrides: { owner?: Record<string, unknown> | null; spec?: Record<string, unknown> } = {},
) {
  const owner =
    overrides.owner === null
      ? []
      : [{ apiVersion: 'v1', kind: 'Node', name: node, uid: nodeAUid, controller: true, ...overrides.owner }];
  return {
    ...pod('default', 'static-web', node, overrides.spec),
    metadata: {
      name: 'static-web',
      namespace: 'default',
      annotations: { 'kubernetes.io/config.mirror': 'hash' },
      ownerReferences: owner,
    },
  };
}

describe('mirror pods', () => {
  // Objects are built in the test: the Node's uid is known only once it exists.
  const cases: [string, () => KubeObject, string][] = [
    ['a mirror pod bound to itself and owned by its Node', () => mirrorPod('a'), 'admitted'],
    [
      'a pod without the mirror annotation',
      () => pod('default', 'web', 'a'),
      'pods "web" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "a" can only create mirror pods',
    ],
    [
      'a mirror pod for another node',
      () => mirrorPod('b'),
      'pods "static-web" is forbidden: node "a" can only create pods with spec.nodeName set to itself',
    ],
    [
      'no owner reference',
      () => mirrorPod('a', { owner: null }),
      'pods "static-web" is forbidden: node "a" can only create pods with an owner reference set to itself',
    ],
    [
      'owned by another node',
      () => mirrorPod('a', { owner: { name: 'b' } }),
      'pods "static-web" is forbidden: node "a" can only create pods with an owner reference set to itself',
    ],
    [
      'not a controller reference',
      () => mirrorPod('a', { owner: { controller: false } }),
      'pods "static-web" is forbidden: node "a" can only create pods with a controller owner reference set to itself',
    ],
    [
      'blocking owner deletion',
      () => mirrorPod('a', { owner: { blockOwnerDeletion: true } }),
      'pods "static-web" is forbidden: node "a" must not set blockOwnerDeletion on an owner reference',
    ],
    [
      'a stale node uid',
      () => mirrorPod('a', { owner: { uid: 'old-uid' } }),
      `pods "static-web" is forbidden: node a UID mismatch: expected old-uid got ${'<uid>'}`,
    ],
    [
      'a service account',
      () => mirrorPod('a', { spec: { serviceAccountName: 'default' } }),
      'pods "static-web" is forbidden: node "a" can not create pods that reference a service account',
    ],
    [
      'a secret',
      () => mirrorPod('a', { spec: { imagePullSecrets: [{ name: 's' }] } }),
      'pods "static-web" is forbidden: node "a" can not create pods that reference secrets',
    ],
    [
      'a configmap',
      () => mirrorPod('a', { spec: { volumes: [{ name: 'c', configMap: { name: 'c' } }] } }),
      'pods "static-web" is forbidden: node "a" can not create pods that reference configmaps',
    ],
    [
      'a cluster trust bundle',
      () =>
        mirrorPod('a', {
          spec: {
            volumes: [
              { name: 'c', projected: { sources: [{ clusterTrustBundle: { name: 'x', path: 'p' } }] } },
            ],
          },
        }),
      'pods "static-web" is forbidden: node "a" can not create pods that reference clustertrustbundles',
    ],
    [
      'a claim',
      () => mirrorPod('a', { spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'c' } }] } }),
      'pods "static-web" is forbidden: node "a" can not create pods that reference persistentvolumeclaims',
    ],
  ];
  it.each(cases)('%s', async (_title, object, expected) => {
    const message = await admitted(attributes(a, 'CREATE', ['', 'pods'], object()));
    expect(message).toBe(expected.replace('<uid>', nodeAUid));
  });

  it('a mirror pod for a node with no Node object is NotFound', async () => {
    const error = await rejection(
      plugin.admit!(
        attributes(nodeUser('ghost'), 'CREATE', ['', 'pods'], mirrorPod('ghost')),
      ) as Promise<void>,
    );
    expect([error.code, error.message]).toEqual([404, 'node "ghost" not found']);
  });
});

describe('pods through the registry', () => {
  const pods = () => t.resources('', 'pods');

  it('a node deletes only pods bound to it', async () => {
    const error = await rejection(pods().delete('default', 'pa', { user: b }));
    expect([error.code, error.message]).toEqual([
      403,
      'pods "pa" is forbidden: node "b" can only delete pods with spec.nodeName set to itself',
    ]);
    await t.create('', 'pods', pod('default', 'gone', 'a'));
    const outcome = await pods().delete('default', 'gone', { user: a, gracePeriodSeconds: 0 });
    expect(outcome.deleted).toBe(true);
  });

  it('a node updates only the status of pods bound to it', async () => {
    const setPhase = (current: KubeObject) => ({ ...current, status: { phase: 'Running' } });
    const error = await rejection(
      pods().guaranteedUpdate('default', 'pa', setPhase, { subresource: 'status', user: b }),
    );
    expect(error.message).toBe(
      'pods "pa" is forbidden: node "b" can only update pod status for pods with spec.nodeName set to itself',
    );
    const updated = await pods().guaranteedUpdate('default', 'pa', setPhase, {
      subresource: 'status',
      user: a,
    });
    expect((updated.status as { phase?: string }).phase).toBe('Running');
    // The status written had no QoS class: the stored one is kept (kube-apiserver backfills it).
    expect((updated.status as { qosClass?: string }).qosClass).toBe('BestEffort');
    const changeQos = (current: KubeObject) => ({ ...current, status: { qosClass: 'Guaranteed' } });
    const invalid = await rejection(
      pods().guaranteedUpdate('default', 'pa', changeQos, { subresource: 'status', user: a }),
    );
    expect(invalid.message).toBe(
      'Pod "pa" is invalid: status.qosClass: Invalid value: "Guaranteed": field is immutable',
    );
  });

  it('a node cannot update a pod itself', async () => {
    const relabel = (current: KubeObject) => ({
      ...current,
      metadata: { ...current.metadata, labels: { x: 'y' } },
    });
    const error = await rejection(pods().guaranteedUpdate('default', 'pa', relabel, { user: a }));
    expect(error.message).toBe(
      'pods "pa" is forbidden: unexpected operation "UPDATE", node "a" can only create and delete mirror pods',
    );
  });

  it('status updates may not relabel the pod or change resource claim statuses', async () => {
    const old = (await pods().get('default', 'pa')) as KubeObject;
    const relabelled = { ...old, metadata: { ...old.metadata, labels: { app: 'x' } } };
    expect(
      await admitted(
        attributes(a, 'UPDATE', ['', 'pods'], relabelled, { subresource: 'status', oldObject: old }),
      ),
    ).toBe('pods "pa" is forbidden: node "a" cannot update labels through pod status');
    const claims = {
      ...old,
      status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'pa-gpu' }] },
    };
    expect(
      await admitted(
        attributes(a, 'UPDATE', ['', 'pods'], claims, { subresource: 'status', oldObject: old }),
      ),
    ).toBe('pods "pa" is forbidden: node "a" cannot update resource claim statues');
  });

  it('evictions and other subresources', async () => {
    const eviction = {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'pb', namespace: 'default' },
    };
    expect(await admitted(attributes(a, 'CREATE', ['', 'pods'], eviction, { subresource: 'eviction' }))).toBe(
      'pods "pb" is forbidden: node a can only evict pods with spec.nodeName set to itself',
    );
    expect(await admitted(attributes(b, 'CREATE', ['', 'pods'], eviction, { subresource: 'eviction' }))).toBe(
      'admitted',
    );
    expect(
      await admitted(
        attributes(a, 'UPDATE', ['', 'pods'], named('Pod', 'default', 'pa'), {
          subresource: 'ephemeralcontainers',
        }),
      ),
    ).toBe(
      `pods "pa" is forbidden: unexpected pod subresource "ephemeralcontainers", only 'status' and 'eviction' are allowed`,
    );
  });
});

describe('nodes', () => {
  const nodes = () => t.resources('', 'nodes');

  it('a node may create only its own Node, without restricted labels', async () => {
    const error = await rejection(nodes().create('', named('Node', '', 'c'), { user: a }));
    expect(error.message).toBe('nodes "c" is forbidden: node "a" is not allowed to modify node "c"');
    const labels = {
      'kubernetes.io/hostname': 'c',
      'node.kubernetes.io/instance-type': 'small',
      'kubelet.kubernetes.io/anything': 'ok',
      'example.com/team': 'ok',
      'node-restriction.kubernetes.io/pool': 'x',
      'node-role.kubernetes.io/control-plane': '',
      'other.k8s.io/z': 'z',
    };
    const labelled = await rejection(
      nodes().create(
        '',
        { ...named('Node', '', 'c'), metadata: { name: 'c', labels } },
        { user: nodeUser('c') },
      ),
    );
    expect(labelled.message).toBe(
      'nodes "c" is forbidden: node "c" is not allowed to set the following labels: node-restriction.kubernetes.io/pool, node-role.kubernetes.io/control-plane, other.k8s.io/z',
    );
    const created = await nodes().create(
      '',
      { ...named('Node', '', 'c'), metadata: { name: 'c', labels: { 'kubernetes.io/hostname': 'c' } } },
      { user: nodeUser('c') },
    );
    expect(created.metadata?.name).toBe('c');
  });

  it('a node may not modify another Node, its taints or restricted labels', async () => {
    const retaint = (current: KubeObject) => ({
      ...current,
      spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] },
    });
    expect((await rejection(nodes().guaranteedUpdate('', 'b', retaint, { user: a }))).message).toBe(
      'nodes "b" is forbidden: node "a" is not allowed to modify node "b"',
    );
    expect((await rejection(nodes().guaranteedUpdate('', 'a', retaint, { user: a }))).message).toBe(
      'nodes "a" is forbidden: node "a" is not allowed to modify taints',
    );
    const relabel = (current: KubeObject) => ({
      ...current,
      metadata: {
        ...current.metadata,
        labels: { 'node-role.kubernetes.io/worker': '', 'kubernetes.io/hostname': 'a' },
      },
    });
    expect((await rejection(nodes().guaranteedUpdate('', 'a', relabel, { user: a }))).message).toBe(
      'nodes "a" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker',
    );
    const allowed = (current: KubeObject) => ({
      ...current,
      metadata: {
        ...current.metadata,
        labels: { ...current.metadata?.labels, 'topology.kubernetes.io/zone': 'z1' },
      },
    });
    const updated = await nodes().guaranteedUpdate('', 'a', allowed, { user: a });
    expect(updated.metadata?.labels?.['topology.kubernetes.io/zone']).toBe('z1');
  });

  it('classifies label keys as kubelets may set them', () => {
    expect(
      forbiddenLabels([
        'beta.kubernetes.io/arch',
        'failure-domain.beta.kubernetes.io/zone',
        'sub.node.kubernetes.io/x',
        'kubernetes.io/role',
        'sub.node-restriction.kubernetes.io/x',
        'k8s.io/x',
        'plain',
      ]),
    ).toEqual(['k8s.io/x', 'kubernetes.io/role', 'sub.node-restriction.kubernetes.io/x']);
  });
});

describe('leases, tokens, claims', () => {
  const leases = () => t.resources('coordination.k8s.io', 'leases');
  const lease = (namespace: string, name: string) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace },
    spec: { holderIdentity: name },
  });

  it('a node creates and renews only its own lease in kube-node-lease', async () => {
    expect(
      (await rejection(leases().create('kube-node-lease', lease('kube-node-lease', 'b'), { user: a })))
        .message,
    ).toBe(
      'leases.coordination.k8s.io "b" is forbidden: can only access node lease with the same name as the requesting node',
    );
    expect((await rejection(leases().create('default', lease('default', 'a'), { user: a }))).message).toBe(
      'leases.coordination.k8s.io "a" is forbidden: can only access leases in the "kube-node-lease" system namespace',
    );
    await leases().create('kube-node-lease', lease('kube-node-lease', 'a'), { user: a });
    await leases().create('kube-node-lease', lease('kube-node-lease', 'b'), { user: b });
    const renew = (current: KubeObject) => ({
      ...current,
      spec: { holderIdentity: 'a', leaseDurationSeconds: 40 },
    });
    expect(
      (await rejection(leases().guaranteedUpdate('kube-node-lease', 'b', renew, { user: a }))).message,
    ).toBe(
      'leases.coordination.k8s.io "b" is forbidden: can only access node lease with the same name as the requesting node',
    );
    await leases().guaranteedUpdate('kube-node-lease', 'a', renew, { user: a });
  });

  it('a node’s token requests must be bound to a pod running on it', async () => {
    const request = (ref?: Record<string, string>) =>
      attributes(
        a,
        'CREATE',
        ['', 'serviceaccounts'],
        {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          metadata: { namespace: 'default' },
          spec: { audiences: ['api'], ...(ref ? { boundObjectRef: ref } : {}) },
        },
        { subresource: 'token', name: 'default', namespace: 'default' },
      );
    const podRef = (name: string, uid: string) => ({ apiVersion: 'v1', kind: 'Pod', name, uid });
    expect(await admitted(request())).toBe(
      'serviceaccounts "default" is forbidden: node requested token not bound to a pod',
    );
    expect(await admitted(request({ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'u' }))).toBe(
      'serviceaccounts "default" is forbidden: node requested token not bound to a pod',
    );
    expect(await admitted(request({ apiVersion: 'v1', kind: 'Pod', name: 'pa' }))).toBe(
      'serviceaccounts "default" is forbidden: node requested token with a pod binding without a uid',
    );
    expect(await admitted(request(podRef('pa', 'stale')))).toBe(
      'serviceaccounts "default" is forbidden: the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated',
    );
    const pbUid = (await t.resources('', 'pods').get('default', 'pb')).metadata?.uid ?? '';
    expect(await admitted(request(podRef('pb', pbUid)))).toBe(
      'serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node',
    );
    expect(await admitted(request(podRef('missing', 'u')))).toBe('pod "missing" not found');
    expect(await admitted(request(podRef('pa', podAUid)))).toBe('admitted');
  });

  it('a node may change only the status capacity and conditions of a claim', async () => {
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'default', resourceVersion: '5' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      status: { phase: 'Bound', capacity: { storage: '1Gi' } },
    };
    const resized = {
      ...claim,
      metadata: { ...claim.metadata, resourceVersion: '' },
      status: {
        ...claim.status,
        capacity: { storage: '2Gi' },
        conditions: [{ type: 'Resizing', status: 'True' }],
      },
    };
    const claimUpdate = (object: KubeObject, subresource = 'status') =>
      attributes(a, 'UPDATE', ['', 'persistentvolumeclaims'], object, { subresource, oldObject: claim });
    expect(await admitted(claimUpdate(resized))).toBe('admitted');
    const relabelled = {
      ...resized,
      metadata: { ...resized.metadata, labels: { a: 'b' } },
      status: { ...resized.status, phase: 'Lost' },
    };
    expect(await admitted(claimUpdate(relabelled))).toBe(
      'persistentvolumeclaims "data" is forbidden: node "a" is not allowed to update fields other than status.quantity and status.conditions: metadata, status.phase',
    );
    expect(await admitted(claimUpdate(resized, ''))).toBe(
      'persistentvolumeclaims "data" is forbidden: may only update PVC status',
    );
  });

  it('leaves other users alone and refuses a node user without a name', async () => {
    const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
    expect(await admitted(attributes(alice, 'CREATE', ['', 'pods'], pod('default', 'web', 'b')))).toBe(
      'admitted',
    );
    const nameless: UserInfo = { name: 'system:node:', groups: ['system:nodes'] };
    expect(await admitted(attributes(nameless, 'CREATE', ['', 'pods'], pod('default', 'web', 'b')))).toBe(
      'pods "web" is forbidden: could not determine node from user "system:node:"',
    );
  });
});
