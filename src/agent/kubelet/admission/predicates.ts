// The kubelet's predicate admit handler (pkg/kubelet/lifecycle/predicate.go): before it runs a pod
// bound to its node, the kubelet checks what the scheduler would have (a pod given spec.nodeName
// by its owner never met the scheduler): resources left, required node affinity and nodeSelector,
// host ports, NoExecute taints (not for static pods), then the pod's OS. Only the first failure is
// reported, with upstream's reason and message. Critical pods do not preempt others here.
import { isExtendedResourceName } from '../../../api/resource-names.js';
import { requiredNodeAffinityOf } from '../../../api/scheduling/node-selector.js';
import { podRequests } from '../../../api/scheduling/pod-requests.js';
import { Resource } from '../../../api/scheduling/resource.js';
import { insufficientResources } from '../../../api/scheduling/resource-fit.js';
import { findMatchingUntoleratedTaint } from '../../../api/scheduling/taints.js';
import type { Node, Pod } from '../../../api/types/core-v1.generated.js';
import { checkNodePorts, type PodRejection } from './node-ports.js';

const OS_LABEL = 'kubernetes.io/os';
/** The only OS tkube's nodes run. */
const NODE_OS = 'linux';

/** Go's PredicateFailureError: `Predicate <name> failed`. */
function predicateFailed(name: string): PodRejection {
  return { reason: name, message: `Predicate ${name} failed` };
}

/** The pod's requests without extended resources the node does not have (removeMissingExtendedResources). */
function requestsOnNode(pod: Pod, allocatable: Resource): Resource {
  const requests = podRequests(pod);
  if (requests.scalar === null) return requests;
  for (const name of [...requests.scalar.keys()]) {
    if (isExtendedResourceName(name) && !allocatable.scalar?.has(name)) requests.scalar.delete(name);
  }
  return requests;
}

/**
 * Why `pod` may not run on `node` beside the pods already admitted there, or undefined to admit
 * it. Without the node object (not yet read) only what needs no node is checked.
 */
export function checkPodAdmission(
  pod: Pod,
  node: Node | undefined,
  admitted: readonly Pod[],
  isStaticPod: boolean,
): PodRejection | undefined {
  if (node !== undefined) {
    const allocatable = Resource.fromList(node.status?.allocatable);
    const requested = new Resource();
    for (const other of admitted) requested.add(podRequests(other));
    const [missing] = insufficientResources(requestsOnNode(pod, allocatable), {
      allocatable,
      requested,
      pods: admitted,
    });
    if (missing !== undefined) {
      return {
        reason: `OutOf${missing.resourceName}`,
        message: `Node didn't have enough resource: ${missing.resourceName}, requested: ${missing.requested}, used: ${missing.used}, capacity: ${missing.capacity}`,
      };
    }
    if (!requiredNodeAffinityOf(pod).matchesNode(node)) return predicateFailed('NodeAffinity');
  }
  const ports = checkNodePorts(pod, admitted);
  if (ports !== undefined) return ports;
  if (node !== undefined && !isStaticPod) {
    const untolerated = findMatchingUntoleratedTaint(
      node.spec?.taints ?? [],
      pod.spec?.tolerations,
      (taint) => taint.effect === 'NoExecute',
    );
    if (untolerated !== undefined) return predicateFailed('TaintToleration');
  }
  const nodeOs = node?.metadata?.labels?.[OS_LABEL] ?? NODE_OS;
  const podOsLabel = pod.metadata?.labels?.[OS_LABEL];
  if (podOsLabel !== undefined && podOsLabel !== nodeOs) {
    return {
      reason: 'PodOSSelectorNodeLabelDoesNotMatch',
      message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
    };
  }
  const podOs = pod.spec?.os?.name;
  if (podOs !== undefined && podOs !== NODE_OS) {
    return {
      reason: 'PodOSNotSupported',
      message: "Failed to admit pod as the OS field doesn't match node OS",
    };
  }
  return undefined;
}
