import type { KubeObject } from '../../../api/object.js';
import { podQosClass } from '../../../api/pod-qos.js';
import type { Strategy } from '../strategy.js';

interface PodShape {
  spec?: { nodeName?: string; terminationGracePeriodSeconds?: number };
  status?: { phase?: string; qosClass?: string };
}

const DEFAULT_GRACE_PERIOD_SECONDS = 30;

/**
 * Pods on a node are deleted gracefully: marked with a deletionTimestamp, then removed by
 * their kubelet once the containers have stopped. Unscheduled and finished pods go at once.
 */
export const podStrategy: Partial<Strategy> = {
  prepareForCreate(object: KubeObject) {
    (object as PodShape).status = { phase: 'Pending', qosClass: podQosClass(object.spec as never) };
  },
  prepareForUpdate(object: KubeObject, old: KubeObject, subresource: string) {
    // The status is the kubelet's (the status subresource's); pods/ephemeralcontainers changes
    // only spec.ephemeralContainers (upstream's EphemeralContainersStrategy).
    if (old.status === undefined) delete object.status;
    else object.status = old.status;
    if (subresource === 'ephemeralcontainers') {
      const ephemeral = (object.spec as { ephemeralContainers?: unknown } | undefined)?.ephemeralContainers;
      const spec = { ...(old.spec as Record<string, unknown>) };
      if (ephemeral === undefined) delete spec.ephemeralContainers;
      else spec.ephemeralContainers = ephemeral;
      object.spec = spec;
    }
  },
  prepareForStatusUpdate(object: KubeObject, old: KubeObject) {
    // The QoS class is set at creation and immutable; a status written without it (an older
    // kubelet's, or a whole status replaced) keeps the stored one, as kube-apiserver backfills it.
    const pod = object as PodShape;
    const stored = (old as PodShape).status?.qosClass;
    if (stored && !pod.status?.qosClass) pod.status = { ...pod.status, qosClass: stored };
  },
  gracePeriodSeconds(object: KubeObject, requested: number | undefined) {
    const pod = object as PodShape;
    if (!pod.spec?.nodeName) return 0;
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return 0;
    const grace = requested ?? pod.spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
    return Math.max(0, grace);
  },
};
