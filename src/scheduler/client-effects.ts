// SchedulerEffects through the API: binding via pods/binding, VolumeBinding's volume and claim updates, FailedScheduling / Scheduled /
// Preempted events, the PodScheduled condition and nominatedNodeName via the status subresource,
// and preemption's DisruptionTarget condition and deletion of victims.
import type {
  Binding,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodCondition,
} from '../api/types/core-v1.generated.js';
import type { EventRecorder } from '../client/events/index.js';
import { isNotFoundError } from '../client/informers/index.js';
import { PODS, PVCS, PVS } from '../client/resources.js';
import type { Client, ResourceClient } from '../client/types.js';
import { disruptionTargetCondition, preemptedEvent } from './failure.js';
import type { SchedulerEffects } from './scheduler.js';

export interface ClientEffectsOptions {
  readonly client: Client;
  readonly recorder?: EventRecorder;
  readonly now?: () => number;
  readonly log?: (message: string) => void;
}

/** The condition as podutil.UpdatePodCondition would leave it; undefined when nothing changes. */
function conditionUpdate(pod: Pod, condition: PodCondition): PodCondition | undefined {
  const existing = (pod.status?.conditions ?? []).find((candidate) => candidate.type === condition.type);
  if (existing === undefined) return condition;
  const same =
    existing.status === condition.status &&
    existing.reason === condition.reason &&
    existing.message === condition.message;
  if (same) return undefined;
  // The transition time moves only when the status does.
  return existing.status === condition.status && existing.lastTransitionTime
    ? { ...condition, lastTransitionTime: existing.lastTransitionTime }
    : condition;
}

export function clientEffects(options: ClientEffectsOptions): SchedulerEffects {
  const pods: ResourceClient<Pod> = options.client.resource<Pod>(PODS);
  const now = options.now ?? Date.now;
  const log = options.log ?? ((message: string) => console.error(`scheduler: ${message}`));
  const patchStatus = async (pod: Pod, status: Record<string, unknown>) => {
    try {
      await pods.patch(
        pod.metadata?.namespace ?? '',
        pod.metadata?.name ?? '',
        'strategic',
        { status },
        { subresource: 'status' },
      );
    } catch (error) {
      if (!isNotFoundError(error)) throw error;
    }
  };
  return {
    updatePersistentVolume: (volume) => options.client.resource<PersistentVolume>(PVS).update(volume),
    updatePersistentVolumeClaim: (claim) =>
      options.client.resource<PersistentVolumeClaim>(PVCS).update(claim),
    bind: async ({ namespace, name, uid, nodeName }) => {
      const binding: Binding = {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { namespace, name, ...(uid ? { uid } : {}) },
        target: { kind: 'Node', name: nodeName },
      };
      await pods.createSubresource(namespace, name, 'binding', binding);
    },
    reportFailure: async (failure) => {
      const pod = failure.pod;
      options.recorder?.event(pod, failure.event.type, failure.event.reason, failure.event.note);
      const condition = conditionUpdate(pod, failure.condition);
      const status: Record<string, unknown> = {};
      if (condition !== undefined) status.conditions = [condition];
      if (failure.nominatedNodeName !== undefined)
        status.nominatedNodeName = failure.nominatedNodeName || null;
      if (Object.keys(status).length > 0) await patchStatus(pod, status);
    },
    recordEvent: (pod, event) => {
      options.recorder?.event(pod, event.type, event.reason, event.note);
    },
    preemptVictim: async (victim, preemptor, nodeName) => {
      const condition = conditionUpdate(victim, disruptionTargetCondition(preemptor, now()));
      if (condition !== undefined) await patchStatus(victim, { conditions: [condition] });
      try {
        await pods.delete(victim.metadata?.namespace ?? '', victim.metadata?.name ?? '');
      } catch (error) {
        if (!isNotFoundError(error)) throw error;
        return;
      }
      const event = preemptedEvent(preemptor, nodeName);
      options.recorder?.event(victim, event.type, event.reason, event.note);
    },
    clearNominatedNodeName: async (pod) => {
      if (!pod.status?.nominatedNodeName) return;
      await patchStatus(pod, { nominatedNodeName: null }).catch((error) => log(String(error)));
    },
  };
}
