// Feeds a Scheduler from shared informers: pods and nodes, plus the namespaces, PDBs, services
// and workload controllers plugins consult, and the claims, volumes and classes of VolumeBinding. Returns the informers so the caller can wait for them.
import type { ReplicaSet, StatefulSet } from '../api/types/apps-v1.generated.js';
import type {
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  ReplicationController,
  Service,
} from '../api/types/core-v1.generated.js';
import type { PodDisruptionBudget } from '../api/types/policy-v1.generated.js';
import type { StorageClass } from '../api/types/storage-v1.generated.js';
import { objectOf, type SharedInformer, type SharedInformerFactory } from '../client/informers/index.js';
import {
  NAMESPACES,
  NODES,
  PDBS,
  PODS,
  PVCS,
  PVS,
  REPLICA_SETS,
  REPLICATION_CONTROLLERS,
  SERVICES,
  STATEFUL_SETS,
  STORAGE_CLASSES,
} from '../client/resources.js';
import type { ApiObject } from '../client/types.js';
import type { Scheduler } from './scheduler.js';

function watch<T extends ApiObject>(
  informer: SharedInformer<T>,
  upsert: (object: T) => void,
  remove: (object: T) => void,
): SharedInformer<T> {
  informer.addEventHandler({
    onAdd: (object) => upsert(object),
    onUpdate: (_old, object) => upsert(object),
    onDelete: (object) => remove(objectOf(object)),
  });
  return informer;
}

/** Registers the scheduler's handlers; start the factory afterwards. */
export function connectInformers(
  scheduler: Scheduler,
  informers: SharedInformerFactory,
): SharedInformer<ApiObject>[] {
  const pods = informers.informerFor<Pod>(PODS);
  pods.addEventHandler({
    onAdd: (pod) => scheduler.onPodAdd(pod),
    onUpdate: (oldPod, newPod) => scheduler.onPodUpdate(oldPod, newPod),
    onDelete: (pod) => scheduler.onPodDelete(objectOf(pod)),
  });
  const nodes = informers.informerFor<Node>(NODES);
  nodes.addEventHandler({
    onAdd: (node) => scheduler.onNodeAdd(node),
    onUpdate: (oldNode, newNode) => scheduler.onNodeUpdate(oldNode, newNode),
    onDelete: (node) => scheduler.onNodeDelete(objectOf(node)),
  });
  const others: SharedInformer<ApiObject>[] = [
    watch(
      informers.informerFor<Namespace>(NAMESPACES),
      (object) => scheduler.onNamespaceUpsert(object),
      (object) => scheduler.onNamespaceDelete(object),
    ),
    watch(
      informers.informerFor<PodDisruptionBudget>(PDBS),
      (object) => scheduler.onPodDisruptionBudgetUpsert(object),
      (object) => scheduler.onPodDisruptionBudgetDelete(object),
    ),
    watch(
      informers.informerFor<Service>(SERVICES),
      (object) => scheduler.onServiceUpsert(object),
      (object) => scheduler.onServiceDelete(object),
    ),
    watch(
      informers.informerFor<ReplicaSet>(REPLICA_SETS),
      (object) => scheduler.onReplicaSetUpsert(object),
      (object) => scheduler.onReplicaSetDelete(object),
    ),
    watch(
      informers.informerFor<StatefulSet>(STATEFUL_SETS),
      (object) => scheduler.onStatefulSetUpsert(object),
      (object) => scheduler.onStatefulSetDelete(object),
    ),
    watch(
      informers.informerFor<ReplicationController>(REPLICATION_CONTROLLERS),
      (object) => scheduler.onReplicationControllerUpsert(object),
      (object) => scheduler.onReplicationControllerDelete(object),
    ),
    watch(
      informers.informerFor<PersistentVolumeClaim>(PVCS),
      (object) => scheduler.onStorageObjectUpsert('PersistentVolumeClaim', object),
      (object) => scheduler.onStorageObjectDelete('PersistentVolumeClaim', object),
    ),
    watch(
      informers.informerFor<PersistentVolume>(PVS),
      (object) => scheduler.onStorageObjectUpsert('PersistentVolume', object),
      (object) => scheduler.onStorageObjectDelete('PersistentVolume', object),
    ),
    watch(
      informers.informerFor<StorageClass>(STORAGE_CLASSES),
      (object) => scheduler.onStorageObjectUpsert('StorageClass', object),
      (object) => scheduler.onStorageObjectDelete('StorageClass', object),
    ),
  ] as SharedInformer<ApiObject>[];
  return [pods, nodes, ...others] as SharedInformer<ApiObject>[];
}
