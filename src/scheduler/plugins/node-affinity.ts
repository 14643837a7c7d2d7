// NodeAffinity: the pod's nodeSelector and required node affinity must match the node (Filter);
// preferred terms add their weights to the node's score (Score, normalised so the best node gets
// 100). A required affinity naming nodes via matchFields metadata.name narrows the nodes filtered.

import {
  parsePreferredSchedulingTerms,
  type RequiredNodeAffinity,
  requiredNodeAffinityOf,
  type WeightedNodeSelectorTerm,
} from '../../api/scheduling/node-selector.js';
import type { Node } from '../../api/types/core-v1.generated.js';
import type { NodeInfo } from '../cache/node-info.js';
import type { PodInfo } from '../cache/pod-info.js';
import { type CycleState, ImmutableState } from '../framework/cycle-state.js';
import { ActionType } from '../framework/events.js';
import { MAX_NODE_SCORE } from '../framework/framework.js';
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  FilterPlugin,
  PreFilterPlugin,
  PreFilterResult,
  PreScorePlugin,
  ScorePlugin,
} from '../framework/interfaces.js';
import { Status } from '../framework/status.js';
import { defaultNormalizeScore } from './helpers/normalize-score.js';
import { PluginNames } from './names.js';

export const ERR_REASON_POD_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
export const ERR_REASON_AFFINITY_CONFLICT = 'pod affinity terms conflict';

const PRE_FILTER_KEY = `PreFilter${PluginNames.NodeAffinity}`;
const PRE_SCORE_KEY = `PreScore${PluginNames.NodeAffinity}`;

export class NodeAffinity
  implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions
{
  readonly name = PluginNames.NodeAffinity;

  preFilter(state: CycleState, podInfo: PodInfo): PreFilterResult | null {
    const spec = podInfo.pod.spec;
    const required = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    const noNodeAffinity = required === undefined || required === null;
    if (noNodeAffinity && spec?.nodeSelector === undefined) return { status: Status.skip() };
    state.write(
      PRE_FILTER_KEY,
      new ImmutableState<RequiredNodeAffinity>(requiredNodeAffinityOf(podInfo.pod)),
    );
    if (noNodeAffinity) return null;
    // Terms are ORed: only if every term pins metadata.name can the nodes be narrowed.
    let nodeNames: Set<string> | undefined;
    for (const term of required.nodeSelectorTerms ?? []) {
      let termNames: Set<string> | undefined;
      for (const field of term.matchFields ?? []) {
        if (field.key !== 'metadata.name' || field.operator !== 'In') continue;
        const values = new Set(field.values ?? []);
        termNames =
          termNames === undefined ? values : new Set([...termNames].filter((name) => values.has(name)));
      }
      if (termNames === undefined) return null;
      nodeNames = nodeNames === undefined ? termNames : new Set([...nodeNames, ...termNames]);
    }
    if (nodeNames === undefined) return null;
    if (nodeNames.size === 0) return { status: Status.unresolvable(ERR_REASON_AFFINITY_CONFLICT) };
    return { nodeNames };
  }

  filter(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    const required =
      state.read<ImmutableState<RequiredNodeAffinity>>(PRE_FILTER_KEY)?.value ??
      requiredNodeAffinityOf(podInfo.pod);
    return required.matchesNodeInfo(nodeInfo) ? null : Status.unresolvable(ERR_REASON_POD_NODE_AFFINITY);
  }

  preScore(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): Status | null {
    if (nodes.length === 0) return null;
    const preferred =
      podInfo.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
    if (preferred === undefined || preferred === null) return Status.skip();
    state.write(
      PRE_SCORE_KEY,
      new ImmutableState<readonly WeightedNodeSelectorTerm[]>(parsePreferredSchedulingTerms(preferred)),
    );
    return null;
  }

  /** The sum of the weights of the preferred terms the node matches. */
  score(state: CycleState, _podInfo: PodInfo, nodeInfo: NodeInfo): number {
    const preferred = state.require<ImmutableState<readonly WeightedNodeSelectorTerm[]>>(PRE_SCORE_KEY).value;
    let score = 0;
    for (const { term, weight } of preferred)
      if (term.matches(nodeInfo.labels, nodeInfo.name)) score += weight;
    return score;
  }

  normalizeScore(_state: CycleState, _podInfo: PodInfo, scores: Float64Array): Status | null {
    defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel },
        hint: (pod, oldObj, newObj) => {
          const required = requiredNodeAffinityOf(pod);
          const modified = newObj as Node | undefined;
          if (modified === undefined || !required.matchesNode(modified)) return 'QueueSkip';
          const original = oldObj as Node | undefined;
          return original === undefined || !required.matchesNode(original) ? 'Queue' : 'QueueSkip';
        },
      },
    ];
  }
}
