// InterPodAffinity scoring: the weights PreScore gathered per topology pair become a node's score
// through its labels; scores are then stretched to 0..100.
import type { NodeInfo } from '../../cache/node-info.js';
import type { StateData } from '../../framework/cycle-state.js';

/** topology key → value → accumulated weight. */
export type TopologyScore = Map<string, Map<string, number>>;

export class AffinityScoreState implements StateData {
  constructor(readonly topologyScore: TopologyScore) {}
  clone(): StateData {
    return this;
  }
}

export function scoreNode(state: AffinityScoreState, nodeInfo: NodeInfo): number {
  let score = 0;
  for (const [key, values] of state.topologyScore) {
    const value = nodeInfo.labels[key];
    if (value !== undefined) score += values.get(value) ?? 0;
  }
  return score;
}

export function normalizeScores(state: AffinityScoreState | undefined, scores: Float64Array): void {
  if (state === undefined || state.topologyScore.size === 0) return;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const score of scores) {
    if (score > max) max = score;
    if (score < min) min = score;
  }
  const spread = max - min;
  for (let index = 0; index < scores.length; index++) {
    scores[index] = spread > 0 ? Math.trunc(100 * ((scores[index]! - min) / spread)) : 0;
  }
}
