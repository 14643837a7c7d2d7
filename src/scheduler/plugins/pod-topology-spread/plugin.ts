// PodTopologySpread: spreads matching pods across topology domains (zones, hosts …) — hard
// constraints filter, soft ones (and, for pods without constraints, the system defaults) score.
import type { Node, Pod, TopologySpreadConstraint } from '../../../api/types/core-v1.generated.js';
import type { NodeInfo } from '../../cache/node-info.js';
import type { PodInfo } from '../../cache/pod-info.js';
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
  buildDefaultConstraints,
  filterConstraints,
  type SpreadConstraint,
  SYSTEM_DEFAULT_CONSTRAINTS,
} from './constraints.js';
import { computeFilterState, filterNode, SpreadFilterState } from './filtering.js';
import { computeScoreState, normalizeScores, type SpreadScoreState, scoreNode } from './scoring.js';

const PRE_FILTER_KEY = `PreFilter${PluginNames.PodTopologySpread}`;
const PRE_SCORE_KEY = `PreScore${PluginNames.PodTopologySpread}`;

export interface PodTopologySpreadArgs {
  /** 'System' (default): the built-in defaults; 'List': `defaultConstraints`. */
  readonly defaultingType?: 'System' | 'List';
  readonly defaultConstraints?: readonly TopologySpreadConstraint[];
}

export class PodTopologySpread
  implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions
{
  readonly name = PluginNames.PodTopologySpread;
  readonly preFilterExtensions: PreFilterExtensions;
  private readonly systemDefaulted: boolean;
  private readonly defaults: readonly TopologySpreadConstraint[];

  constructor(
    private readonly handle: FrameworkHandle,
    args: PodTopologySpreadArgs = {},
  ) {
    this.systemDefaulted = (args.defaultingType ?? 'System') === 'System';
    this.defaults = this.systemDefaulted ? SYSTEM_DEFAULT_CONSTRAINTS : (args.defaultConstraints ?? []);
    const update = (
      state: CycleState,
      podToSchedule: PodInfo,
      podInfo: PodInfo,
      nodeInfo: NodeInfo,
      delta: number,
    ) => {
      state
        .read<SpreadFilterState>(PRE_FILTER_KEY)
        ?.updateWithPod(podInfo, podToSchedule.pod, nodeInfo, delta);
      return null;
    };
    this.preFilterExtensions = {
      addPod: (state, podToSchedule, podInfo, nodeInfo) => update(state, podToSchedule, podInfo, nodeInfo, 1),
      removePod: (state, podToSchedule, podInfo, nodeInfo) =>
        update(state, podToSchedule, podInfo, nodeInfo, -1),
    };
  }

  private constraintsFor(pod: Pod, action: 'DoNotSchedule' | 'ScheduleAnyway'): SpreadConstraint[] {
    const own = pod.spec?.topologySpreadConstraints ?? [];
    if (own.length > 0) return filterConstraints(own, pod.metadata?.labels, action);
    return buildDefaultConstraints(pod, this.handle.objects, this.defaults, action);
  }

  preFilter(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): PreFilterResult | null {
    const constraints = this.constraintsFor(podInfo.pod, 'DoNotSchedule');
    if (constraints.length === 0) return { status: Status.skip() };
    const snapshot = this.handle.snapshot();
    const own = nodes === snapshot.nodeInfoList || sameNodes(nodes, snapshot.nodeInfoList);
    state.write(PRE_FILTER_KEY, computeFilterState(podInfo, constraints, nodes, own ? snapshot : undefined));
    return null;
  }

  filter(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    const spread = state.read<SpreadFilterState>(PRE_FILTER_KEY);
    if (spread === undefined || spread.constraints.length === 0) return null;
    return filterNode(spread, podInfo, nodeInfo);
  }

  preScore(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): Status | null {
    const snapshot = this.handle.snapshot();
    const allNodes = snapshot.nodeInfoList;
    if (nodes.length === 0 || allNodes.length === 0) return Status.skip();
    const pod = podInfo.pod;
    const constraints = this.constraintsFor(pod, 'ScheduleAnyway');
    if (constraints.length === 0) return Status.skip();
    // System defaults must not exclude nodes lacking a zone label from hostname spreading.
    const requireAllTopologies =
      (pod.spec?.topologySpreadConstraints?.length ?? 0) > 0 || !this.systemDefaulted;
    state.write(
      PRE_SCORE_KEY,
      computeScoreState(podInfo, constraints, nodes, allNodes, requireAllTopologies),
    );
    return null;
  }

  score(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): number {
    return scoreNode(state.require<SpreadScoreState>(PRE_SCORE_KEY), podInfo, nodeInfo);
  }

  normalizeScore(
    state: CycleState,
    _podInfo: PodInfo,
    scores: Float64Array,
    nodes: readonly NodeInfo[],
  ): Status | null {
    const spread = state.read<SpreadScoreState>(PRE_SCORE_KEY);
    if (spread !== undefined) normalizeScores(spread, scores, nodes);
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    const constraintsOf = (pod: Pod) => {
      try {
        return [...this.constraintsFor(pod, 'DoNotSchedule'), ...this.constraintsFor(pod, 'ScheduleAnyway')];
      } catch {
        return [];
      }
    };
    return [
      {
        event: {
          resource: 'Pod',
          actionType:
            ActionType.Add | ActionType.UpdatePodLabel | ActionType.UpdatePodToleration | ActionType.Delete,
        },
        hint: (pod, oldObj, newObj) => {
          const changed = [oldObj, newObj].filter(
            (value): value is Pod => value !== undefined && value !== null,
          );
          if (changed.some((other) => other.metadata?.uid === pod.metadata?.uid)) return 'Queue';
          const namespace = pod.metadata?.namespace ?? '';
          const constraints = constraintsOf(pod);
          for (const other of changed) {
            if ((other.metadata?.namespace ?? '') !== namespace) continue;
            if (constraints.some((constraint) => constraint.selector.matches(other.metadata?.labels)))
              return 'Queue';
          }
          return 'QueueSkip';
        },
      },
      {
        event: {
          resource: 'Node',
          actionType:
            ActionType.Add | ActionType.Delete | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint,
        },
        hint: (pod, oldObj, newObj) => {
          const constraints = constraintsOf(pod);
          const hasKeys = (node: unknown) => {
            const labels = (node as Node | undefined)?.metadata?.labels ?? {};
            return (
              node !== undefined &&
              constraints.every((constraint) => Object.hasOwn(labels, constraint.topologyKey))
            );
          };
          return hasKeys(oldObj) || hasKeys(newObj) ? 'Queue' : 'QueueSkip';
        },
      },
    ];
  }
}

export { SpreadFilterState };

function sameNodes(a: readonly NodeInfo[], b: readonly NodeInfo[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}
