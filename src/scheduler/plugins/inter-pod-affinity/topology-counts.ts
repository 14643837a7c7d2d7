// Counts per topology pair (key, value) — interpodaffinity's topologyToMatchedTermCount — kept as
// nested maps so that looking a node's labels up allocates nothing.
import type { Pod } from '../../../api/types/core-v1.generated.js';
import type { AffinityTerm } from '../../cache/affinity-term.js';

type Labels = Readonly<Record<string, string>>;

export class TopologyCounts {
  private readonly counts = new Map<string, Map<string, number>>();
  private pairs = 0;

  get size(): number {
    return this.pairs;
  }

  get(key: string, value: string): number {
    return this.counts.get(key)?.get(value) ?? 0;
  }

  /** Adds `delta` to the node's value of `key`; entries reaching 0 are removed. */
  update(nodeLabels: Labels, key: string, delta: number): void {
    const value = nodeLabels[key];
    if (value !== undefined) this.addPair(key, value, delta);
  }

  /** Adds `delta` to an explicit pair. */
  addPair(key: string, value: string, delta: number): void {
    let values = this.counts.get(key);
    if (values === undefined) {
      values = new Map();
      this.counts.set(key, values);
    }
    const before = values.get(value);
    const after = (before ?? 0) + delta;
    if (after === 0) {
      if (before !== undefined) {
        values.delete(value);
        this.pairs--;
        if (values.size === 0) this.counts.delete(key);
      }
      return;
    }
    if (before === undefined) this.pairs++;
    values.set(value, after);
  }

  eachPair(visit: (key: string, value: string, count: number) => void): void {
    for (const [key, values] of this.counts) for (const [value, count] of values) visit(key, value, count);
  }

  /** True when any of the node's labels is a pair with a positive count. */
  anyPositiveFor(nodeLabels: Labels): boolean {
    for (const [key, values] of this.counts) {
      const value = nodeLabels[key];
      if (value !== undefined && (values.get(value) ?? 0) > 0) return true;
    }
    return false;
  }

  /** For each anti-affinity term matching `pod`, counts the node's topology pair. */
  updateWithAntiAffinityTerms(
    terms: readonly AffinityTerm[],
    pod: Pod,
    namespaceLabels: Labels | undefined,
    nodeLabels: Labels,
    delta: number,
  ): void {
    for (const term of terms) {
      if (term.matches(pod, namespaceLabels)) this.update(nodeLabels, term.topologyKey, delta);
    }
  }

  /** When `pod` matches all the affinity terms, counts the node's pair of each term. */
  updateWithAffinityTerms(terms: readonly AffinityTerm[], pod: Pod, nodeLabels: Labels, delta: number): void {
    if (!podMatchesAllAffinityTerms(terms, pod)) return;
    for (const term of terms) this.update(nodeLabels, term.topologyKey, delta);
  }

  clone(): TopologyCounts {
    const copy = new TopologyCounts();
    for (const [key, values] of this.counts) copy.counts.set(key, new Map(values));
    copy.pairs = this.pairs;
    return copy;
  }
}

/** The incoming pod's terms have their namespace selectors merged in, so no labels are needed. */
export function podMatchesAllAffinityTerms(terms: readonly AffinityTerm[], pod: Pod): boolean {
  if (terms.length === 0) return false;
  for (const term of terms) if (!term.matches(pod, undefined)) return false;
  return true;
}
