// PodTopologySpread scoring: for ScheduleAnyway constraints (or the system defaults), a node
// scores by the matching pods in its domains, weighted by log(number of domains + 2); fewer is
// better after normalisation. Hostname domains are counted per node during Score; other domains
// once in PreScore over all nodes.

import { requiredNodeAffinityOf } from '../../../api/scheduling/node-selector.js';
import type { MemoTables } from '../../cache/memo-table.js';
import type { NodeInfo } from '../../cache/node-info.js';
import type { PodInfo } from '../../cache/pod-info.js';
import type { StateData } from '../../framework/cycle-state.js';
import { MAX_NODE_SCORE } from '../../framework/framework.js';
import {
  countPodsMatchSelector,
  LABEL_HOSTNAME,
  matchNodeInclusionPolicies,
  nodeLabelsMatchSpreadConstraints,
  nodeMatchCounter,
  type SpreadConstraint,
} from './constraints.js';

export class SpreadScoreState implements StateData {
  constructor(
    readonly constraints: readonly SpreadConstraint[],
    /** Filtered nodes lacking a topology label: they score 0. */
    readonly ignoredNodes: ReadonlySet<string>,
    /** Per constraint: topology value → matching pods (hostname constraints stay empty). */
    readonly topologyValueToPodCounts: Map<string, number>[],
    readonly topologyNormalizingWeight: readonly number[],
  ) {}

  clone(): StateData {
    return this;
  }
}

export function topologyNormalizingWeight(size: number): number {
  return Math.log(size + 2);
}

export function scoreForCount(count: number, maxSkew: number, weight: number): number {
  return count * weight + (maxSkew - 1);
}

export function computeScoreState(
  podInfo: PodInfo,
  constraints: readonly SpreadConstraint[],
  filteredNodes: readonly NodeInfo[],
  allNodes: readonly NodeInfo[],
  requireAllTopologies: boolean,
  memo?: MemoTables,
): SpreadScoreState {
  const ignored = new Set<string>();
  const counts = constraints.map(() => new Map<string, number>());
  const topoSize = constraints.map(() => 0);
  for (const nodeInfo of filteredNodes) {
    if (requireAllTopologies && !nodeLabelsMatchSpreadConstraints(nodeInfo.labels, constraints)) {
      ignored.add(nodeInfo.name);
      continue;
    }
    constraints.forEach((constraint, index) => {
      if (constraint.topologyKey === LABEL_HOSTNAME) return;
      const value = nodeInfo.labels[constraint.topologyKey] ?? '';
      const domain = counts[index]!;
      if (!domain.has(value)) {
        domain.set(value, 0);
        topoSize[index]!++;
      }
    });
  }
  const weights = constraints.map((constraint, index) =>
    topologyNormalizingWeight(
      constraint.topologyKey === LABEL_HOSTNAME ? filteredNodes.length - ignored.size : topoSize[index]!,
    ),
  );
  const pod = podInfo.pod;
  const required = requiredNodeAffinityOf(pod);
  const counters = constraints.map((constraint) =>
    nodeMatchCounter(memo, constraint.selector, podInfo.namespace),
  );
  for (let nodeIndex = 0; nodeIndex < allNodes.length; nodeIndex++) {
    const nodeInfo = allNodes[nodeIndex]!;
    if (requireAllTopologies && !nodeLabelsMatchSpreadConstraints(nodeInfo.labels, constraints)) continue;
    for (let index = 0; index < constraints.length; index++) {
      const constraint = constraints[index]!;
      if (!matchNodeInclusionPolicies(constraint, pod, nodeInfo, required)) continue;
      const value = nodeInfo.labels[constraint.topologyKey] ?? '';
      const domain = counts[index]!;
      const current = domain.get(value);
      // Domains without a candidate node need no count; hostname counts happen in Score.
      if (current === undefined) continue;
      const matching = counters[index]!(nodeIndex, nodeInfo);
      domain.set(value, current + matching);
    }
  }
  return new SpreadScoreState(constraints, ignored, counts, weights);
}

export function scoreNode(state: SpreadScoreState, podInfo: PodInfo, nodeInfo: NodeInfo): number {
  if (state.ignoredNodes.has(nodeInfo.name)) return 0;
  let score = 0;
  const { constraints } = state;
  for (let index = 0; index < constraints.length; index++) {
    const constraint = constraints[index]!;
    const value = nodeInfo.labels[constraint.topologyKey];
    if (value === undefined) continue;
    const count =
      constraint.topologyKey === LABEL_HOSTNAME
        ? countPodsMatchSelector(nodeInfo.pods, constraint.selector, podInfo.namespace)
        : (state.topologyValueToPodCounts[index]!.get(value) ?? 0);
    score += scoreForCount(count, constraint.maxSkew, state.topologyNormalizingWeight[index]!);
  }
  return Math.round(score);
}

/** Fewer matching pods score higher; nodes ignored in PreScore get 0. */
export function normalizeScores(
  state: SpreadScoreState,
  scores: Float64Array,
  nodes: readonly NodeInfo[],
): void {
  let minScore = Number.MAX_SAFE_INTEGER;
  let maxScore = 0;
  for (let index = 0; index < scores.length; index++) {
    if (state.ignoredNodes.has(nodes[index]!.name)) continue;
    const score = scores[index]!;
    if (score < minScore) minScore = score;
    if (score > maxScore) maxScore = score;
  }
  for (let index = 0; index < scores.length; index++) {
    if (state.ignoredNodes.has(nodes[index]!.name)) {
      scores[index] = 0;
      continue;
    }
    if (maxScore === 0) {
      scores[index] = MAX_NODE_SCORE;
      continue;
    }
    scores[index] = Math.trunc((MAX_NODE_SCORE * (maxScore + minScore - scores[index]!)) / maxScore);
  }
}
