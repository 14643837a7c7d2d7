// NodeResourcesBalancedAllocation: prefers nodes whose cpu and memory would be used in similar
// proportions with the pod placed: score = (1 - standard deviation of the usage fractions) × 100.
// Pods requesting nothing are not scored by it (they would otherwise pile onto one node).
import type { NodeInfo } from '../cache/node-info.js';
import type { PodInfo } from '../cache/pod-info.js';
import { type CycleState, ImmutableState } from '../framework/cycle-state.js';
import { MAX_NODE_SCORE } from '../framework/framework.js';
import type { FrameworkHandle } from '../framework/handle.js';
import type { PreScorePlugin, ScorePlugin } from '../framework/interfaces.js';
import { Status } from '../framework/status.js';
import { PluginNames } from './names.js';
import {
  DEFAULT_SCORED_RESOURCES,
  fillAllocatableAndRequested,
  podRequestList,
  type ResourceSpec,
} from './resource-allocation.js';

const PRE_SCORE_KEY = `PreScore${PluginNames.NodeResourcesBalancedAllocation}`;

export function balancedResourceScore(requested: Float64Array, allocatable: Float64Array): number {
  let total = 0;
  let count = 0;
  let first = 0;
  let second = 0;
  const fractions: number[] = [];
  for (let index = 0; index < requested.length; index++) {
    const capacity = allocatable[index]!;
    if (capacity === 0) continue;
    const fraction = Math.min(requested[index]! / capacity, 1);
    total += fraction;
    if (count === 0) first = fraction;
    else if (count === 1) second = fraction;
    if (requested.length > 2) fractions.push(fraction);
    count++;
  }
  let std = 0;
  if (count === 2) {
    std = Math.abs((first - second) / 2);
  } else if (count > 2) {
    const mean = total / count;
    let sum = 0;
    for (const fraction of fractions) sum += (fraction - mean) * (fraction - mean);
    std = Math.sqrt(sum / count);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

export class BalancedAllocation implements PreScorePlugin, ScorePlugin {
  readonly name = PluginNames.NodeResourcesBalancedAllocation;
  private readonly resources: readonly ResourceSpec[];
  private readonly allocatable: Float64Array;
  private readonly requested: Float64Array;

  constructor(_handle?: FrameworkHandle, args: { readonly resources?: readonly ResourceSpec[] } = {}) {
    this.resources = args.resources ?? DEFAULT_SCORED_RESOURCES;
    this.allocatable = new Float64Array(this.resources.length);
    this.requested = new Float64Array(this.resources.length);
  }

  preScore(state: CycleState, podInfo: PodInfo): Status | null {
    const podRequests = podRequestList(podInfo.requests, this.resources);
    if (podRequests.every((request) => request === 0)) return Status.skip();
    state.write(PRE_SCORE_KEY, new ImmutableState<readonly number[]>(podRequests));
    return null;
  }

  score(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): number {
    const podRequests =
      state.read<ImmutableState<readonly number[]>>(PRE_SCORE_KEY)?.value ??
      podRequestList(podInfo.requests, this.resources);
    fillAllocatableAndRequested(
      nodeInfo,
      this.resources,
      podRequests,
      true,
      this.allocatable,
      this.requested,
    );
    return balancedResourceScore(this.requested, this.allocatable);
  }
}
