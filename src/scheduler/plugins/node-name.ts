// NodeName: a pod that names its node (spec.nodeName) fits only that node.
import type { Node } from '../../api/types/core-v1.generated.js';
import type { NodeInfo } from '../cache/node-info.js';
import type { PodInfo } from '../cache/pod-info.js';
import type { CycleState } from '../framework/cycle-state.js';
import { ActionType } from '../framework/events.js';
import type { ClusterEventWithHint, EnqueueExtensions, FilterPlugin } from '../framework/interfaces.js';
import { Status } from '../framework/status.js';
import { PluginNames } from './names.js';

export const ERR_REASON_NODE_NAME = "node(s) didn't match the requested node name";

export class NodeName implements FilterPlugin, EnqueueExtensions {
  readonly name = PluginNames.NodeName;

  filter(_state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    const wanted = podInfo.pod.spec?.nodeName;
    if (!wanted || wanted === nodeInfo.name) return null;
    return Status.unresolvable(ERR_REASON_NODE_NAME);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add },
        hint: (pod, _oldObj, newObj) => {
          const node = newObj as Node | undefined;
          const wanted = pod.spec?.nodeName;
          return !wanted || wanted === node?.metadata?.name ? 'Queue' : 'QueueSkip';
        },
      },
    ];
  }
}
