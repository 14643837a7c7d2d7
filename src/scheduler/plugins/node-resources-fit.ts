// NodeResourcesFit: the node must have room for the pod's requests — cpu, memory,
// ephemeral-storage, extended resources and one more pod — counting init containers' maximum and
// the pod overhead (Filter). Score: LeastAllocated, the more left free the better, by default over
// cpu and memory with equal weights.

import type { Resource } from '../../api/scheduling/resource.js';
import { insufficientResources } from '../../api/scheduling/resource-fit.js';
import type { Node, Pod } from '../../api/types/core-v1.generated.js';
import { NodeInfo } from '../cache/node-info.js';
import { PodInfo } from '../cache/pod-info.js';
import { type CycleState, ImmutableState } from '../framework/cycle-state.js';
import { ActionType } from '../framework/events.js';
import { MAX_NODE_SCORE } from '../framework/framework.js';
import type { FrameworkHandle } from '../framework/handle.js';
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  FilterPlugin,
  PreFilterPlugin,
  PreFilterResult,
  PreScorePlugin,
  ScorePlugin,
} from '../framework/interfaces.js';
import { Status } from '../framework/status.js';
import { PluginNames } from './names.js';
import {
  DEFAULT_SCORED_RESOURCES,
  fillAllocatableAndRequested,
  podRequestList,
  type ResourceSpec,
} from './resource-allocation.js';

const PRE_FILTER_KEY = `PreFilter${PluginNames.NodeResourcesFit}`;
const PRE_SCORE_KEY = `PreScore${PluginNames.NodeResourcesFit}`;

export type ScoringStrategyType = 'LeastAllocated' | 'MostAllocated';

export interface NodeResourcesFitArgs {
  /** Extended resources the filter ignores. */
  readonly ignoredResources?: readonly string[];
  /** Extended-resource groups (the part before `/`) the filter ignores. */
  readonly ignoredResourceGroups?: readonly string[];
  readonly scoringStrategy?: {
    readonly type: ScoringStrategyType;
    readonly resources?: readonly ResourceSpec[];
  };
}

/** Whether the pod would fit the node if it were empty (for queueing hints). */
function fitsEmptyNode(pod: Pod, node: Node): boolean {
  return insufficientResources(new PodInfo(pod).requests, new NodeInfo(node)).length === 0;
}

export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

export function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  // Pods may request more than allocatable (overcommitted nodes); cap at 100.
  return Math.trunc((Math.min(requested, capacity) * MAX_NODE_SCORE) / capacity);
}

export class NodeResourcesFit
  implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions
{
  readonly name = PluginNames.NodeResourcesFit;
  private readonly ignoredResources: ReadonlySet<string>;
  private readonly ignoredGroups: ReadonlySet<string>;
  private readonly resources: readonly ResourceSpec[];
  private readonly strategy: ScoringStrategyType;
  private readonly allocatable: Float64Array;
  private readonly requested: Float64Array;
  private readonly cpuAndMemoryOnly: boolean;

  constructor(_handle?: FrameworkHandle, args: NodeResourcesFitArgs = {}) {
    this.ignoredResources = new Set(args.ignoredResources ?? []);
    this.ignoredGroups = new Set(args.ignoredResourceGroups ?? []);
    this.resources = args.scoringStrategy?.resources ?? DEFAULT_SCORED_RESOURCES;
    this.strategy = args.scoringStrategy?.type ?? 'LeastAllocated';
    this.allocatable = new Float64Array(this.resources.length);
    this.requested = new Float64Array(this.resources.length);
    this.cpuAndMemoryOnly =
      this.resources.length === 2 &&
      this.resources[0]!.name === 'cpu' &&
      this.resources[1]!.name === 'memory';
  }

  preFilter(state: CycleState, podInfo: PodInfo): PreFilterResult | null {
    state.write(PRE_FILTER_KEY, new ImmutableState<Resource>(podInfo.requests));
    return null;
  }

  filter(_state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    const request = podInfo.requests;
    const allocatable = nodeInfo.allocatable;
    const used = nodeInfo.requested;
    // Fast path: the common pod asks only for cpu and memory and fits.
    if (
      nodeInfo.pods.length + 1 <= allocatable.allowedPodNumber &&
      request.milliCPU <= allocatable.milliCPU - used.milliCPU &&
      request.memory <= allocatable.memory - used.memory &&
      request.ephemeralStorage === 0 &&
      request.scalar === null
    ) {
      return null;
    }
    const missing = insufficientResources(request, nodeInfo, this.ignoredResources, this.ignoredGroups);
    if (missing.length === 0) return null;
    return Status.unschedulable(...missing.map((resource) => resource.reason));
  }

  preScore(state: CycleState, podInfo: PodInfo): Status | null {
    state.write(
      PRE_SCORE_KEY,
      new ImmutableState<readonly number[]>(podRequestList(podInfo.nonZeroRequests, this.resources)),
    );
    return null;
  }

  score(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): number {
    if (this.cpuAndMemoryOnly) return this.scoreCpuAndMemory(state, podInfo, nodeInfo);
    const podRequests =
      state.read<ImmutableState<readonly number[]>>(PRE_SCORE_KEY)?.value ??
      podRequestList(podInfo.nonZeroRequests, this.resources);
    const { allocatable, requested, resources } = this;
    fillAllocatableAndRequested(nodeInfo, resources, podRequests, false, allocatable, requested);
    let nodeScore = 0;
    let weightSum = 0;
    for (let index = 0; index < resources.length; index++) {
      const capacity = allocatable[index]!;
      if (capacity === 0) continue;
      const weight = resources[index]!.weight;
      const score =
        this.strategy === 'LeastAllocated'
          ? leastRequestedScore(requested[index]!, capacity)
          : mostRequestedScore(requested[index]!, capacity);
      nodeScore += score * weight;
      weightSum += weight;
    }
    return weightSum === 0 ? 0 : Math.trunc(nodeScore / weightSum);
  }

  /** The default case (cpu and memory) without the general per-resource arrays. */
  private scoreCpuAndMemory(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): number {
    const podRequests = state.read<ImmutableState<readonly number[]>>(PRE_SCORE_KEY)?.value;
    const cpu = podRequests?.[0] ?? podInfo.nonZeroRequests.milliCPU;
    const memory = podRequests?.[1] ?? podInfo.nonZeroRequests.memory;
    const allocatable = nodeInfo.allocatable;
    const used = nodeInfo.nonZeroRequested;
    const cpuWeight = this.resources[0]!.weight;
    const memoryWeight = this.resources[1]!.weight;
    const scoreOf = this.strategy === 'LeastAllocated' ? leastRequestedScore : mostRequestedScore;
    let nodeScore = 0;
    let weightSum = 0;
    if (allocatable.milliCPU !== 0) {
      nodeScore += scoreOf(used.milliCPU + cpu, allocatable.milliCPU) * cpuWeight;
      weightSum += cpuWeight;
    }
    if (allocatable.memory !== 0) {
      nodeScore += scoreOf(used.memory + memory, allocatable.memory) * memoryWeight;
      weightSum += memoryWeight;
    }
    return weightSum === 0 ? 0 : Math.trunc(nodeScore / weightSum);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Pod', actionType: ActionType.Delete | ActionType.UpdatePodScaleDown },
        hint: (pod, oldObj, newObj) => {
          const modified = newObj as Pod | undefined;
          if (modified === undefined)
            return (oldObj as Pod | undefined)?.spec?.nodeName ? 'Queue' : 'QueueSkip';
          if (modified.metadata?.uid === pod.metadata?.uid) return 'Queue';
          return modified.spec?.nodeName ? 'Queue' : 'QueueSkip';
        },
      },
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeAllocatable },
        hint: (pod, oldObj, newObj) => {
          const modified = newObj as Node | undefined;
          if (modified === undefined || !fitsEmptyNode(pod, modified)) return 'QueueSkip';
          const original = oldObj as Node | undefined;
          if (original === undefined) return 'Queue';
          return requestedResourcesIncreased(pod, original, modified) ? 'Queue' : 'QueueSkip';
        },
      },
    ];
  }
}

function requestedResourcesIncreased(pod: Pod, original: Node, modified: Node): boolean {
  const request = new PodInfo(pod).requests;
  const before = new NodeInfo(original).allocatable;
  const after = new NodeInfo(modified).allocatable;
  if (after.allowedPodNumber > before.allowedPodNumber) return true;
  if (request.milliCPU > 0 && after.milliCPU > before.milliCPU) return true;
  if (request.memory > 0 && after.memory > before.memory) return true;
  if (request.ephemeralStorage > 0 && after.ephemeralStorage > before.ephemeralStorage) return true;
  for (const [name, quantity] of request.scalar ?? []) {
    if (quantity !== 0 && after.scalarOf(name) > before.scalarOf(name)) return true;
  }
  return false;
}
