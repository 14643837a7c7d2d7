// InterPodAffinity: required pod affinity / anti-affinity (of the incoming pod and of the pods
// already placed) filter nodes; preferred terms score them. Terms reach other namespaces through
// `namespaces` and `namespaceSelector`.
import { LabelSelector } from '../../../api/selectors/index.js';
import type { Pod } from '../../../api/types/core-v1.generated.js';
import type { AffinityTerm, WeightedAffinityTerm } from '../../cache/affinity-term.js';
import type { NodeInfo } from '../../cache/node-info.js';
import type { PodInfo } from '../../cache/pod-info.js';
import { PodInfo as PodInfoClass } from '../../cache/pod-info.js';
import type { CycleState } from '../../framework/cycle-state.js';
import { ActionType } from '../../framework/events.js';
import type { FrameworkHandle } from '../../framework/handle.js';
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  FilterPlugin,
  PreFilterExtensions,
  PreFilterPlugin,
  PreFilterResult,
  PreScorePlugin,
  ScorePlugin,
} from '../../framework/interfaces.js';
import { Status } from '../../framework/status.js';
import { PluginNames } from '../names.js';
import {
  AffinityFilterState,
  ERR_REASON_AFFINITY,
  ERR_REASON_ANTI_AFFINITY,
  ERR_REASON_EXISTING_ANTI_AFFINITY,
  satisfyExistingPodsAntiAffinity,
  satisfyPodAffinity,
  satisfyPodAntiAffinity,
} from './filtering.js';
import {
  ExistingTermsIndex,
  MatchingPodsIndex,
  matchingPodsKey,
  requiredAntiAffinityTermsOf,
  scoringTermsOf,
} from './indexes.js';
import { AffinityScoreState, normalizeScores, scoreNode, type TopologyScore } from './scoring.js';
import { TopologyCounts } from './topology-counts.js';

const PRE_FILTER_KEY = `PreFilter${PluginNames.InterPodAffinity}`;
const PRE_SCORE_KEY = `PreScore${PluginNames.InterPodAffinity}`;

export interface InterPodAffinityArgs {
  /** Weight of an existing pod's required affinity term when scoring (default 1). */
  readonly hardPodAffinityWeight?: number;
  /** Skip existing pods' preferred terms when the incoming pod has no preferred terms. */
  readonly ignorePreferredTermsOfExistingPods?: boolean;
}

export class InterPodAffinity
  implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions
{
  readonly name = PluginNames.InterPodAffinity;
  readonly preFilterExtensions: PreFilterExtensions;
  private readonly hardPodAffinityWeight: number;
  private readonly ignorePreferredTermsOfExistingPods: boolean;

  constructor(
    private readonly handle: FrameworkHandle,
    args: InterPodAffinityArgs = {},
  ) {
    this.hardPodAffinityWeight = args.hardPodAffinityWeight ?? 1;
    this.ignorePreferredTermsOfExistingPods = args.ignorePreferredTermsOfExistingPods ?? false;
    const update = (state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo, delta: number) => {
      state.read<AffinityFilterState>(PRE_FILTER_KEY)?.updateWithPod(podInfo, nodeInfo, delta);
      return null;
    };
    this.preFilterExtensions = {
      addPod: (state, _podToSchedule, podInfo, nodeInfo) => update(state, podInfo, nodeInfo, 1),
      removePod: (state, _podToSchedule, podInfo, nodeInfo) => update(state, podInfo, nodeInfo, -1),
    };
  }

  /** A term whose namespaceSelector selects namespaces gets their names merged in instead. */
  private mergeNamespaces(term: AffinityTerm): AffinityTerm {
    const selector = term.namespaceSelector;
    if (selector.isEmpty() || selector.selectsNothing) return term;
    const merged = term.copy();
    const names = new Set(merged.namespaces);
    for (const namespace of this.handle.objects.namespaces.list()) {
      if (selector.matches(namespace.metadata?.labels)) names.add(namespace.metadata?.name ?? '');
    }
    merged.namespaces = names;
    merged.namespaceSelector = LabelSelector.nothing();
    return merged;
  }

  private mergeWeighted(terms: readonly WeightedAffinityTerm[]): WeightedAffinityTerm[] {
    return terms.map(({ term, weight }) => ({ term: this.mergeNamespaces(term), weight }));
  }

  preFilter(state: CycleState, podInfo: PodInfo): PreFilterResult | null {
    if (podInfo.parseError !== undefined) {
      return { status: Status.unresolvable(`parsing pod: ${podInfo.parseError}`) };
    }
    const snapshot = this.handle.snapshot();
    const pod = podInfo.pod;
    const namespaceLabels = this.handle.objects.namespaceLabels(podInfo.namespace);
    const affinityTerms = podInfo.requiredAffinityTerms.map((term) => this.mergeNamespaces(term));
    const antiAffinityTerms = podInfo.requiredAntiAffinityTerms.map((term) => this.mergeNamespaces(term));

    // Pairs where an existing pod's required anti-affinity matches this pod.
    const existingAntiAffinity = new TopologyCounts();
    const existing = snapshot.aggregate(
      'ipa-existing-required-anti',
      () => new ExistingTermsIndex(requiredAntiAffinityTermsOf),
    );
    for (const { term, pairs } of existing.entries.values()) {
      if (pairs.size === 0 || !term.matches(pod, namespaceLabels)) continue;
      pairs.eachPair((key, value, count) => existingAntiAffinity.addPair(key, value, count));
    }
    // Pairs holding pods that match all the affinity terms, and each anti-affinity term.
    const affinityCounts =
      affinityTerms.length === 0 ? new TopologyCounts() : this.matching(affinityTerms, true).clone();
    const antiAffinityCounts = new TopologyCounts();
    for (const term of antiAffinityTerms) {
      this.matching([term], false).eachPair((key, value, count) =>
        antiAffinityCounts.addPair(key, value, count),
      );
    }
    if (existingAntiAffinity.size === 0 && affinityTerms.length === 0 && antiAffinityTerms.length === 0) {
      return { status: Status.skip() };
    }
    state.write(
      PRE_FILTER_KEY,
      new AffinityFilterState(
        podInfo,
        affinityTerms,
        antiAffinityTerms,
        namespaceLabels,
        existingAntiAffinity,
        affinityCounts,
        antiAffinityCounts,
      ),
    );
    return null;
  }

  /** Pairs of the pods matching the terms, tallied across cycles. */
  private matching(terms: readonly AffinityTerm[], all: boolean): TopologyCounts {
    return this.handle
      .snapshot()
      .aggregate(matchingPodsKey(terms, all), () => new MatchingPodsIndex(terms, all)).pairs;
  }

  filter(state: CycleState, _podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    const affinity = state.require<AffinityFilterState>(PRE_FILTER_KEY);
    if (!satisfyPodAffinity(affinity, nodeInfo)) return Status.unresolvable(ERR_REASON_AFFINITY);
    if (!satisfyPodAntiAffinity(affinity, nodeInfo)) return Status.unschedulable(ERR_REASON_ANTI_AFFINITY);
    if (!satisfyExistingPodsAntiAffinity(affinity, nodeInfo))
      return Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY);
    return null;
  }

  preScore(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): Status | null {
    if (nodes.length === 0) return null;
    const hasConstraints =
      podInfo.preferredAffinityTerms.length > 0 || podInfo.preferredAntiAffinityTerms.length > 0;
    if (this.ignorePreferredTermsOfExistingPods && !hasConstraints) return Status.skip();
    const snapshot = this.handle.snapshot();
    const namespaceLabels = this.handle.objects.namespaceLabels(podInfo.namespace);
    const topologyScore: TopologyScore = new Map();
    const add = (key: string, value: string, weight: number) => {
      let values = topologyScore.get(key);
      if (values === undefined) {
        values = new Map();
        topologyScore.set(key, values);
      }
      values.set(value, (values.get(value) ?? 0) + weight);
    };
    // Existing pods' terms the incoming pod matches: required affinity at hardPodAffinityWeight,
    // preferred (anti-)affinity at their weights, once per pod carrying them.
    const existing = snapshot.aggregate('ipa-existing-scoring', () => new ExistingTermsIndex(scoringTermsOf));
    for (const { term, weight, hard, pairs } of existing.entries.values()) {
      if (pairs.size === 0) continue;
      const perPod = hard ? this.hardPodAffinityWeight : weight;
      if (perPod === 0 || !term.matches(podInfo.pod, namespaceLabels)) continue;
      pairs.eachPair((key, value, count) => add(key, value, perPod * count));
    }
    // The incoming pod's preferred terms, against the pods they match.
    for (const { term, weight } of this.mergeWeighted(podInfo.preferredAffinityTerms)) {
      this.matching([term], false).eachPair((key, value, count) => add(key, value, weight * count));
    }
    for (const { term, weight } of this.mergeWeighted(podInfo.preferredAntiAffinityTerms)) {
      this.matching([term], false).eachPair((key, value, count) => add(key, value, -weight * count));
    }
    if (topologyScore.size === 0) return Status.skip();
    state.write(PRE_SCORE_KEY, new AffinityScoreState(topologyScore));
    return null;
  }

  score(state: CycleState, _podInfo: PodInfo, nodeInfo: NodeInfo): number {
    return scoreNode(state.require<AffinityScoreState>(PRE_SCORE_KEY), nodeInfo);
  }

  normalizeScore(state: CycleState, _podInfo: PodInfo, scores: Float64Array): Status | null {
    normalizeScores(state.read<AffinityScoreState>(PRE_SCORE_KEY), scores);
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: {
          resource: 'Pod',
          actionType: ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete,
        },
        hint: (pod, oldObj, newObj) => {
          const target = new PodInfoClass(pod);
          const namespaceLabels = this.handle.objects.namespaceLabels(target.namespace);
          const added = newObj as Pod | undefined;
          if (
            added !== undefined &&
            target.requiredAffinityTerms.some((term) => term.matches(added, undefined))
          ) {
            return 'Queue';
          }
          const removed = oldObj as Pod | undefined;
          if (removed === undefined) return 'QueueSkip';
          if (target.requiredAntiAffinityTerms.some((term) => term.matches(removed, undefined)))
            return 'Queue';
          const removedInfo = new PodInfoClass(removed);
          return removedInfo.requiredAntiAffinityTerms.some((term) => term.matches(pod, namespaceLabels))
            ? 'Queue'
            : 'QueueSkip';
        },
      },
      { event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel } },
    ];
  }
}
