// InterPodAffinity filtering: the pod's required affinity must find matching pods in the node's
// domain (or, for the first of a group, match itself); its required anti-affinity must find none;
// and no existing pod's required anti-affinity may match it in that domain.

import type { AffinityTerm } from '../../cache/affinity-term.js';
import type { NodeInfo } from '../../cache/node-info.js';
import type { PodInfo } from '../../cache/pod-info.js';
import type { StateData } from '../../framework/cycle-state.js';
import { podMatchesAllAffinityTerms, type TopologyCounts } from './topology-counts.js';

export const ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";

type Labels = Readonly<Record<string, string>>;

export class AffinityFilterState implements StateData {
  constructor(
    readonly podInfo: PodInfo,
    /** The pod's required terms with selected namespaces merged into their namespace sets. */
    readonly requiredAffinityTerms: readonly AffinityTerm[],
    readonly requiredAntiAffinityTerms: readonly AffinityTerm[],
    readonly namespaceLabels: Labels | undefined,
    /** Pairs where an existing pod's anti-affinity matches the incoming pod. */
    readonly existingAntiAffinityCounts: TopologyCounts,
    /** Pairs holding pods that match all the incoming pod's affinity terms. */
    readonly affinityCounts: TopologyCounts,
    /** Pairs holding pods matching the incoming pod's anti-affinity terms. */
    readonly antiAffinityCounts: TopologyCounts,
  ) {}

  clone(): AffinityFilterState {
    return new AffinityFilterState(
      this.podInfo,
      this.requiredAffinityTerms,
      this.requiredAntiAffinityTerms,
      this.namespaceLabels,
      this.existingAntiAffinityCounts.clone(),
      this.affinityCounts.clone(),
      this.antiAffinityCounts.clone(),
    );
  }

  updateWithPod(other: PodInfo, nodeInfo: NodeInfo, delta: number): void {
    const labels = nodeInfo.labels;
    const pod = this.podInfo.pod;
    this.existingAntiAffinityCounts.updateWithAntiAffinityTerms(
      other.requiredAntiAffinityTerms,
      pod,
      this.namespaceLabels,
      labels,
      delta,
    );
    this.affinityCounts.updateWithAffinityTerms(this.requiredAffinityTerms, other.pod, labels, delta);
    this.antiAffinityCounts.updateWithAntiAffinityTerms(
      this.requiredAntiAffinityTerms,
      other.pod,
      undefined,
      labels,
      delta,
    );
  }
}

export function satisfyExistingPodsAntiAffinity(state: AffinityFilterState, nodeInfo: NodeInfo): boolean {
  return (
    state.existingAntiAffinityCounts.size === 0 ||
    !state.existingAntiAffinityCounts.anyPositiveFor(nodeInfo.labels)
  );
}

export function satisfyPodAntiAffinity(state: AffinityFilterState, nodeInfo: NodeInfo): boolean {
  if (state.antiAffinityCounts.size === 0) return true;
  for (let index = 0; index < state.requiredAntiAffinityTerms.length; index++) {
    const term = state.requiredAntiAffinityTerms[index]!;
    const value = nodeInfo.labels[term.topologyKey];
    if (value !== undefined && state.antiAffinityCounts.get(term.topologyKey, value) > 0) return false;
  }
  return true;
}

export function satisfyPodAffinity(state: AffinityFilterState, nodeInfo: NodeInfo): boolean {
  // Runs for every node a pod is filtered against, most often with no terms: indexed loops
  // allocate no iterator.
  const terms = state.requiredAffinityTerms;
  if (terms.length === 0) return true;
  let podsExist = true;
  for (let index = 0; index < terms.length; index++) {
    const term = terms[index]!;
    const value = nodeInfo.labels[term.topologyKey];
    // Every topology label the terms name must exist on the node.
    if (value === undefined) return false;
    if (state.affinityCounts.get(term.topologyKey, value) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  // The first pod of a group with affinity to itself may go anywhere that has the topologies, as
  // long as no pod in the cluster matches the terms yet.
  return (
    state.affinityCounts.size === 0 &&
    podMatchesAllAffinityTerms(state.requiredAffinityTerms, state.podInfo.pod)
  );
}
