// Objects other than pods and nodes that plugins consult: namespaces (their labels, for affinity
// namespaceSelectors), PodDisruptionBudgets (preemption), and the services / ReplicaSets /
// StatefulSets / ReplicationControllers that select a pod (the selector of the default topology
// spread constraints), and the claims, volumes and classes VolumeBinding reads. Kept current by
// the scheduler's event inputs.

import type { ReplicaSet, StatefulSet } from '../api/types/apps-v1.generated.js';
import type {
  Namespace,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  ReplicationController,
  Service,
} from '../api/types/core-v1.generated.js';
import type { PodDisruptionBudget } from '../api/types/policy-v1.generated.js';
import type { StorageClass } from '../api/types/storage-v1.generated.js';
import type { ApiObject } from '../client/types.js';

export class ObjectsByKey<T extends ApiObject> {
  private readonly items = new Map<string, T>();
  /** Increases with every change (keys results derived from these objects). */
  generation = 0;

  upsert(object: T): void {
    this.items.set(keyOf(object), object);
    this.generation++;
  }

  remove(object: T): void {
    this.items.delete(keyOf(object));
    this.generation++;
  }

  get(namespace: string, name: string): T | undefined {
    return this.items.get(`${namespace}/${name}`);
  }

  list(): IterableIterator<T> {
    return this.items.values();
  }

  get size(): number {
    return this.items.size;
  }
}

function keyOf(object: ApiObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

export class ClusterObjects {
  readonly namespaces = new ObjectsByKey<Namespace>();
  readonly podDisruptionBudgets = new ObjectsByKey<PodDisruptionBudget>();
  readonly services = new ObjectsByKey<Service>();
  readonly replicaSets = new ObjectsByKey<ReplicaSet>();
  readonly statefulSets = new ObjectsByKey<StatefulSet>();
  readonly replicationControllers = new ObjectsByKey<ReplicationController>();
  readonly persistentVolumeClaims = new ObjectsByKey<PersistentVolumeClaim>();
  readonly persistentVolumes = new ObjectsByKey<PersistentVolume>();
  readonly storageClasses = new ObjectsByKey<StorageClass>();

  /** The labels of a namespace; undefined when unknown. */
  namespaceLabels(name: string): Readonly<Record<string, string>> | undefined {
    return this.namespaces.get('', name)?.metadata?.labels;
  }

  /** Services in the pod's namespace whose selector matches the pod. */
  servicesSelecting(pod: Pod): Service[] {
    const namespace = pod.metadata?.namespace ?? '';
    const labels = pod.metadata?.labels ?? {};
    const result: Service[] = [];
    for (const service of this.services.list()) {
      if ((service.metadata?.namespace ?? '') !== namespace) continue;
      const selector = service.spec?.selector;
      if (selector === undefined) continue;
      if (Object.entries(selector).every(([key, value]) => labels[key] === value)) result.push(service);
    }
    return result;
  }
}
