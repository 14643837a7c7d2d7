// One pod's placement decision (schedule_one.go schedulePod): refresh the snapshot, run PreFilter,
// try the nominated node first, filter a sample of the nodes starting where the previous cycle
// stopped, score the feasible ones and pick the best (ties broken at random).

import type { SchedulerCache } from './cache/cache.js';
import type { NodeInfo } from './cache/node-info.js';
import type { PodInfo } from './cache/pod-info.js';
import type { Snapshot } from './cache/snapshot.js';
import type { CycleState } from './framework/cycle-state.js';
import { addPluginStatus, type Diagnosis, FitError, newDiagnosis } from './framework/fit-error.js';
import type { Framework } from './framework/framework.js';
import { Code, Status } from './framework/status.js';

/** At least this many nodes are examined per cycle (when there are that many). */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** The adaptive percentage never drops below this. */
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;
export const ERR_NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

export interface ScheduleResult {
  readonly suggestedHost: string;
  readonly evaluatedNodes: number;
  readonly feasibleNodes: number;
}

/** An internal failure (not a "does not fit"): the pod is retried after a backoff. */
export class SchedulingError extends Error {
  override name = 'SchedulingError';
  constructor(readonly status: Status) {
    super(status.message());
  }
}

/**
 * How many feasible nodes to look for before stopping: all below 100 nodes; otherwise
 * percentageOfNodesToScore, by default 50% minus 1% per 125 nodes (at least 5%), and at least 100.
 */
export function numFeasibleNodesToFind(percentageOfNodesToScore: number, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let percentage = percentageOfNodesToScore;
  if (percentage === 0) {
    percentage = 50 - Math.trunc(numAllNodes / 125);
    if (percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
      percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const count = Math.trunc((numAllNodes * percentage) / 100);
  return count < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : count;
}

export class SchedulingAlgorithm {
  /** Where the next cycle starts filtering, so every node gets its turn. */
  nextStartNodeIndex = 0;

  constructor(
    private readonly cache: SchedulerCache,
    readonly snapshot: Snapshot,
    private readonly random: () => number,
  ) {}

  /** Returns the chosen node, or a FitError; throws a SchedulingError on internal errors. */
  schedulePod(framework: Framework, state: CycleState, podInfo: PodInfo): ScheduleResult | FitError {
    this.cache.updateSnapshot(this.snapshot);
    const numNodes = this.snapshot.numNodes;
    if (numNodes === 0)
      throw new SchedulingError(new Status(Code.UnschedulableAndUnresolvable, [ERR_NO_NODES_AVAILABLE]));
    const { feasible, diagnosis } = this.findNodesThatFitPod(framework, state, podInfo);
    if (feasible.length === 0) return new FitError(podInfo.pod, numNodes, diagnosis);
    if (feasible.length === 1) {
      return {
        suggestedHost: feasible[0]!.name,
        evaluatedNodes: 1 + diagnosis.nodeToStatus.size,
        feasibleNodes: 1,
      };
    }
    const totals = this.prioritizeNodes(framework, state, podInfo, feasible);
    return {
      suggestedHost: feasible[selectHost(totals, this.random)]!.name,
      evaluatedNodes: feasible.length + diagnosis.nodeToStatus.size,
      feasibleNodes: feasible.length,
    };
  }

  findNodesThatFitPod(
    framework: Framework,
    state: CycleState,
    podInfo: PodInfo,
  ): { feasible: NodeInfo[]; diagnosis: Diagnosis } {
    const diagnosis = newDiagnosis();
    const allNodes = this.snapshot.nodeInfoList;
    const preFilter = framework.runPreFilterPlugins(state, podInfo, allNodes);
    for (const plugin of preFilter.pluginsWithNodes) diagnosis.unschedulablePlugins.add(plugin);
    const preStatus = preFilter.status;
    if (preStatus !== null && preStatus.code !== Code.Success) {
      if (!preStatus.isRejected()) throw new SchedulingError(preStatus);
      diagnosis.nodeToStatus.absentNodesStatus = preStatus;
      diagnosis.preFilterMsg = preStatus.message();
      addPluginStatus(diagnosis, preStatus);
      return { feasible: [], diagnosis };
    }

    // A node nominated by an earlier preemption is likely the only one that fits: try it first.
    const nominated = podInfo.pod.status?.nominatedNodeName;
    if (nominated) {
      const nodeInfo = this.snapshot.get(nominated);
      if (nodeInfo !== undefined && nodeInfo.node !== null) {
        const feasible = this.findNodesThatPassFilters(framework, state, podInfo, diagnosis, [nodeInfo], 0);
        if (feasible.length > 0) return { feasible, diagnosis };
      }
    }

    let nodes = allNodes;
    if (preFilter.nodeNames !== null) {
      const names = preFilter.nodeNames;
      nodes = allNodes.filter((nodeInfo) => names.has(nodeInfo.name));
      const plugins = [...preFilter.pluginsWithNodes].sort();
      diagnosis.nodeToStatus.absentNodesStatus = Status.unresolvable(
        `node(s) didn't satisfy plugin(s) [${plugins.join(' ')}]`,
      );
    }
    const failedBefore = diagnosis.nodeToStatus.size;
    const feasible = this.findNodesThatPassFilters(
      framework,
      state,
      podInfo,
      diagnosis,
      nodes,
      this.nextStartNodeIndex,
    );
    const processed = feasible.length + diagnosis.nodeToStatus.size - failedBefore;
    if (allNodes.length > 0)
      this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % allNodes.length;
    return { feasible, diagnosis };
  }

  private findNodesThatPassFilters(
    framework: Framework,
    state: CycleState,
    podInfo: PodInfo,
    diagnosis: Diagnosis,
    nodes: readonly NodeInfo[],
    start: number,
  ): NodeInfo[] {
    const numAll = nodes.length;
    if (numAll === 0) return [];
    let numToFind = numFeasibleNodesToFind(framework.percentageOfNodesToScore, numAll);
    if (!framework.hasScorePlugins()) numToFind = 1;
    if (!framework.hasFilterPlugins()) {
      const feasible: NodeInfo[] = [];
      for (let index = 0; index < numToFind; index++) feasible.push(nodes[(start + index) % numAll]!);
      return feasible;
    }
    // Sized once: growing by push to hundreds of nodes re-copies the list a dozen times a pod.
    const feasible = new Array<NodeInfo>(Math.min(numToFind, numAll));
    let found = 0;
    for (let index = 0; index < numAll; index++) {
      const nodeInfo = nodes[(start + index) % numAll]!;
      const status = framework.runFilterPluginsWithNominatedPods(state, podInfo, nodeInfo);
      if (status === null) {
        feasible[found++] = nodeInfo;
        if (found >= numToFind) break;
        continue;
      }
      if (status.code === Code.Error) throw new SchedulingError(status);
      diagnosis.nodeToStatus.set(nodeInfo.name, status);
      addPluginStatus(diagnosis, status);
    }
    feasible.length = found;
    return feasible;
  }

  /** PreScore + Score + NormalizeScore + weights; every node scores 1 when no plugin scores. */
  prioritizeNodes(
    framework: Framework,
    state: CycleState,
    podInfo: PodInfo,
    nodes: readonly NodeInfo[],
  ): Float64Array {
    if (!framework.hasScorePlugins()) return new Float64Array(nodes.length).fill(1);
    const preScore = framework.runPreScorePlugins(state, podInfo, nodes);
    if (preScore !== null) throw new SchedulingError(preScore);
    const { totals, status } = framework.runScorePlugins(state, podInfo, nodes);
    if (status !== null) throw new SchedulingError(status);
    return totals;
  }
}

/**
 * The index of a highest total; among equal ones each is equally likely, as upstream's reservoir
 * sampling makes it. One random draw picks among the ties once they are counted, rather than one
 * draw per tie: with hundreds of equal nodes that was hundreds of draws a pod.
 */
export function selectHost(totals: Float64Array, random: () => number): number {
  let best = Number.NEGATIVE_INFINITY;
  let ties = 0;
  for (let index = 0; index < totals.length; index++) {
    const total = totals[index]!;
    if (total > best) {
      best = total;
      ties = 1;
    } else if (total === best) ties++;
  }
  if (ties <= 1) return Math.max(0, totals.indexOf(best));
  let pick = Math.min(ties - 1, Math.floor(random() * ties));
  for (let index = 0; index < totals.length; index++) {
    if (totals[index] === best && pick-- === 0) return index;
  }
  return 0;
}
