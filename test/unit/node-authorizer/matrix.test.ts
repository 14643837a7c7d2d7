// Every node identity against every node's objects: a node reaches its own pods and what they
// use (secrets, configmaps, claims, volumes, service-account tokens), its Node, lease and
// volume attachments — and nothing of any other node's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { named, nodeUser, pod, startTestApi, type TestApi } from './support.js';

const NODES = ['n1', 'n2', 'n3', 'n4'];
const NAMESPACES = ['team-x', 'team-y'];

let t: TestApi;

beforeAll(async () => {
  t = await startTestApi();
  for (const namespace of NAMESPACES) await t.create('', 'namespaces', named('Namespace', '', namespace));
  const writes: Promise<unknown>[] = [];
  for (const node of NODES) {
    writes.push(
      t.create('storage.k8s.io', 'volumeattachments', {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'VolumeAttachment',
        metadata: { name: `${node}-attachment` },
        spec: {
          attacher: 'csi.example.com',
          nodeName: node,
          source: { persistentVolumeName: `${node}-team-x-pv` },
        },
      }),
    );
    for (const namespace of NAMESPACES) {
      const prefix = `${node}-${namespace}`;
      writes.push(
        (async () => {
          await t.create('', 'serviceaccounts', named('ServiceAccount', namespace, `${prefix}-sa`));
          await t.create(
            '',
            'pods',
            pod(namespace, `${prefix}-pod`, node, {
              serviceAccountName: `${prefix}-sa`,
              containers: [
                {
                  name: 'app',
                  image: 'busybox',
                  env: [{ name: 'E', valueFrom: { configMapKeyRef: { name: `${prefix}-env`, key: 'k' } } }],
                  envFrom: [{ secretRef: { name: `${prefix}-envsecret` } }],
                },
              ],
              volumes: [
                { name: 'secret', secret: { secretName: `${prefix}-secret` } },
                { name: 'config', configMap: { name: `${prefix}-config` } },
                { name: 'data', persistentVolumeClaim: { claimName: `${prefix}-claim` } },
              ],
            }),
          );
        })(),
        t.create(
          '',
          'persistentvolumes',
          named('PersistentVolume', '', `${prefix}-pv`, {
            spec: {
              capacity: { storage: '1Gi' },
              accessModes: ['ReadWriteOnce'],
              claimRef: { namespace, name: `${prefix}-claim` },
              csi: {
                driver: 'csi.example.com',
                volumeHandle: prefix,
                nodePublishSecretRef: { namespace, name: `${prefix}-pvsecret` },
              },
            },
          }),
        ),
      );
    }
  }
  await Promise.all(writes);
  await t.synced();
}, 30_000);

afterAll(async () => {
  await t?.stop();
});

/** Requests a node makes for an owner node's objects: [what, method, path, query]. */
function requestsFor(owner: string): [string, string, string, string][] {
  const requests: [string, string, string, string][] = [
    ['node', 'GET', `/api/v1/nodes/${owner}`, ''],
    ['node by watch', 'GET', '/api/v1/nodes', `watch=true&fieldSelector=metadata.name%3D${owner}`],
    ['lease', 'PUT', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${owner}`, ''],
    ['pods by node', 'GET', '/api/v1/pods', `fieldSelector=spec.nodeName%3D${owner}`],
    ['attachment', 'GET', `/apis/storage.k8s.io/v1/volumeattachments/${owner}-attachment`, ''],
  ];
  for (const namespace of NAMESPACES) {
    const prefix = `${owner}-${namespace}`;
    const ns = `/api/v1/namespaces/${namespace}`;
    requests.push(
      [`${namespace} pod`, 'GET', `${ns}/pods/${prefix}-pod`, ''],
      [`${namespace} volume secret`, 'GET', `${ns}/secrets/${prefix}-secret`, ''],
      [`${namespace} envFrom secret`, 'GET', `${ns}/secrets/${prefix}-envsecret`, ''],
      [`${namespace} PV secret`, 'GET', `${ns}/secrets/${prefix}-pvsecret`, ''],
      [
        `${namespace} secret watch`,
        'GET',
        `${ns}/secrets`,
        `watch=1&fieldSelector=metadata.name%3D${prefix}-secret`,
      ],
      [`${namespace} volume configmap`, 'GET', `${ns}/configmaps/${prefix}-config`, ''],
      [`${namespace} env configmap`, 'GET', `${ns}/configmaps/${prefix}-env`, ''],
      [`${namespace} claim`, 'GET', `${ns}/persistentvolumeclaims/${prefix}-claim`, ''],
      [`${namespace} volume`, 'GET', `/api/v1/persistentvolumes/${prefix}-pv`, ''],
      [`${namespace} token`, 'POST', `${ns}/serviceaccounts/${prefix}-sa/token`, ''],
    );
  }
  return requests;
}

const pairs = NODES.flatMap((viewer) => NODES.map((owner) => [viewer, owner] as const));

describe('node identities against every node’s objects', () => {
  it.each(pairs)('system:node:%s reading %s’s objects', (viewer, owner) => {
    const user = nodeUser(viewer);
    const decisions = Object.fromEntries(
      requestsFor(owner).map(([what, method, path, query]) => [
        what,
        t.decide(user, method, path, query).decision,
      ]),
    );
    const expected = viewer === owner ? 'allow' : 'noOpinion';
    expect(decisions).toEqual(Object.fromEntries(requestsFor(owner).map(([what]) => [what, expected])));
  });

  it('denials carry the Node authorizer’s reason in the 403 text', () => {
    const user = nodeUser('n1');
    expect(t.outcome(user, 'GET', '/api/v1/namespaces/team-y/secrets/n2-team-y-pvsecret')).toBe(
      'secrets "n2-team-y-pvsecret" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "team-y": no relationship found between node \'n1\' and this object',
    );
    expect(t.outcome(user, 'GET', '/api/v1/nodes/n3')).toBe(
      'nodes "n3" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node \'n1\' cannot read \'n3\', only its own Node object',
    );
  });
});
