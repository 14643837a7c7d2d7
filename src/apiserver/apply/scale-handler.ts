// apimachinery's managedfields ScaleHandler: the scale subresource's field manager works on an
// autoscaling/v1 Scale, so the parent's managedFields are translated to the Scale's
// (`.spec.replicas` of the parent, wherever its version keeps it, becomes the Scale's) before
// the write, and back after it: a manager that wrote replicas through scale takes the parent's
// replicas path from whoever held it.
import type { ManagedFieldsEntry } from '../../api/object.js';
import { fieldElement as f, type Path } from './fieldpath/path-element.js';
import { FieldSet } from './fieldpath/set.js';
import { decodeManagedFields, emptyManaged, encodeManagedFields, type Managed } from './managed-fields.js';

const SCALE_API_VERSION = 'autoscaling/v1';
const REPLICAS_IN_SCALE: Path = [f('spec'), f('replicas')];

/**
 * ResourcePathMappings: the replicas path per parent API version (every version of a CRD). A
 * version mapped to undefined has no scale subresource; versions not listed are kept untouched.
 */
export type ReplicasPaths = ReadonlyMap<string, Path | undefined>;

/** A `.spec.replicas`-style JSON path (a CRD's specReplicasPath) as a field path. */
export function replicasPathOf(jsonPath: string): Path {
  return jsonPath.replace(/^\./, '').split('.').map(f);
}

/** ScaleHandler.ToSubresource: the parent's entries that own replicas, as Scale entries. */
export function scaleEntriesFromParent(
  parentEntries: readonly ManagedFieldsEntry[],
  paths: ReplicasPaths,
): ManagedFieldsEntry[] {
  const parent = decodeManagedFields(parentEntries);
  const scale: Managed = emptyManaged();
  for (const [manager, versioned] of parent.fields) {
    const path = paths.get(versioned.apiVersion);
    if (!path || !versioned.set.has(path)) continue;
    scale.fields.set(manager, {
      set: FieldSet.of(REPLICAS_IN_SCALE),
      apiVersion: SCALE_API_VERSION,
      applied: versioned.applied,
    });
    scale.times.set(manager, parent.times.get(manager));
  }
  return encodeManagedFields(scale) ?? [];
}

/** ScaleHandler.ToParent: the Scale's entries after a write, merged back into the parent's. */
export function parentEntriesFromScale(
  parentEntries: readonly ManagedFieldsEntry[],
  scaleEntries: readonly ManagedFieldsEntry[],
  paths: ReplicasPaths,
  parentApiVersion: string,
): ManagedFieldsEntry[] | undefined {
  const parent = decodeManagedFields(parentEntries);
  const scaleFields = new Map(decodeManagedFields(scaleEntries).fields);
  const out: Managed = emptyManaged();
  for (const [manager, versioned] of parent.fields) {
    const known = paths.has(versioned.apiVersion);
    const path = paths.get(versioned.apiVersion);
    if (known && path && versioned.set.has(path)) {
      if (!scaleFields.has(manager)) {
        // The replicas path moves to whoever wrote it through scale.
        const set = versioned.set.difference(FieldSet.of(path));
        if (!set.empty()) {
          out.fields.set(manager, { ...versioned, set });
          out.times.set(manager, parent.times.get(manager));
        }
        continue;
      }
      scaleFields.delete(manager);
    }
    out.fields.set(manager, versioned);
    out.times.set(manager, parent.times.get(manager));
  }
  const replicas = paths.get(parentApiVersion);
  for (const [manager, versioned] of scaleFields) {
    if (!replicas || !versioned.set.has(REPLICAS_IN_SCALE)) continue;
    out.fields.set(manager, {
      set: FieldSet.of(replicas),
      apiVersion: parentApiVersion,
      applied: versioned.applied,
    });
    // As upstream: the time is the parent's entry's, absent for a manager new to the parent.
    out.times.set(manager, parent.times.get(manager));
  }
  return encodeManagedFields(out);
}
