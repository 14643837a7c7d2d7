// Controller references (metav1.GetControllerOf, metav1.NewControllerRef): the one owner reference
// with `controller: true`, which says who manages an object.
import type { OwnerReference } from '../../api/types/meta-v1.generated.js';
import type { ApiObject } from '../../client/types.js';

/** The group/version and kind an owner reference names. */
export interface OwnerKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** The owner reference marked as the controller, if any. */
export function controllerRefOf(object: ApiObject): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((reference) => reference.controller === true);
}

/** A reference to `owner` as the managing controller; it blocks the owner's foreground deletion. */
export function newControllerRef(owner: ApiObject, kind: OwnerKind): OwnerReference {
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The informer index of objects by their controller's UID. */
export const CONTROLLER_UID_INDEX = 'controllerUID';

export function controllerUidIndexFunc(object: ApiObject): string[] {
  const reference = controllerRefOf(object);
  return reference ? [reference.uid] : [];
}

/** How a controller finds its objects from a dependent's side. */
export interface OwnerResolver<O extends ApiObject> {
  /** The object a controller reference names, if it is of the controller's kind and still that object. */
  resolve(namespace: string, reference: OwnerReference): O | undefined;
  /** The objects whose selectors match an orphan's labels: who might adopt it. */
  selecting(orphan: ApiObject): O[];
}

function sameLabels(
  a: Readonly<Record<string, string>> = {},
  b: Readonly<Record<string, string>> = {},
): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

export function labelsChanged(old: ApiObject, current: ApiObject): boolean {
  return !sameLabels(old.metadata?.labels, current.metadata?.labels);
}

/**
 * Queues the owners a changed dependent (a pod, a ReplicaSet) concerns: its former controller
 * when the controller reference changed, then its controller; or, for an orphan whose labels or
 * reference changed, every object that might adopt it. Returns the controller, if resolved.
 */
export function enqueueOwnersOfChanged<O extends ApiObject>(
  old: ApiObject,
  current: ApiObject,
  resolver: OwnerResolver<O>,
  enqueue: (owner: O) => void,
): O | undefined {
  const namespace = current.metadata?.namespace ?? '';
  const currentRef = controllerRefOf(current);
  const oldRef = controllerRefOf(old);
  const refChanged = JSON.stringify(currentRef) !== JSON.stringify(oldRef);
  if (refChanged && oldRef !== undefined) {
    const previous = resolver.resolve(namespace, oldRef);
    if (previous !== undefined) enqueue(previous);
  }
  if (currentRef !== undefined) {
    const owner = resolver.resolve(namespace, currentRef);
    if (owner !== undefined) enqueue(owner);
    return owner;
  }
  if (refChanged || labelsChanged(old, current)) {
    for (const owner of resolver.selecting(current)) enqueue(owner);
  }
  return undefined;
}
