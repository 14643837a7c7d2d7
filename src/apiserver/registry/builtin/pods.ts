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
  gracePeriodSeconds(object: KubeObject, requested: number | undefined) {
    const pod = object as PodShape;
    if (!pod.spec?.nodeName) return 0;
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return 0;
    const grace = requested ?? pod.spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
    return Math.max(0, grace);
  },
};
