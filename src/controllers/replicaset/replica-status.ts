// The status the replica manager writes (replica_set_utils.go): pod counts, the generation it acted
// on, and a ReplicaFailure condition while creating or deleting pods fails.
import { isPodReady } from '../../api/pod-conditions.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import { rfc3339 } from '../../client/events/time.js';
import type { ResourceClient } from '../../client/types.js';
import { isPodAvailable } from '../controller-utils/active-pods.js';
import { messageOf } from '../controller-utils/pod-control.js';
import {
  desiredReplicas,
  type ReplicaFailureCondition,
  type ReplicatedObject,
  type ReplicatedStatus,
} from './replicated-kind.js';

export const REPLICA_FAILURE = 'ReplicaFailure';

/** Whether every label of the template is on the pod with the same value. */
function hasTemplateLabels(pod: Pod, templateLabels: Readonly<Record<string, string>>): boolean {
  const labels = pod.metadata?.labels ?? {};
  return Object.entries(templateLabels).every(([key, value]) => labels[key] === value);
}

/** calculateStatus: the new status from the claimed active pods and the last manageReplicas error. */
export function calculateStatus(
  object: ReplicatedObject,
  pods: readonly Pod[],
  manageError: unknown,
  nowMs: number,
): ReplicatedStatus {
  const templateLabels = object.spec?.template?.metadata?.labels ?? {};
  const minReadySeconds = object.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    if (hasTemplateLabels(pod, templateLabels)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, nowMs)) available++;
    }
  }
  let conditions = [...(object.status?.conditions ?? [])];
  const failure = conditions.find((condition) => condition.type === REPLICA_FAILURE);
  if (manageError !== undefined && failure === undefined) {
    const diff = pods.length - desiredReplicas(object);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    conditions.push({
      type: REPLICA_FAILURE,
      status: 'True',
      lastTransitionTime: rfc3339(nowMs),
      reason,
      message: messageOf(manageError),
    });
  } else if (manageError === undefined && failure !== undefined) {
    conditions = conditions.filter((condition) => condition.type !== REPLICA_FAILURE);
  }
  return {
    ...object.status,
    replicas: pods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    conditions,
  };
}

function sameConditions(
  a: readonly ReplicaFailureCondition[],
  b: readonly ReplicaFailureCondition[],
): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The status as Go encodes it: zero counts and empty conditions are left out (omitempty). */
export function wireStatus(status: ReplicatedStatus): ReplicatedStatus {
  const wire: ReplicatedStatus = { replicas: status.replicas };
  if (status.fullyLabeledReplicas) wire.fullyLabeledReplicas = status.fullyLabeledReplicas;
  if (status.readyReplicas) wire.readyReplicas = status.readyReplicas;
  if (status.availableReplicas) wire.availableReplicas = status.availableReplicas;
  if (status.observedGeneration) wire.observedGeneration = status.observedGeneration;
  if (status.conditions && status.conditions.length > 0) wire.conditions = status.conditions;
  return wire;
}

/**
 * updateReplicaSetStatus: writes the status unless nothing changed and the generation was
 * already observed; one retry on a fresh copy after a failed write. Returns the object as stored.
 */
export async function updateReplicatedStatus<T extends ReplicatedObject>(
  resource: ResourceClient<T>,
  object: T,
  status: ReplicatedStatus,
): Promise<T> {
  const current = object.status ?? { replicas: 0 };
  const generation = object.metadata?.generation ?? 0;
  if (
    current.replicas === status.replicas &&
    (current.fullyLabeledReplicas ?? 0) === (status.fullyLabeledReplicas ?? 0) &&
    (current.readyReplicas ?? 0) === (status.readyReplicas ?? 0) &&
    (current.availableReplicas ?? 0) === (status.availableReplicas ?? 0) &&
    generation === (current.observedGeneration ?? 0) &&
    sameConditions(current.conditions ?? [], status.conditions ?? [])
  ) {
    return object;
  }
  const next = wireStatus({ ...status, observedGeneration: generation });
  const namespace = object.metadata?.namespace ?? '';
  const name = object.metadata?.name ?? '';
  try {
    return await resource.updateStatus({ ...object, status: next });
  } catch {
    // A stale copy (or a passing failure): one more try on what the apiserver has now.
    const fresh = await resource.get(namespace, name);
    return await resource.updateStatus({ ...fresh, status: next });
  }
}
