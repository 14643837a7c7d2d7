// NodePorts: the pod's host ports (containers and sidecars) must be free on the node.

import { HostPortInfo, hostPortsOf } from '../../api/host-ports.js';
import type { ContainerPort, Pod } from '../../api/types/core-v1.generated.js';
import type { NodeInfo } from '../cache/node-info.js';
import type { PodInfo } from '../cache/pod-info.js';
import type { CycleState } from '../framework/cycle-state.js';
import { ActionType } from '../framework/events.js';
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  FilterPlugin,
  PreFilterPlugin,
  PreFilterResult,
} from '../framework/interfaces.js';
import { Status } from '../framework/status.js';
import { PluginNames } from './names.js';

export const ERR_REASON_NODE_PORTS = "node(s) didn't have free ports for the requested pod ports";

/** Whether every wanted port is free among the node's used ports. */
export function fitsPorts(wanted: readonly ContainerPort[], used: HostPortInfo): boolean {
  for (const port of wanted) {
    if (used.checkConflict(port.hostIP, port.protocol, port.hostPort ?? 0)) return false;
  }
  return true;
}

export class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = PluginNames.NodePorts;

  preFilter(_state: CycleState, podInfo: PodInfo): PreFilterResult | null {
    return podInfo.hostPorts.length === 0 ? { status: Status.skip() } : null;
  }

  filter(_state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    return fitsPorts(podInfo.hostPorts, nodeInfo.usedPorts)
      ? null
      : Status.unschedulable(ERR_REASON_NODE_PORTS);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'AssignedPod', actionType: ActionType.Delete },
        hint: (pod, oldObj) => {
          const deleted = oldObj as Pod | undefined;
          if (deleted === undefined || !deleted.spec?.nodeName) return 'QueueSkip';
          const freed = new HostPortInfo();
          for (const port of hostPortsOf(deleted)) freed.add(port.hostIP, port.protocol, port.hostPort ?? 0);
          return fitsPorts(hostPortsOf(pod), freed) ? 'QueueSkip' : 'Queue';
        },
      },
      { event: { resource: 'Node', actionType: ActionType.Add } },
    ];
  }
}
