// PodTopologySpread filtering: for each DoNotSchedule constraint, placing the pod in the node's
// domain must keep (matching pods there + 1 if the pod matches itself − the global minimum) within
// maxSkew. Counts are taken once in PreFilter over all nodes the constraint applies to.

import { requiredNodeAffinityOf } from '../../../api/scheduling/node-selector.js';
import type { Pod } from '../../../api/types/core-v1.generated.js';
import type { NodeInfo } from '../../cache/node-info.js';
import type { PodInfo } from '../../cache/pod-info.js';
import type { Snapshot } from '../../cache/snapshot.js';
import type { StateData } from '../../framework/cycle-state.js';
import { Status } from '../../framework/status.js';
import {
  matchNodeInclusionPolicies,
  nodeLabelsMatchSpreadConstraints,
  nodeMatchCounter,
  type SpreadConstraint,
} from './constraints.js';
import { CriticalPaths } from './critical-paths.js';
import { countsEveryLabelledNode, spreadDomains } from './domain-index.js';

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = `${ERR_REASON_CONSTRAINTS_NOT_MATCH} (missing required label)`;

export class SpreadFilterState implements StateData {
  constructor(
    readonly constraints: readonly SpreadConstraint[],
    /** Per constraint: topology value → matching pods in that domain. */
    readonly tpValueToMatchNum: Map<string, number>[],
    readonly criticalPaths: CriticalPaths[],
  ) {}

  clone(): SpreadFilterState {
    return new SpreadFilterState(
      this.constraints,
      this.tpValueToMatchNum.map((counts) => new Map(counts)),
      this.criticalPaths.map((paths) => paths.clone()),
    );
  }

  /** The global minimum for the constraint; 0 while fewer domains than minDomains exist. */
  minMatchNum(index: number): number {
    const constraint = this.constraints[index]!;
    const minimum = this.criticalPaths[index]!.paths[0].matchNum;
    return this.tpValueToMatchNum[index]!.size < constraint.minDomains ? 0 : minimum;
  }

  /** Adds (delta 1) or removes (delta −1) a pod on a node, as preemption simulates. */
  updateWithPod(added: PodInfo, preemptor: Pod, nodeInfo: NodeInfo, delta: number): void {
    if (added.namespace !== (preemptor.metadata?.namespace ?? '') || nodeInfo.node === null) return;
    if (!nodeLabelsMatchSpreadConstraints(nodeInfo.labels, this.constraints)) return;
    const required = requiredNodeAffinityOf(preemptor);
    this.constraints.forEach((constraint, index) => {
      if (!constraint.selector.matches(added.labels)) return;
      if (!matchNodeInclusionPolicies(constraint, preemptor, nodeInfo, required)) return;
      const value = nodeInfo.labels[constraint.topologyKey]!;
      const counts = this.tpValueToMatchNum[index]!;
      const count = (counts.get(value) ?? 0) + delta;
      counts.set(value, count);
      this.criticalPaths[index]!.update(value, count);
    });
  }
}

/** `snapshot`: the snapshot `nodes` is the node list of, whose tallies may then be reused. */
export function computeFilterState(
  podInfo: PodInfo,
  constraints: readonly SpreadConstraint[],
  nodes: readonly NodeInfo[],
  snapshot?: Snapshot,
): SpreadFilterState {
  const pod = podInfo.pod;
  const required = requiredNodeAffinityOf(pod);
  if (
    snapshot !== undefined &&
    constraints.every((constraint) => countsEveryLabelledNode(constraint, required))
  ) {
    // Every node with all the topology labels counts: take the tallies kept across cycles.
    const allKeys = constraints.map((constraint) => constraint.topologyKey);
    const tallied = constraints.map((constraint) => {
      const counts = new Map<string, number>();
      for (const [value, domain] of spreadDomains(snapshot, constraint, podInfo.namespace, allKeys)) {
        if (domain.nodes > 0) counts.set(value, domain.matching);
      }
      return counts;
    });
    return withCriticalPaths(constraints, tallied);
  }
  const memo = snapshot?.memo;
  const counts = constraints.map(() => new Map<string, number>());
  const counters = constraints.map((constraint) =>
    nodeMatchCounter(memo, constraint.selector, podInfo.namespace),
  );
  for (let nodeIndex = 0; nodeIndex < nodes.length; nodeIndex++) {
    const nodeInfo = nodes[nodeIndex]!;
    if (!nodeLabelsMatchSpreadConstraints(nodeInfo.labels, constraints)) continue;
    for (let index = 0; index < constraints.length; index++) {
      const constraint = constraints[index]!;
      if (!matchNodeInclusionPolicies(constraint, pod, nodeInfo, required)) continue;
      const value = nodeInfo.labels[constraint.topologyKey]!;
      const matching = counters[index]!(nodeIndex, nodeInfo);
      const domain = counts[index]!;
      domain.set(value, (domain.get(value) ?? 0) + matching);
    }
  }
  return withCriticalPaths(constraints, counts);
}

function withCriticalPaths(
  constraints: readonly SpreadConstraint[],
  counts: Map<string, number>[],
): SpreadFilterState {
  const criticalPaths = counts.map((domain) => {
    const paths = new CriticalPaths();
    for (const [value, num] of domain) paths.update(value, num);
    return paths;
  });
  return new SpreadFilterState(constraints, counts, criticalPaths);
}

export function filterNode(state: SpreadFilterState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
  const { constraints } = state;
  for (let index = 0; index < constraints.length; index++) {
    const constraint = constraints[index]!;
    const value = nodeInfo.labels[constraint.topologyKey];
    if (value === undefined) return Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH);
    const minMatchNum = state.minMatchNum(index);
    const selfMatchNum = constraint.selector.matches(podInfo.labels) ? 1 : 0;
    const matchNum = state.tpValueToMatchNum[index]!.get(value) ?? 0;
    if (matchNum + selfMatchNum - minMatchNum > constraint.maxSkew) {
      return Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH);
    }
  }
  return null;
}
