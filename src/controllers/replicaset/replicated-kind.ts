// What the replica manager needs to know about the kind it manages. ReplicaSets and
// ReplicationControllers share their spec and status shape and differ only in the selector (a
// LabelSelector against a plain label map), their API coordinates and their identity; upstream runs
// one implementation for both the same way.
import type { LabelSelector } from '../../api/selectors/index.js';
import type { PodTemplateSpec } from '../../api/types/core-v1.generated.js';
import type { ApiObject, ResourceRef } from '../../client/types.js';
import type { OwnerKind } from '../controller-utils/owner-references.js';

export interface ReplicaFailureCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The status both kinds share. */
export interface ReplicatedStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaFailureCondition[];
}

/** A ReplicaSet or a ReplicationController, as far as the manager reads it. */
export interface ReplicatedObject extends ApiObject {
  spec?: { replicas?: number; minReadySeconds?: number; template?: PodTemplateSpec };
  status?: ReplicatedStatus;
}

export interface ReplicatedKind<T extends ReplicatedObject> {
  /** The controller's name in the controller manager (`replicaset-controller`). */
  readonly name: string;
  readonly ref: ResourceRef;
  /** How owner references to it read (`apps/v1` `ReplicaSet`). */
  readonly ownerKind: OwnerKind;
  /** The service account it acts as, which is also its events' source component. */
  readonly serviceAccount: string;
  /** The pod selector; throws a SelectorError for one that cannot be interpreted. */
  selectorOf(object: T): LabelSelector;
}

/** spec.replicas (defaulted to 1 by the apiserver). */
export function desiredReplicas(object: ReplicatedObject): number {
  return object.spec?.replicas ?? 1;
}
