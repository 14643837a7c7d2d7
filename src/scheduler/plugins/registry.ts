// The default profile: kube-scheduler 1.33's default plugins, in its order, with its score weights
// (TaintToleration 3, NodeAffinity 2, PodTopologySpread 2, InterPodAffinity 2, NodeResourcesFit 1,
// BalancedAllocation 1, ImageLocality 1). Of the volume plugins VolumeRestrictions and
// VolumeBinding are here (VolumeZone and NodeVolumeLimits count cloud zones and CSI drivers'
// attach limits, and tkube has neither).
import type { PluginEntry, ProfileConfig } from '../framework/framework.js';
import { BalancedAllocation } from './balanced-allocation.js';
import { type Binder, DefaultBinder } from './default-binder.js';
import { DefaultPreemption, type DefaultPreemptionArgs } from './default-preemption/plugin.js';
import { ImageLocality } from './image-locality.js';
import { InterPodAffinity, type InterPodAffinityArgs } from './inter-pod-affinity/plugin.js';
import { NodeAffinity } from './node-affinity.js';
import { NodeName } from './node-name.js';
import { NodePorts } from './node-ports.js';
import { NodeResourcesFit, type NodeResourcesFitArgs } from './node-resources-fit.js';
import { NodeUnschedulable } from './node-unschedulable.js';
import { PodTopologySpread, type PodTopologySpreadArgs } from './pod-topology-spread/plugin.js';
import { PrioritySort } from './priority-sort.js';
import { SchedulingGates } from './scheduling-gates.js';
import { TaintToleration } from './taint-toleration.js';
import { type VolumeApi, VolumeBinding } from './volume-binding/plugin.js';
import { VolumeRestrictions } from './volume-restrictions.js';

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

export interface DefaultProfileOptions {
  readonly schedulerName?: string;
  readonly binder: Binder;
  readonly percentageOfNodesToScore?: number;
  readonly preemption?: DefaultPreemptionArgs;
  readonly nodeResourcesFit?: NodeResourcesFitArgs;
  readonly podTopologySpread?: PodTopologySpreadArgs;
  readonly interPodAffinity?: InterPodAffinityArgs;
  /** Where VolumeBinding writes volume bindings and selected nodes. */
  readonly volumes?: Partial<VolumeApi>;
}

export function defaultPlugins(options: DefaultProfileOptions): PluginEntry[] {
  return [
    { create: () => new SchedulingGates() },
    { create: () => new PrioritySort() },
    { create: () => new NodeUnschedulable() },
    { create: () => new NodeName() },
    { create: () => new TaintToleration(), weight: 3 },
    { create: () => new NodeAffinity(), weight: 2 },
    { create: () => new NodePorts() },
    { create: (handle) => new NodeResourcesFit(handle, options.nodeResourcesFit), weight: 1 },
    { create: (handle) => new VolumeRestrictions(handle) },
    { create: (handle) => new VolumeBinding(handle, volumeApi(options.volumes)) },
    { create: (handle) => new PodTopologySpread(handle, options.podTopologySpread), weight: 2 },
    { create: (handle) => new InterPodAffinity(handle, options.interPodAffinity), weight: 2 },
    { create: (handle) => new DefaultPreemption(handle, options.preemption) },
    { create: (handle) => new BalancedAllocation(handle), weight: 1 },
    { create: (handle) => new ImageLocality(handle), weight: 1 },
    { create: () => new DefaultBinder(options.binder) },
  ];
}

export function defaultProfile(options: DefaultProfileOptions): ProfileConfig {
  return {
    schedulerName: options.schedulerName ?? DEFAULT_SCHEDULER_NAME,
    plugins: defaultPlugins(options),
    percentageOfNodesToScore: options.percentageOfNodesToScore,
  };
}

function volumeApi(api: Partial<VolumeApi> | undefined): VolumeApi | undefined {
  const { updatePersistentVolume, updatePersistentVolumeClaim } = api ?? {};
  if (!updatePersistentVolume || !updatePersistentVolumeClaim) return undefined;
  return {
    updatePersistentVolume: (volume) => updatePersistentVolume.call(api, volume),
    updatePersistentVolumeClaim: (claim) => updatePersistentVolumeClaim.call(api, claim),
  };
}
