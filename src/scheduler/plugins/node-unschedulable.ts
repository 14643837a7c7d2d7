// NodeUnschedulable: cordoned nodes (spec.unschedulable) take no pods, except pods tolerating the
// node.kubernetes.io/unschedulable:NoSchedule taint.

import { tolerationsTolerateTaint } from '../../api/scheduling/taints.js';
import type { Node } from '../../api/types/core-v1.generated.js';
import type { NodeInfo } from '../cache/node-info.js';
import type { PodInfo } from '../cache/pod-info.js';
import type { CycleState } from '../framework/cycle-state.js';
import { ActionType } from '../framework/events.js';
import type { ClusterEventWithHint, EnqueueExtensions, FilterPlugin } from '../framework/interfaces.js';
import { Status } from '../framework/status.js';
import { PluginNames } from './names.js';

export const ERR_REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
export const ERR_REASON_UNKNOWN_CONDITION = 'node(s) had unknown conditions';
const UNSCHEDULABLE_TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

export class NodeUnschedulable implements FilterPlugin, EnqueueExtensions {
  readonly name = PluginNames.NodeUnschedulable;

  filter(_state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    const node = nodeInfo.node;
    if (node === null) return Status.unresolvable(ERR_REASON_UNKNOWN_CONDITION);
    if (!node.spec?.unschedulable) return null;
    if (tolerationsTolerateTaint(podInfo.pod.spec?.tolerations, UNSCHEDULABLE_TAINT)) return null;
    return Status.unresolvable(ERR_REASON_UNSCHEDULABLE);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeTaint },
        hint: (_pod, oldObj, newObj) => {
          const modified = newObj as Node | undefined;
          const original = oldObj as Node | undefined;
          if (modified === undefined || modified.spec?.unschedulable) return 'QueueSkip';
          if (original !== undefined && !original.spec?.unschedulable) return 'QueueSkip';
          return 'Queue';
        },
      },
    ];
  }
}
