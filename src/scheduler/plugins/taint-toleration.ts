// TaintToleration: NoSchedule / NoExecute taints the pod does not tolerate keep it off a node;
// untolerated PreferNoSchedule taints lower the node's score (fewer is better).

import {
  findMatchingUntoleratedTaint,
  isDoNotScheduleTaint,
  tolerationsTolerateTaint,
} from '../../api/scheduling/taints.js';
import type { Node, Toleration } from '../../api/types/core-v1.generated.js';
import type { NodeInfo } from '../cache/node-info.js';
import type { PodInfo } from '../cache/pod-info.js';
import { type CycleState, ImmutableState } from '../framework/cycle-state.js';
import { ActionType } from '../framework/events.js';
import { MAX_NODE_SCORE } from '../framework/framework.js';
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  FilterPlugin,
  PreScorePlugin,
  ScorePlugin,
} from '../framework/interfaces.js';
import { Status } from '../framework/status.js';
import { defaultNormalizeScore } from './helpers/normalize-score.js';
import { PluginNames } from './names.js';
import { isPodObject } from './scheduling-gates.js';

const PRE_SCORE_KEY = `PreScore${PluginNames.TaintToleration}`;

export function untoleratedTaintReason(key: string, value: string | undefined): string {
  return `node(s) had untolerated taint {${key}: ${value ?? ''}}`;
}

export class TaintToleration implements FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = PluginNames.TaintToleration;

  filter(_state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    if (nodeInfo.taints.length === 0) return null;
    const taint = findMatchingUntoleratedTaint(
      nodeInfo.taints,
      podInfo.pod.spec?.tolerations,
      isDoNotScheduleTaint,
    );
    if (taint === undefined) return null;
    return Status.unresolvable(untoleratedTaintReason(taint.key, taint.value));
  }

  preScore(state: CycleState, podInfo: PodInfo): Status | null {
    const tolerations = (podInfo.pod.spec?.tolerations ?? []).filter(
      (toleration) => !toleration.effect || toleration.effect === 'PreferNoSchedule',
    );
    state.write(PRE_SCORE_KEY, new ImmutableState<readonly Toleration[]>(tolerations));
    return null;
  }

  /** The number of PreferNoSchedule taints the pod does not tolerate. */
  score(state: CycleState, _podInfo: PodInfo, nodeInfo: NodeInfo): number {
    // Runs for every feasible node of every pod: an indexed loop allocates no iterator.
    const taints = nodeInfo.taints;
    if (taints.length === 0) return 0;
    const tolerationsPreferNoSchedule =
      state.require<ImmutableState<readonly Toleration[]>>(PRE_SCORE_KEY).value;
    let count = 0;
    for (let index = 0; index < taints.length; index++) {
      const taint = taints[index]!;
      if (taint.effect !== 'PreferNoSchedule') continue;
      if (!tolerationsTolerateTaint(tolerationsPreferNoSchedule, taint)) count++;
    }
    return count;
  }

  normalizeScore(_state: CycleState, _podInfo: PodInfo, scores: Float64Array): Status | null {
    defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeTaint },
        hint: (pod, oldObj, newObj) => {
          const modified = newObj as Node | undefined;
          if (modified === undefined) return 'QueueSkip';
          const tolerations = pod.spec?.tolerations;
          const untolerated = (node: Node) =>
            findMatchingUntoleratedTaint(node.spec?.taints ?? [], tolerations, isDoNotScheduleTaint) !==
            undefined;
          if (untolerated(modified)) return 'QueueSkip';
          const original = oldObj as Node | undefined;
          return original === undefined || untolerated(original) ? 'Queue' : 'QueueSkip';
        },
      },
      {
        event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodToleration },
        hint: (pod, _oldObj, newObj) =>
          isPodObject(newObj) && newObj.metadata?.uid === pod.metadata?.uid ? 'Queue' : 'QueueSkip',
      },
    ];
  }
}
