// A kind served in several group-versions from one storage, converted through an internal form
// the way kube-apiserver decodes any served version to its internal type and encodes another.
import type { KubeObject } from '../../api/object.js';

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** Reads one served version into the internal form and writes the internal form back as it. */
export interface VersionCodec<Internal> {
  readonly read: (object: KubeObject) => Internal;
  readonly write: (internal: Internal) => KubeObject;
}

export interface ConvertibleKind {
  readonly kind: string;
  readonly storage: GroupVersion;
  /** Every group/resource serving the kind. */
  readonly resources: readonly GroupResource[];
  /** Keyed by apiVersion (`v1`, `autoscaling/v2`). */
  readonly codecs: ReadonlyMap<string, VersionCodec<unknown>>;
}

export function apiVersionOf(groupVersion: GroupVersion): string {
  return groupVersion.group === '' ? groupVersion.version : `${groupVersion.group}/${groupVersion.version}`;
}

export function convertibleKind<Internal>(definition: {
  kind: string;
  storage: GroupVersion;
  resources: readonly GroupResource[];
  codecs: readonly (GroupVersion & VersionCodec<Internal>)[];
}): ConvertibleKind {
  const codecs = new Map<string, VersionCodec<unknown>>();
  for (const codec of definition.codecs) {
    // Each pair is only ever used together, so widening Internal to unknown is sound.
    codecs.set(apiVersionOf(codec), codec as VersionCodec<unknown>);
  }
  return { kind: definition.kind, storage: definition.storage, resources: definition.resources, codecs };
}
