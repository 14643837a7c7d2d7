// The NodePorts predicate of the kubelet's admission (predicates.ts, after upstream's
// pkg/kubelet/lifecycle/predicate.go): a pod's host ports must be free among the pods the kubelet
// already admitted. A rejected pod ends Failed with the predicate's name as reason, as upstream's
// rejectPod sets it.
import { HostPortInfo, hostPortsOf } from '../../../api/host-ports.js';
import type { Pod } from '../../../api/types/core-v1.generated.js';

export interface PodRejection {
  readonly reason: string;
  /** The event's message; the pod's status message is `Pod was rejected: ` and this. */
  readonly message: string;
}

export const NODE_PORTS_REJECTION: PodRejection = {
  reason: 'NodePorts',
  message: 'Predicate NodePorts failed',
};

/** The rejection of `pod` when a host port it asks for is taken by one of `admitted`. */
export function checkNodePorts(pod: Pod, admitted: Iterable<Pod>): PodRejection | undefined {
  const wanted = hostPortsOf(pod);
  if (wanted.length === 0) return undefined;
  const used = new HostPortInfo();
  for (const other of admitted)
    for (const port of hostPortsOf(other)) used.add(port.hostIP, port.protocol, port.hostPort ?? 0);
  for (const port of wanted)
    if (used.checkConflict(port.hostIP, port.protocol, port.hostPort ?? 0)) return NODE_PORTS_REJECTION;
  return undefined;
}
