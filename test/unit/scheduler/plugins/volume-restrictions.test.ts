// VolumeRestrictions: a ReadWriteOncePod claim a scheduled pod uses keeps every other pod off
// every node (until preemption removes that pod), a missing claim is unresolvable, and pods
// naming the same unshareable disk do not share a node; upstream's texts for each.
import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim, Pod, Volume } from '../../../../src/api/types/core-v1.generated.js';
import type { NodeInfo } from '../../../../src/scheduler/cache/node-info.js';
import { PodInfo } from '../../../../src/scheduler/cache/pod-info.js';
import { Snapshot } from '../../../../src/scheduler/cache/snapshot.js';
import { ClusterObjects } from '../../../../src/scheduler/cluster-objects.js';
import { CycleState } from '../../../../src/scheduler/framework/cycle-state.js';
import { Code } from '../../../../src/scheduler/framework/status.js';
import { VolumeRestrictions } from '../../../../src/scheduler/plugins/volume-restrictions.js';
import { node, nodeInfo, pod, preFilterThenFilter, testHandle } from '../fixtures.js';

function claim(name: string, accessModes: string[], namespace = 'default'): PersistentVolumeClaim {
  return {
    metadata: { namespace, name, resourceVersion: '1' },
    spec: { accessModes, resources: { requests: { storage: '1Gi' } } },
  };
}

function podWith(name: string, volumes: Volume[], namespace = 'default'): Pod {
  const base = pod(name, { namespace });
  return { ...base, spec: { ...base.spec!, volumes } };
}

const claimVolume = (claimName: string): Volume => ({ name: 'data', persistentVolumeClaim: { claimName } });

function setup(nodes: NodeInfo[], claims: PersistentVolumeClaim[]) {
  const objects = new ClusterObjects();
  for (const item of claims) objects.persistentVolumeClaims.upsert(item);
  return new VolumeRestrictions(testHandle(Snapshot.of(nodes), objects));
}

const run = preFilterThenFilter;

const RWOP_CONFLICT =
  'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode';

describe('VolumeRestrictions', () => {
  it('skips pods whose claims are not ReadWriteOncePod or not in use', () => {
    const nodes = [nodeInfo(node('n1'), [podWith('holder', [claimVolume('shared')])])];
    const plugin = setup(nodes, [claim('shared', ['ReadWriteOnce']), claim('solo', ['ReadWriteOncePod'])]);
    expect(run(plugin, nodes, podWith('p', [claimVolume('shared')]))).toBe('Skip');
    expect(run(plugin, nodes, podWith('p', [claimVolume('solo')]))).toBe('Skip');
    expect(run(plugin, nodes, podWith('p', [{ name: 'tmp', emptyDir: {} }]))).toBe('Skip');
  });

  it('refuses a pod whose claim does not exist as unresolvable', () => {
    const nodes = [nodeInfo(node('n1'))];
    const plugin = setup(nodes, []);
    const state = new CycleState();
    const result = plugin.preFilter(state, new PodInfo(podWith('p', [claimVolume('missing')])));
    expect(result?.status?.code).toBe(Code.UnschedulableAndUnresolvable);
    expect(result?.status?.message()).toBe('persistentvolumeclaim "missing" not found');
  });

  it('keeps a second user of a ReadWriteOncePod claim off every node, in its namespace only', () => {
    const nodes = [
      nodeInfo(node('n1'), [podWith('holder', [claimVolume('solo')])]),
      nodeInfo(node('n2'), [podWith('elsewhere', [claimVolume('other')], 'other-ns')]),
    ];
    const plugin = setup(nodes, [
      claim('solo', ['ReadWriteOncePod']),
      claim('other', ['ReadWriteOncePod']),
      claim('other', ['ReadWriteOncePod'], 'other-ns'),
    ]);
    expect(run(plugin, nodes, podWith('p', [claimVolume('solo')]))).toEqual({
      n1: RWOP_CONFLICT,
      n2: RWOP_CONFLICT,
    });
    // A claim of the same name in another namespace is another claim.
    expect(run(plugin, nodes, podWith('p', [claimVolume('other')]))).toBe('Skip');
  });

  it('lets preemption clear the conflict by removing the pod that holds the claim', () => {
    const nodes = [nodeInfo(node('n1'), [podWith('holder', [claimVolume('solo')])])];
    const plugin = setup(nodes, [claim('solo', ['ReadWriteOncePod'])]);
    const state = new CycleState();
    const incoming = new PodInfo(podWith('p', [claimVolume('solo')]));
    expect(plugin.preFilter(state, incoming)).toBeNull();
    expect(plugin.filter(state, incoming, nodes[0]!)?.code).toBe(Code.Unschedulable);
    const holderInfo = new PodInfo(podWith('holder', [claimVolume('solo')]));
    plugin.preFilterExtensions.removePod(state, incoming, holderInfo, nodes[0]!);
    expect(plugin.filter(state, incoming, nodes[0]!)).toBeNull();
    plugin.preFilterExtensions.addPod(state, incoming, holderInfo, nodes[0]!);
    expect(plugin.filter(state, incoming, nodes[0]!)?.message()).toBe(RWOP_CONFLICT);
  });

  it('keeps pods naming the same unshareable disk off one node unless both only read it', () => {
    const disk = (readOnly: boolean): Volume => ({
      name: 'disk',
      gcePersistentDisk: { pdName: 'pd-1', readOnly },
    });
    const ebs: Volume = { name: 'ebs', awsElasticBlockStore: { volumeID: 'vol-1' } };
    const nodes = [
      nodeInfo(node('n1'), [podWith('a', [disk(true), ebs])]),
      nodeInfo(node('n2'), [podWith('b', [{ name: 'disk', gcePersistentDisk: { pdName: 'pd-2' } }])]),
    ];
    const plugin = setup(nodes, []);
    expect(run(plugin, nodes, podWith('p', [disk(false)]))).toEqual({
      n1: 'node(s) had no available disk',
      n2: '',
    });
    expect(run(plugin, nodes, podWith('p', [disk(true)]))).toEqual({ n1: '', n2: '' });
    // EBS volumes never share a node, read-only or not.
    expect(run(plugin, nodes, podWith('p', [ebs]))).toEqual({ n1: 'node(s) had no available disk', n2: '' });
  });
});
