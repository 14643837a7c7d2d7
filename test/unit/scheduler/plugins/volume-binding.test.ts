// VolumeBinding's PreFilter, Filter, Reserve and PreBind over claims, volumes and classes in the
// scheduler's ClusterObjects, with upstream's texts for every rejection.
import { describe, expect, it } from 'vitest';
import type {
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  Volume,
} from '../../../../src/api/types/core-v1.generated.js';
import type { StorageClass } from '../../../../src/api/types/storage-v1.generated.js';
import { PodInfo } from '../../../../src/scheduler/cache/pod-info.js';
import { Snapshot } from '../../../../src/scheduler/cache/snapshot.js';
import { ClusterObjects } from '../../../../src/scheduler/cluster-objects.js';
import { CycleState } from '../../../../src/scheduler/framework/cycle-state.js';
import { Code } from '../../../../src/scheduler/framework/status.js';
import { type VolumeApi, VolumeBinding } from '../../../../src/scheduler/plugins/volume-binding/plugin.js';
import { node, nodeInfo, pod, preFilterThenFilter, testHandle } from '../fixtures.js';

const nodes = [nodeInfo(node('n1')), nodeInfo(node('n2'))];

function pinnedVolume(
  name: string,
  nodeName: string,
  extra: Partial<PersistentVolume['spec']> = {},
): PersistentVolume {
  return {
    metadata: { name, resourceVersion: '1' },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      local: { path: `/data/${name}` },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [nodeName] }] },
          ],
        },
      },
      ...extra,
    },
    status: { phase: 'Available' },
  };
}

function claim(
  name: string,
  extra: Partial<PersistentVolumeClaim['spec']> = {},
  annotations?: Record<string, string>,
) {
  return {
    metadata: {
      namespace: 'default',
      name,
      uid: `uid-${name}`,
      resourceVersion: '1',
      ...(annotations ? { annotations } : {}),
    },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...extra },
    status: { phase: 'Pending' },
  } as PersistentVolumeClaim;
}

const boundClaim = (name: string, volumeName: string) =>
  claim(name, { volumeName, storageClassName: '' }, { 'pv.kubernetes.io/bind-completed': 'yes' });

function storageClass(name: string, provisioner: string, mode = 'WaitForFirstConsumer'): StorageClass {
  return { metadata: { name }, provisioner, volumeBindingMode: mode };
}

function podWith(...claimNames: string[]): Pod {
  const volumes: Volume[] = claimNames.map((claimName, index) => ({
    name: `v${index}`,
    persistentVolumeClaim: { claimName },
  }));
  const base = pod('p');
  return { ...base, metadata: { ...base.metadata, uid: 'pod-uid' }, spec: { ...base.spec!, volumes } };
}

interface Writes {
  volumes: PersistentVolume[];
  claims: PersistentVolumeClaim[];
}

function setup(objects: {
  claims?: PersistentVolumeClaim[];
  volumes?: PersistentVolume[];
  classes?: StorageClass[];
}) {
  const cluster = new ClusterObjects();
  for (const item of objects.claims ?? []) cluster.persistentVolumeClaims.upsert(item);
  for (const item of objects.volumes ?? []) cluster.persistentVolumes.upsert(item);
  for (const item of objects.classes ?? []) cluster.storageClasses.upsert(item);
  const writes: Writes = { volumes: [], claims: [] };
  const api: VolumeApi = {
    updatePersistentVolume: async (volume) => {
      writes.volumes.push(volume);
      return volume;
    },
    updatePersistentVolumeClaim: async (updated) => {
      writes.claims.push(updated);
      return updated;
    },
  };
  const plugin = new VolumeBinding(testHandle(Snapshot.of(nodes), cluster), api);
  return { cluster, plugin, writes };
}

const run = (plugin: VolumeBinding, podObject: Pod, state = new CycleState()) =>
  preFilterThenFilter(plugin, nodes, podObject, state);

describe('VolumeBinding PreFilter', () => {
  it('skips pods without claims', () => {
    const { plugin } = setup({});
    expect(run(plugin, pod('p'))).toBe('Skip');
  });

  const cases: { name: string; claims: PersistentVolumeClaim[]; want: string }[] = [
    { name: 'a missing claim', claims: [], want: 'persistentvolumeclaim "data" not found' },
    {
      name: 'a claim being deleted',
      claims: [
        {
          ...claim('data'),
          metadata: { ...claim('data').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
        },
      ],
      want: 'persistentvolumeclaim "data" is being deleted',
    },
    {
      name: 'a lost claim',
      claims: [{ ...claim('data', { volumeName: 'gone' }), status: { phase: 'Lost' } }],
      want: 'persistentvolumeclaim "data" bound to non-existent persistentvolume "gone"',
    },
    {
      name: 'an unbound claim of an Immediate class',
      claims: [claim('data', { storageClassName: 'now' })],
      want: 'pod has unbound immediate PersistentVolumeClaims',
    },
    {
      name: 'an unbound claim of no class',
      claims: [claim('data', { storageClassName: '' })],
      want: 'pod has unbound immediate PersistentVolumeClaims',
    },
  ];
  for (const testCase of cases) {
    it(`refuses ${testCase.name}`, () => {
      const { plugin } = setup({ claims: testCase.claims, classes: [storageClass('now', 'x', 'Immediate')] });
      expect(run(plugin, podWith('data'))).toBe(testCase.want);
    });
  }

  it('says an ephemeral claim is awaited from its controller', () => {
    const { plugin } = setup({});
    const base = pod('p');
    const withEphemeral: Pod = {
      ...base,
      spec: {
        ...base.spec!,
        volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } }],
      },
    };
    expect(run(plugin, withEphemeral)).toBe(
      'waiting for ephemeral volume controller to create the persistentvolumeclaim "p-scratch"',
    );
  });
});

describe('VolumeBinding Filter', () => {
  it("keeps bound claims on their volume's node", () => {
    const { plugin } = setup({ claims: [boundClaim('data', 'pv-a')], volumes: [pinnedVolume('pv-a', 'n1')] });
    expect(run(plugin, podWith('data'))).toEqual({
      n1: '',
      n2: "node(s) didn't match PersistentVolume's node affinity",
    });
  });

  it('refuses every node when a bound claim’s volume is missing', () => {
    const { plugin } = setup({ claims: [boundClaim('data', 'gone')] });
    const reason = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
    expect(run(plugin, podWith('data'))).toEqual({ n1: reason, n2: reason });
  });

  it('binds a WaitForFirstConsumer claim only where an Available volume is, for a class without provisioner', () => {
    const { plugin } = setup({
      claims: [claim('data', { storageClassName: 'local' })],
      volumes: [pinnedVolume('pv-a', 'n1', { storageClassName: 'local' })],
      classes: [storageClass('local', 'kubernetes.io/no-provisioner')],
    });
    expect(run(plugin, podWith('data'))).toEqual({
      n1: '',
      n2: "node(s) didn't find available persistent volumes to bind",
    });
  });

  it('provisions anywhere the class allows, and only on the selected node once one is chosen', () => {
    const zoned: StorageClass = {
      ...storageClass('zoned', 'tkube.dev/local-path'),
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'kubernetes.io/hostname', values: ['n2'] }] }],
    };
    const { plugin } = setup({
      claims: [
        claim('free', { storageClassName: 'standard' }),
        claim('zoned', { storageClassName: 'zoned' }),
        claim('chosen', { storageClassName: 'standard' }, { 'volume.kubernetes.io/selected-node': 'n1' }),
      ],
      classes: [storageClass('standard', 'tkube.dev/local-path'), zoned],
    });
    expect(run(plugin, podWith('free'))).toEqual({ n1: '', n2: '' });
    expect(run(plugin, podWith('zoned'))).toEqual({
      n1: "node(s) didn't find available persistent volumes to bind",
      n2: '',
    });
    expect(run(plugin, podWith('chosen'))).toEqual({
      n1: '',
      n2: "node(s) didn't find available persistent volumes to bind",
    });
  });

  it('reports a delayed claim whose class went away as an error', () => {
    const { plugin, cluster } = setup({
      claims: [claim('data', { storageClassName: 'later' })],
      classes: [storageClass('later', 'x')],
    });
    const state = new CycleState();
    const podInfo = new PodInfo(podWith('data'));
    expect(plugin.preFilter(state, podInfo)).toBeNull();
    // The class goes between PreFilter and Filter.
    cluster.storageClasses.remove(storageClass('later', 'x'));
    const status = plugin.filter(state, podInfo, nodes[0]!);
    expect(status?.code).toBe(Code.Error);
    expect(status?.message()).toBe('failed to find storage class "later"');
  });
});

describe('VolumeBinding Reserve and PreBind', () => {
  it('assumes a chosen volume so the next pod cannot take it, and writes its claimRef', async () => {
    const { plugin, cluster, writes } = setup({
      claims: [claim('one', { storageClassName: 'local' }), claim('two', { storageClassName: 'local' })],
      volumes: [pinnedVolume('pv-a', 'n1', { storageClassName: 'local' })],
      classes: [storageClass('local', 'kubernetes.io/no-provisioner')],
    });
    const state = new CycleState();
    const first = podWith('one');
    expect(run(plugin, first, state)).toEqual({
      n1: '',
      n2: "node(s) didn't find available persistent volumes to bind",
    });
    expect(plugin.reserve(state, new PodInfo(first), 'n1')).toBeNull();
    const second = { ...podWith('two'), metadata: { ...podWith('two').metadata, name: 'q', uid: 'q' } };
    expect(run(plugin, second)).toEqual({
      n1: "node(s) didn't find available persistent volumes to bind",
      n2: "node(s) didn't find available persistent volumes to bind",
    });
    const binding = plugin.preBind(state, new PodInfo(first), 'n1');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(writes.volumes[0]?.spec?.claimRef).toMatchObject({
      namespace: 'default',
      name: 'one',
      uid: 'uid-one',
    });
    expect(writes.volumes[0]?.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');
    // The binder completes the binding.
    cluster.persistentVolumes.upsert({ ...writes.volumes[0]!, status: { phase: 'Bound' } });
    cluster.persistentVolumeClaims.upsert(boundClaim('one', 'pv-a'));
    expect(await binding).toBeNull();
  });

  it('annotates a claim to provision with the selected node and waits for its volume', async () => {
    const { plugin, cluster, writes } = setup({
      claims: [claim('data', { storageClassName: 'standard' })],
      classes: [storageClass('standard', 'tkube.dev/local-path')],
    });
    const state = new CycleState();
    const podObject = podWith('data');
    run(plugin, podObject, state);
    plugin.reserve(state, new PodInfo(podObject), 'n2');
    const binding = plugin.preBind(state, new PodInfo(podObject), 'n2');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(writes.claims[0]?.metadata?.annotations?.['volume.kubernetes.io/selected-node']).toBe('n2');
    // The provisioner makes a volume on n2 and the binder binds it.
    cluster.persistentVolumes.upsert({
      ...pinnedVolume('pvc-uid-data', 'n2', {
        claimRef: { namespace: 'default', name: 'data', uid: 'uid-data' },
      }),
      status: { phase: 'Bound' },
    });
    const bound = boundClaim('data', 'pvc-uid-data');
    bound.metadata = {
      ...bound.metadata,
      resourceVersion: '3',
      annotations: { ...bound.metadata?.annotations, 'volume.kubernetes.io/selected-node': 'n2' },
    };
    cluster.persistentVolumeClaims.upsert(bound);
    expect(await binding).toBeNull();
  });

  it('fails PreBind when the selected node is taken off the claim', async () => {
    const { plugin, cluster } = setup({
      claims: [claim('data', { storageClassName: 'standard' })],
      classes: [storageClass('standard', 'tkube.dev/local-path')],
    });
    const state = new CycleState();
    const podObject = podWith('data');
    run(plugin, podObject, state);
    plugin.reserve(state, new PodInfo(podObject), 'n2');
    const binding = plugin.preBind(state, new PodInfo(podObject), 'n2');
    const reset = claim('data', { storageClassName: 'standard' });
    reset.metadata = { ...reset.metadata, resourceVersion: '5' };
    cluster.persistentVolumeClaims.upsert(reset);
    expect((await binding)?.message()).toBe('binding volumes: selectedNode annotation reset for PVC "data"');
  });

  it('unreserve forgets the assumption', () => {
    const { plugin } = setup({
      claims: [claim('one', { storageClassName: 'local' })],
      volumes: [pinnedVolume('pv-a', 'n1', { storageClassName: 'local' })],
      classes: [storageClass('local', 'kubernetes.io/no-provisioner')],
    });
    const state = new CycleState();
    const first = podWith('one');
    run(plugin, first, state);
    plugin.reserve(state, new PodInfo(first), 'n1');
    plugin.unreserve(state, new PodInfo(first), 'n1');
    expect(run(plugin, first)).toEqual({
      n1: '',
      n2: "node(s) didn't find available persistent volumes to bind",
    });
  });
});
