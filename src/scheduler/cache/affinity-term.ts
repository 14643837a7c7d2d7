// A pod (anti-)affinity term with its selectors parsed once (framework.AffinityTerm).
import { type LabelSelector, type Labels, labelSelectorFromObject } from '../../api/selectors/index.js';
import type { Pod, PodAffinityTerm, WeightedPodAffinityTerm } from '../../api/types/core-v1.generated.js';

export class AffinityTerm {
  constructor(
    /** Namespaces named by the term (the pod's own when neither namespaces nor a selector is given). */
    public namespaces: ReadonlySet<string>,
    readonly selector: LabelSelector,
    readonly topologyKey: string,
    /** Selects namespaces by their labels; `nothing` when the term has none. */
    public namespaceSelector: LabelSelector,
  ) {}

  /** The term applies to `pod` when its namespace is named or selected and its labels match. */
  matches(pod: Pod, namespaceLabels: Labels): boolean {
    const namespace = pod.metadata?.namespace ?? '';
    if (this.namespaces.has(namespace) || this.namespaceSelector.matches(namespaceLabels)) {
      return this.selector.matches(pod.metadata?.labels);
    }
    return false;
  }

  /** A copy whose namespace set may be extended (PreFilter merges selected namespaces in). */
  copy(): AffinityTerm {
    return new AffinityTerm(
      new Set(this.namespaces),
      this.selector,
      this.topologyKey,
      this.namespaceSelector,
    );
  }
}

export interface WeightedAffinityTerm {
  readonly term: AffinityTerm;
  readonly weight: number;
}

function namespacesOf(pod: Pod, term: PodAffinityTerm): Set<string> {
  const names = term.namespaces ?? [];
  if (names.length === 0 && (term.namespaceSelector === undefined || term.namespaceSelector === null)) {
    return new Set([pod.metadata?.namespace ?? '']);
  }
  return new Set(names);
}

/** Parses a term; throws a SelectorError for selectors Kubernetes would not parse either. */
export function newAffinityTerm(pod: Pod, term: PodAffinityTerm): AffinityTerm {
  return new AffinityTerm(
    namespacesOf(pod, term),
    labelSelectorFromObject(term.labelSelector),
    term.topologyKey,
    labelSelectorFromObject(term.namespaceSelector),
  );
}

export function affinityTermsOf(pod: Pod, terms: readonly PodAffinityTerm[] | undefined): AffinityTerm[] {
  return (terms ?? []).map((term) => newAffinityTerm(pod, term));
}

/** Terms with weight 0 are dropped, as Kubernetes drops them. */
export function weightedAffinityTermsOf(
  pod: Pod,
  terms: readonly WeightedPodAffinityTerm[] | undefined,
): WeightedAffinityTerm[] {
  const result: WeightedAffinityTerm[] = [];
  for (const weighted of terms ?? []) {
    if (weighted.weight === 0) continue;
    result.push({ term: newAffinityTerm(pod, weighted.podAffinityTerm), weight: weighted.weight });
  }
  return result;
}
