// The PersistentVolume binder, the protection controllers and the scheduler's VolumeBinding
// plugin with real kubectl on `tkube up --nodes 0 --fake-nodes 2`: the smallest fitting volume,
// pre-binding by volumeName and by claimRef, upstream's events for every claim that cannot bind,
// Retain and Delete reclaim, the pvc-/pv-protection finalizers holding a claim while a pod uses
// it; pods placed by their volumes' node affinity, WaitForFirstConsumer claims bound to the
// chosen node's volume or annotated with it for their provisioner, and FailedScheduling texts;
// VolumeRestrictions' ReadWriteOncePod conflict; PersistentVolumeClaimResize's refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('st-binder', { fakeNodes: 2 });
  await ok(['create', 'namespace', 'vol']);
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input === undefined ? {} : { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

const apply = (manifest: object) => ok(['apply', '-f', '-'], JSON.stringify(manifest));

function storageClass(name: string, provisioner: string, extra: Record<string, string> = {}) {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner, ...extra };
}

/** Waits until `kubectl get <args>` answers NotFound. */
async function gone(args: string[], timeoutMs: number): Promise<void> {
  await eventually(async () => {
    const result = await cluster.kubectl(['get', ...args]);
    return result.exitCode !== 0 && result.stderr.includes('NotFound') ? true : undefined;
  }, timeoutMs);
}

function pv(name: string, size: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: size },
      accessModes: ['ReadWriteOnce'],
      hostPath: { path: `/tmp/${name}` },
      storageClassName: '',
      persistentVolumeReclaimPolicy: 'Retain',
      ...spec,
    },
  };
}

function pvc(name: string, size: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'vol' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
      storageClassName: '',
      ...spec,
    },
  };
}

const jsonpath = (kind: string, name: string, path: string, namespaced = true) =>
  ok(['get', kind, name, ...(namespaced ? ['-n', 'vol'] : []), '-o', `jsonpath=${path}`]);

async function waitFor(kind: string, name: string, path: string, expected: string, namespaced = true) {
  return eventually(
    async () => ((await jsonpath(kind, name, path, namespaced)) === expected ? expected : undefined),
    30_000,
  );
}

/** `kubectl patch` of a claim's requested storage. */
const resizeClaim = (name: string, size: string) =>
  cluster.kubectl([
    'patch',
    'pvc',
    name,
    '-n',
    'vol',
    '-p',
    JSON.stringify({ spec: { resources: { requests: { storage: size } } } }),
  ]);

/** The events of a claim, as `reason: message` lines. */
async function claimEvents(name: string): Promise<string[]> {
  const out = await ok([
    'get',
    'events',
    '-n',
    'vol',
    '--field-selector',
    `involvedObject.name=${name},involvedObject.kind=PersistentVolumeClaim`,
    '-o',
    'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}',
  ]);
  return out.split('\n').filter(Boolean);
}

async function waitForEvent(claim: string, line: string): Promise<void> {
  await eventually(async () => ((await claimEvents(claim)).includes(line) ? true : undefined), 30_000);
}

describe('the PersistentVolume binder', () => {
  it('binds a claim to the smallest volume that holds it, with upstream annotations and phases', async () => {
    await apply(pv('pv-1g', '1Gi'));
    await apply(pv('pv-5g', '5Gi'));
    await apply(pv('pv-10g', '10Gi'));
    await apply(pvc('fits', '2Gi'));
    await waitFor('pvc', 'fits', '{.status.phase}', 'Bound');
    expect(await jsonpath('pvc', 'fits', '{.spec.volumeName}')).toBe('pv-5g');
    expect(await jsonpath('pvc', 'fits', '{.status.capacity.storage}')).toBe('5Gi');
    expect(await jsonpath('pvc', 'fits', '{.status.accessModes[0]}')).toBe('ReadWriteOnce');
    const annotations = JSON.parse(await jsonpath('pvc', 'fits', '{.metadata.annotations}'));
    expect(annotations).toMatchObject({
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
    });
    await waitFor('pv', 'pv-5g', '{.status.phase}', 'Bound', false);
    expect(await jsonpath('pv', 'pv-5g', '{.spec.claimRef.name}', false)).toBe('fits');
    expect(await jsonpath('pv', 'pv-5g', '{.metadata.annotations}', false)).toContain(
      '"pv.kubernetes.io/bound-by-controller":"yes"',
    );
    await waitFor('pv', 'pv-1g', '{.status.phase}', 'Available', false);
    const table = await ok(['get', 'pvc', 'fits', '-n', 'vol']);
    expect(table).toMatch(/^fits\s+Bound\s+pv-5g\s+5Gi\s+RWO\s+<unset>\s+/m);
  }, 90_000);

  it('leaves a claim bigger than every volume Pending with FailedBinding', async () => {
    await apply(pvc('too-big', '50Gi'));
    await waitForEvent(
      'too-big',
      'FailedBinding: no persistent volumes available for this claim and no storage class is set',
    );
    expect(await jsonpath('pvc', 'too-big', '{.status.phase}')).toBe('Pending');
    expect(await jsonpath('pv', 'pv-10g', '{.status.phase}', false)).toBe('Available');
  }, 60_000);

  it('reports a class that does not exist as ProvisioningFailed', async () => {
    await apply(pvc('no-class', '1Gi', { storageClassName: 'missing' }));
    await waitForEvent('no-class', 'ProvisioningFailed: storageclass.storage.k8s.io "missing" not found');
    expect(await jsonpath('pvc', 'no-class', '{.status.phase}')).toBe('Pending');
  }, 60_000);

  it('waits for a consumer in a WaitForFirstConsumer class and hands Immediate ones to their provisioner', async () => {
    await apply(storageClass('later', 'example.com/disk', { volumeBindingMode: 'WaitForFirstConsumer' }));
    await apply(storageClass('now', 'example.com/disk'));
    await apply(pvc('later', '1Gi', { storageClassName: 'later' }));
    await apply(pvc('now', '1Gi', { storageClassName: 'now' }));
    await waitForEvent(
      'later',
      'WaitForFirstConsumer: waiting for first consumer to be created before binding',
    );
    await waitForEvent(
      'now',
      "ExternalProvisioning: Waiting for a volume to be created either by the external provisioner 'example.com/disk' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    );
    const annotations = JSON.parse(await jsonpath('pvc', 'now', '{.metadata.annotations}'));
    expect(annotations['volume.kubernetes.io/storage-provisioner']).toBe('example.com/disk');
    expect(annotations['volume.beta.kubernetes.io/storage-provisioner']).toBe('example.com/disk');
  }, 60_000);

  it('binds a claim naming its volume, and refuses a named volume that is too small', async () => {
    await apply(pv('named', '3Gi'));
    await apply(pv('tiny', '100Mi'));
    await apply(pvc('wants-named', '1Gi', { volumeName: 'named' }));
    await apply(pvc('wants-tiny', '1Gi', { volumeName: 'tiny' }));
    await waitFor('pvc', 'wants-named', '{.status.phase}', 'Bound');
    // The user chose the volume: only the volume side says the controller bound it.
    const annotations = JSON.parse(await jsonpath('pvc', 'wants-named', '{.metadata.annotations}'));
    expect(annotations['pv.kubernetes.io/bind-completed']).toBe('yes');
    expect(annotations['pv.kubernetes.io/bound-by-controller']).toBeUndefined();
    await waitForEvent(
      'wants-tiny',
      'VolumeMismatch: Cannot bind to requested volume "tiny": requested PV is too small',
    );
    expect(await jsonpath('pvc', 'wants-tiny', '{.status.phase}')).toBe('Pending');
  }, 60_000);

  it('binds a volume pre-bound by claimRef to its claim, not to a better fitting one', async () => {
    await apply(pv('reserved', '20Gi', { claimRef: { namespace: 'vol', name: 'reserved-for-me' } }));
    await waitFor('pv', 'reserved', '{.status.phase}', 'Available', false);
    await apply(pvc('reserved-for-me', '1Gi'));
    await waitFor('pvc', 'reserved-for-me', '{.spec.volumeName}', 'reserved');
    await waitFor('pv', 'reserved', '{.status.phase}', 'Bound', false);
    expect(await jsonpath('pv', 'reserved', '{.spec.claimRef.uid}', false)).toBe(
      await jsonpath('pvc', 'reserved-for-me', '{.metadata.uid}'),
    );
  }, 60_000);

  it('releases a Retain volume when its claim goes, and fails a Delete volume no provisioner made', async () => {
    await ok(['delete', 'pvc', 'fits', '-n', 'vol', '--wait=true', '--timeout=30s']);
    await waitFor('pv', 'pv-5g', '{.status.phase}', 'Released', false);
    expect(await jsonpath('pv', 'pv-5g', '{.spec.claimRef.name}', false)).toBe('fits');

    await apply(pv('doomed', '7Gi', { persistentVolumeReclaimPolicy: 'Delete' }));
    await apply(pvc('on-doomed', '7Gi', { volumeName: 'doomed' }));
    await waitFor('pvc', 'on-doomed', '{.status.phase}', 'Bound');
    await ok(['delete', 'pvc', 'on-doomed', '-n', 'vol', '--wait=true', '--timeout=30s']);
    await waitFor('pv', 'doomed', '{.status.phase}', 'Failed', false);
    expect(await jsonpath('pv', 'doomed', '{.status.message}', false)).toBe(
      'error getting deleter volume plugin for volume "doomed": no deletable volume plugin matched',
    );
  }, 90_000);

  it('keeps a claim a running pod uses until the pod is gone, and protects bound volumes', async () => {
    expect(await jsonpath('pv', 'named', '{.metadata.finalizers}', false)).toBe(
      '["kubernetes.io/pv-protection"]',
    );
    expect(await jsonpath('pvc', 'wants-named', '{.metadata.finalizers}')).toBe(
      '["kubernetes.io/pvc-protection"]',
    );
    await apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'user', namespace: 'vol' },
      spec: {
        containers: [{ name: 'c', image: 'busybox' }],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'wants-named' } }],
      },
    });
    await waitFor('pod', 'user', '{.status.phase}', 'Running');
    await ok(['delete', 'pvc', 'wants-named', '-n', 'vol', '--wait=false']);
    // Terminating, held by its finalizer while the pod runs.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await jsonpath('pvc', 'wants-named', '{.metadata.deletionTimestamp}')).not.toBe('');
    expect(await ok(['get', 'pvc', 'wants-named', '-n', 'vol'])).toMatch(/^wants-named\s+Terminating\s+/m);
    await ok(['delete', 'pod', 'user', '-n', 'vol', '--grace-period=0', '--force']);
    await gone(['pvc', 'wants-named', '-n', 'vol'], 30_000);
    // Its volume is released; deleting it now is no longer held back.
    await waitFor('pv', 'named', '{.status.phase}', 'Released', false);
    await ok(['delete', 'pv', 'named', '--wait=true', '--timeout=30s']);
  }, 90_000);
});

const NODE_A = 'fake-node-0';
const NODE_B = 'fake-node-1';

function pinned(name: string, nodeName: string, className: string) {
  return pv(name, '1Gi', {
    storageClassName: className,
    hostPath: undefined,
    local: { path: `/var/lib/tkube/local/${name}` },
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [nodeName] }] },
        ],
      },
    },
  });
}

function podUsing(name: string, claimName: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'vol' },
    spec: {
      containers: [{ name: 'c', image: 'busybox' }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
    },
  };
}

/** The newest FailedScheduling message of a pod. */
async function failedScheduling(pod: string, fragment: string): Promise<string> {
  return eventually(async () => {
    const out = await ok([
      'get',
      'events',
      '-n',
      'vol',
      '--field-selector',
      `involvedObject.name=${pod},reason=FailedScheduling`,
      '-o',
      'jsonpath={range .items[*]}{.message}{"\\n"}{end}',
    ]);
    return out.split('\n').find((line) => line.includes(fragment));
  }, 30_000);
}

describe("the scheduler's VolumeBinding plugin", () => {
  it('places a pod on the node its bound volume is pinned to', async () => {
    expect(await jsonpath('node', NODE_A, '{.metadata.labels.kubernetes\\.io/hostname}', false)).toBe(NODE_A);
    await apply(pinned('on-b', NODE_B, ''));
    await apply(pvc('pinned-b', '1Gi', { volumeName: 'on-b' }));
    await waitFor('pvc', 'pinned-b', '{.status.phase}', 'Bound');
    await apply(podUsing('follows-b', 'pinned-b'));
    await waitFor('pod', 'follows-b', '{.spec.nodeName}', NODE_B);
  }, 60_000);

  it("refuses nodes that do not match the volume's node affinity", async () => {
    await apply(pinned('nowhere', 'no-such-node', ''));
    await apply(pvc('pinned-nowhere', '1Gi', { volumeName: 'nowhere' }));
    await waitFor('pvc', 'pinned-nowhere', '{.status.phase}', 'Bound');
    await apply(podUsing('homeless', 'pinned-nowhere'));
    const message = await failedScheduling('homeless', 'PersistentVolume');
    expect(message).toBe(
      "0/2 nodes are available: 2 node(s) didn't match PersistentVolume's node affinity. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
  }, 60_000);

  it('refuses pods whose claim is missing or unbound in an Immediate class', async () => {
    await apply(podUsing('no-claim', 'missing'));
    expect(await failedScheduling('no-claim', 'not found')).toBe(
      '0/2 nodes are available: persistentvolumeclaim "missing" not found. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    );
    await apply(podUsing('immediate', 'too-big'));
    expect(await failedScheduling('immediate', 'unbound')).toBe(
      '0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    );
  }, 60_000);

  it('binds a WaitForFirstConsumer claim to an Available volume on the chosen node', async () => {
    await apply(
      storageClass('local', 'kubernetes.io/no-provisioner', { volumeBindingMode: 'WaitForFirstConsumer' }),
    );
    await apply(pinned('local-a', NODE_A, 'local'));
    await apply(pvc('local-claim', '1Gi', { storageClassName: 'local' }));
    await waitForEvent(
      'local-claim',
      'WaitForFirstConsumer: waiting for first consumer to be created before binding',
    );
    await apply(podUsing('local-user', 'local-claim'));
    await waitFor('pod', 'local-user', '{.spec.nodeName}', NODE_A);
    await waitFor('pvc', 'local-claim', '{.status.phase}', 'Bound');
    expect(await jsonpath('pvc', 'local-claim', '{.spec.volumeName}')).toBe('local-a');
    // No second volume on node A: the next consumer cannot be placed.
    await apply(pvc('local-claim-2', '1Gi', { storageClassName: 'local' }));
    await apply(podUsing('local-user-2', 'local-claim-2'));
    expect(await failedScheduling('local-user-2', 'persistent volumes')).toContain(
      "2 node(s) didn't find available persistent volumes to bind",
    );
  }, 60_000);

  it('annotates a claim to provision with the node the scheduler chose', async () => {
    await apply(pvc('to-provision', '1Gi', { storageClassName: 'later' }));
    await apply(podUsing('consumer', 'to-provision'));
    const node = await eventually(async () => {
      const annotations = await jsonpath('pvc', 'to-provision', '{.metadata.annotations}');
      return annotations ? JSON.parse(annotations)['volume.kubernetes.io/selected-node'] : undefined;
    }, 30_000);
    expect([NODE_A, NODE_B]).toContain(node);
    // No provisioner serves example.com/disk: the pod waits in PreBind, unbound.
    expect(await jsonpath('pod', 'consumer', '{.spec.nodeName}')).toBe('');
    await waitForEvent(
      'to-provision',
      "ExternalProvisioning: Waiting for a volume to be created either by the external provisioner 'example.com/disk' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    );
  }, 60_000);
});

describe("the scheduler's VolumeRestrictions plugin", () => {
  it('keeps a second pod off a ReadWriteOncePod claim until the first is gone', async () => {
    await apply(pv('solo-pv', '1Gi', { accessModes: ['ReadWriteOncePod'] }));
    await apply(pvc('solo', '1Gi', { accessModes: ['ReadWriteOncePod'], volumeName: 'solo-pv' }));
    await waitFor('pvc', 'solo', '{.status.phase}', 'Bound');
    await apply(podUsing('solo-first', 'solo'));
    await eventually(
      async () => ((await jsonpath('pod', 'solo-first', '{.spec.nodeName}')) ? true : undefined),
      30_000,
    );
    await apply(podUsing('solo-second', 'solo'));
    expect(await failedScheduling('solo-second', 'ReadWriteOncePod')).toContain(
      '0/2 nodes are available: 2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode.',
    );
    expect(await jsonpath('pod', 'solo-second', '{.spec.nodeName}')).toBe('');
    await ok(['delete', 'pod', 'solo-first', '-n', 'vol', '--grace-period=0', '--force']);
    await eventually(
      async () => ((await jsonpath('pod', 'solo-second', '{.spec.nodeName}')) ? true : undefined),
      30_000,
    );
  }, 90_000);
});

describe('the default StorageClass and the local-path provisioner', () => {
  it('starts every cluster with `standard` as the default class', async () => {
    const table = await ok(['get', 'storageclass', 'standard']);
    expect(table).toMatch(
      /^standard \(default\)\s+tkube\.dev\/local-path\s+Delete\s+WaitForFirstConsumer\s+true\s+\S+$/m,
    );
  }, 30_000);

  it('provisions the claims of a StatefulSet on the nodes its pods are scheduled to', async () => {
    await apply({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'vol' },
      spec: {
        replicas: 2,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: {
            containers: [
              { name: 'db', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] },
            ],
          },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    });
    for (const index of [0, 1]) {
      const claimName = `data-db-${index}`;
      await waitFor('pvc', claimName, '{.status.phase}', 'Bound');
      await waitFor('pod', `db-${index}`, '{.status.phase}', 'Running');
      const uid = await jsonpath('pvc', claimName, '{.metadata.uid}');
      expect(await jsonpath('pvc', claimName, '{.spec.storageClassName}')).toBe('standard');
      expect(await jsonpath('pvc', claimName, '{.spec.volumeName}')).toBe(`pvc-${uid}`);
      const nodeName = await jsonpath('pod', `db-${index}`, '{.spec.nodeName}');
      expect(
        await jsonpath('pvc', claimName, "{.metadata.annotations['volume\\.kubernetes\\.io/selected-node']}"),
      ).toBe(nodeName);
      const volume = JSON.parse(await jsonpath('pv', `pvc-${uid}`, '{.spec}', false));
      expect(volume).toMatchObject({
        capacity: { storage: '1Gi' },
        hostPath: { path: `/var/lib/tkube/local-path/pvc-${uid}`, type: 'DirectoryOrCreate' },
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: 'standard',
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [nodeName] }] },
            ],
          },
        },
      });
      await waitForEvent(claimName, `ProvisioningSucceeded: Successfully provisioned volume pvc-${uid}`);
    }
  }, 120_000);

  it('expands a claim from 1Gi to 2Gi', async () => {
    const grown = await resizeClaim('data-db-0', '2Gi');
    expect(grown.exitCode, grown.stderr).toBe(0);
    await waitFor('pvc', 'data-db-0', '{.status.capacity.storage}', '2Gi');
    const volumeName = await jsonpath('pvc', 'data-db-0', '{.spec.volumeName}');
    expect(await jsonpath('pv', volumeName, '{.spec.capacity.storage}', false)).toBe('2Gi');
    await waitForEvent('data-db-0', 'VolumeResizeSuccessful: Resize volume succeeded');
  }, 60_000);

  it('refuses to grow a claim that is unbound or not expandable, and to shrink one', async () => {
    const grow = (name: string) => resizeClaim(name, '3Gi');
    // An unbound claim's spec is immutable (validation answers before admission, as upstream).
    await apply(pvc('waiting', '1Gi', { storageClassName: 'standard' }));
    expect((await grow('waiting')).stderr).toContain(
      'The PersistentVolumeClaim "waiting" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    );
    // PersistentVolumeClaimResize: only claims of a class with allowVolumeExpansion grow.
    await apply(pv('static-pv', '1Gi'));
    await apply(pvc('static-claim', '1Gi', { volumeName: 'static-pv' }));
    await waitFor('pvc', 'static-claim', '{.status.phase}', 'Bound');
    expect((await grow('static-claim')).stderr).toContain(
      'persistentvolumeclaims "static-claim" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    expect(await jsonpath('pvc', 'static-claim', '{.spec.resources.requests.storage}')).toBe('1Gi');
    // Below the capacity it has: the claim's validation refuses it.
    const shrink = await resizeClaim('data-db-0', '1Gi');
    expect(shrink.stderr).toContain(
      'The PersistentVolumeClaim "data-db-0" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    );
    await ok(['delete', 'pvc', 'waiting', 'static-claim', '-n', 'vol']);
  }, 60_000);

  it('deletes a provisioned volume with its claim (reclaim Delete)', async () => {
    await ok(['scale', 'statefulset', 'db', '-n', 'vol', '--replicas=1']);
    await eventually(async () => {
      const result = await cluster.kubectl(['get', 'pod', 'db-1', '-n', 'vol']);
      return result.exitCode !== 0 ? true : undefined;
    }, 60_000);
    const volumeName = await jsonpath('pvc', 'data-db-1', '{.spec.volumeName}');
    await ok(['delete', 'pvc', 'data-db-1', '-n', 'vol', '--wait=true', '--timeout=30s']);
    await gone(['pv', volumeName], 30_000);
  }, 120_000);

  it('provisions an Immediate claim on a node it picks, and keeps a Retain volume Released', async () => {
    await apply(
      storageClass('kept', 'tkube.dev/local-path', {
        reclaimPolicy: 'Retain',
        volumeBindingMode: 'Immediate',
      }),
    );
    await apply(pvc('kept-claim', '1Gi', { storageClassName: 'kept' }));
    await waitFor('pvc', 'kept-claim', '{.status.phase}', 'Bound');
    const volumeName = await jsonpath('pvc', 'kept-claim', '{.spec.volumeName}');
    const node = await jsonpath(
      'pv',
      volumeName,
      '{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}',
      false,
    );
    expect([NODE_A, NODE_B]).toContain(node);
    await ok(['delete', 'pvc', 'kept-claim', '-n', 'vol', '--wait=true', '--timeout=30s']);
    await waitFor('pv', volumeName, '{.status.phase}', 'Released', false);
    expect(await jsonpath('pv', volumeName, '{.spec.persistentVolumeReclaimPolicy}', false)).toBe('Retain');
  }, 60_000);

  it('refuses access modes a node directory cannot serve', async () => {
    await apply(pvc('shared', '1Gi', { storageClassName: 'kept', accessModes: ['ReadWriteMany'] }));
    await waitForEvent(
      'shared',
      'ProvisioningFailed: failed to provision volume with StorageClass "kept": tkube.dev/local-path only supports ReadWriteOnce and ReadWriteOncePod access modes',
    );
    expect(await jsonpath('pvc', 'shared', '{.status.phase}')).toBe('Pending');
  }, 60_000);
});

describe('generic ephemeral volumes', () => {
  const ephemeralPod = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'vol' },
    spec: {
      containers: [
        { name: 'c', image: 'busybox', volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] },
      ],
      volumes: [
        {
          name: 'scratch',
          ephemeral: {
            volumeClaimTemplate: {
              metadata: { labels: { kind: 'scratch' } },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          },
        },
      ],
    },
  });

  it('creates the claim owned by its pod, binds it, and deletes it with the pod', async () => {
    await apply(ephemeralPod('scratcher'));
    await waitFor('pvc', 'scratcher-scratch', '{.status.phase}', 'Bound');
    await waitFor('pod', 'scratcher', '{.status.phase}', 'Running');
    const owner = JSON.parse(await jsonpath('pvc', 'scratcher-scratch', '{.metadata.ownerReferences[0]}'));
    expect(owner).toMatchObject({
      kind: 'Pod',
      name: 'scratcher',
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(await jsonpath('pvc', 'scratcher-scratch', '{.metadata.labels.kind}')).toBe('scratch');
    expect(await jsonpath('pvc', 'scratcher-scratch', '{.spec.storageClassName}')).toBe('standard');
    await ok(['delete', 'pod', 'scratcher', '-n', 'vol', '--grace-period=0', '--force']);
    await gone(['pvc', 'scratcher-scratch', '-n', 'vol'], 60_000);
  }, 120_000);

  it('never takes over a claim of that name the pod does not own', async () => {
    await apply(pvc('squatted-scratch', '1Gi'));
    await apply(ephemeralPod('squatted'));
    await eventually(async () => {
      const out = await ok([
        'get',
        'events',
        '-n',
        'vol',
        '--field-selector',
        'involvedObject.name=squatted,reason=FailedBinding',
        '-o',
        'jsonpath={.items[*].message}',
      ]);
      return out.includes('ephemeral volume scratch: PVC vol/squatted-scratch was not created for the pod')
        ? true
        : undefined;
    }, 30_000);
    expect(await failedScheduling('squatted', 'not owner')).toContain(
      'PVC vol/squatted-scratch was not created for pod vol/squatted (pod is not owner)',
    );
  }, 60_000);
});
