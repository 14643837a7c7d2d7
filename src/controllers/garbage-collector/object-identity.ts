// How the garbage collector names an object: the coordinates of an owner reference (apiVersion,
// kind, name, uid) plus the namespace, as upstream's objectReference.
import type { OwnerReference } from '../../api/types/meta-v1.generated.js';

export interface ObjectIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  /** `''` for cluster-scoped objects. */
  readonly namespace: string;
}

/** The identity an owner reference gives its owner, seen from a dependent in `namespace`. */
export function identityOfReference(reference: OwnerReference, namespace: string): ObjectIdentity {
  const { apiVersion, kind, name, uid } = reference;
  return { apiVersion, kind, name, uid, namespace };
}

/** Whether uid, name, kind and apiVersion agree (blockOwnerDeletion and controller do not count). */
export function matchesCoordinates(
  reference: OwnerReference,
  identity: Pick<ObjectIdentity, 'apiVersion' | 'kind' | 'name' | 'uid'>,
): boolean {
  return (
    reference.uid === identity.uid &&
    reference.name === identity.name &&
    reference.kind === identity.kind &&
    reference.apiVersion === identity.apiVersion
  );
}

export function sameIdentity(a: ObjectIdentity, b: ObjectIdentity): boolean {
  return matchesCoordinates(a, b) && a.namespace === b.namespace;
}

/** One string per identity, for sets and caches. */
export function identityKey(identity: ObjectIdentity): string {
  const { apiVersion, kind, namespace, name, uid } = identity;
  return `${apiVersion}\u0000${kind}\u0000${namespace}\u0000${name}\u0000${uid}`;
}

/** Upstream's text form, used in log lines and event messages. */
export function formatIdentity(identity: ObjectIdentity): string {
  const { apiVersion, kind, namespace, name, uid } = identity;
  return `[${apiVersion}/${kind}, namespace: ${namespace}, name: ${name}, uid: ${uid}]`;
}

/** Orders identities by kind, apiVersion, namespace, name, uid (upstream's referenceLessThan). */
export function compareIdentities(a: ObjectIdentity, b: ObjectIdentity): number {
  for (const field of ['kind', 'apiVersion', 'namespace', 'name', 'uid'] as const) {
    if (a[field] !== b[field]) return a[field] < b[field] ? -1 : 1;
  }
  return 0;
}

export function isBlocking(reference: OwnerReference): boolean {
  return reference.blockOwnerDeletion === true;
}

/** Same coordinates and the same blockOwnerDeletion and controller flags. */
export function sameReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    matchesCoordinates(a, b) &&
    (a.blockOwnerDeletion ?? null) === (b.blockOwnerDeletion ?? null) &&
    (a.controller ?? null) === (b.controller ?? null)
  );
}
