// Tallies of where pods and their affinity terms are, kept current across cycles (see
// cache/aggregates): existing pods' terms grouped by term, and, per term of an incoming pod, the
// topology pairs of the pods it matches.
import type { AffinityTerm } from '../../cache/affinity-term.js';
import type { Aggregate, SnapshotChange } from '../../cache/aggregates.js';
import { affinityTermKey } from '../../cache/memo-keys.js';
import type { PodInfo } from '../../cache/pod-info.js';
import { podMatchesAllAffinityTerms, TopologyCounts } from './topology-counts.js';

export interface ExistingTerm {
  readonly term: AffinityTerm;
  /** For scoring: the term's weight, negative for anti-affinity; `hard` for required affinity. */
  readonly weight: number;
  readonly hard: boolean;
  /** Where pods carrying the term run (pairs of the term's topology key), with multiplicity. */
  readonly pairs: TopologyCounts;
}

interface TermOf {
  readonly term: AffinityTerm;
  readonly weight: number;
  readonly hard: boolean;
}

/** Existing pods' terms of one kind, grouped by equal terms. */
export class ExistingTermsIndex implements Aggregate {
  readonly entries = new Map<string, ExistingTerm>();

  constructor(private readonly termsOf: (podInfo: PodInfo) => readonly TermOf[]) {}

  apply(change: SnapshotChange): void {
    if (change.kind !== 'pod') return;
    for (const { term, weight, hard } of this.termsOf(change.podInfo)) {
      const key = `${hard ? 'hard' : weight}:${affinityTermKey(term)}`;
      let entry = this.entries.get(key);
      if (entry === undefined) {
        entry = { term, weight, hard, pairs: new TopologyCounts() };
        this.entries.set(key, entry);
      }
      entry.pairs.update(change.labels, term.topologyKey, change.delta);
    }
  }
}

const NONE: readonly TermOf[] = [];

/** Existing pods' required anti-affinity terms. */
export function requiredAntiAffinityTermsOf(podInfo: PodInfo): readonly TermOf[] {
  if (podInfo.requiredAntiAffinityTerms.length === 0) return NONE;
  return podInfo.requiredAntiAffinityTerms.map((term) => ({ term, weight: 1, hard: false }));
}

/** Existing pods' terms that score an incoming pod: required affinity (hard), preferred (anti-)affinity. */
export function scoringTermsOf(podInfo: PodInfo): readonly TermOf[] {
  if (
    podInfo.requiredAffinityTerms.length === 0 &&
    podInfo.preferredAffinityTerms.length === 0 &&
    podInfo.preferredAntiAffinityTerms.length === 0
  ) {
    return NONE;
  }
  return [
    ...podInfo.requiredAffinityTerms.map((term) => ({ term, weight: 1, hard: true })),
    ...podInfo.preferredAffinityTerms.map(({ term, weight }) => ({ term, weight, hard: false })),
    ...podInfo.preferredAntiAffinityTerms.map(({ term, weight }) => ({ term, weight: -weight, hard: false })),
  ];
}

/**
 * The pairs (of the terms' topology keys) of pods matching `terms`: each term on its own
 * (`all` false), or pods matching all of them, counted for each term (`all` true).
 */
export class MatchingPodsIndex implements Aggregate {
  readonly pairs = new TopologyCounts();

  constructor(
    private readonly terms: readonly AffinityTerm[],
    private readonly all: boolean,
  ) {}

  apply(change: SnapshotChange): void {
    if (change.kind !== 'pod') return;
    const pod = change.podInfo.pod;
    if (this.all) {
      if (!podMatchesAllAffinityTerms(this.terms, pod)) return;
      for (const term of this.terms) this.pairs.update(change.labels, term.topologyKey, change.delta);
      return;
    }
    const term = this.terms[0]!;
    // The incoming pod's terms have their namespace selectors merged in: no labels needed.
    if (term.matches(pod, undefined)) this.pairs.update(change.labels, term.topologyKey, change.delta);
  }
}

export function matchingPodsKey(terms: readonly AffinityTerm[], all: boolean): string {
  return `ipa-match:${all ? 'all' : 'one'}:${terms.map(affinityTermKey).join(';')}`;
}
