// Mirror pods are the API's copies of a kubelet's static pods. The annotation marks them for
// every part that treats them differently: validation, the node authorizer and NodeRestriction,
// ServiceAccount admission and the kubelet itself.

/** The annotation on a mirror pod; its value is the static pod's `kubernetes.io/config.hash`. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** A pod that mirrors a static pod. */
export function isMirrorPod(pod: { metadata?: { annotations?: Record<string, string> } }): boolean {
  return pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
}
