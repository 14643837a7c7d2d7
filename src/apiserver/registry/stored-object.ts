import type { KubeObject } from '../../api/object.js';

/**
 * Objects are stored as JSON text without `metadata.resourceVersion` (the store's
 * modRevision is the version, as with etcd), with `apiVersion`, `kind` and `metadata`
 * first. That fixed prefix lets reads add the version by splicing text instead of
 * parsing and re-encoding every object.
 */
export function encodeForStorage(object: KubeObject): string {
  return JSON.stringify(storedForm(object));
}

/** The object encodeForStorage writes, before it is made text (its fields in the stored order). */
export function storedForm(object: KubeObject): KubeObject {
  const { apiVersion, kind, metadata, ...rest } = object;
  const { resourceVersion: _ignored, ...meta } = metadata ?? {};
  // Empty lists and maps of ObjectMeta are `omitempty` in Kubernetes: they are never stored.
  for (const field of OMIT_EMPTY) {
    const value = meta[field];
    if (
      value !== undefined &&
      (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0)
    ) {
      delete meta[field];
    }
  }
  return { apiVersion, kind, metadata: meta, ...rest };
}

const OMIT_EMPTY = ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields'] as const;

const METADATA_OPEN = '"metadata":{';

/** The stored text with `metadata.resourceVersion` set, without parsing it. */
export function withResourceVersion(stored: string, revision: number): string {
  const at = stored.indexOf(METADATA_OPEN);
  if (at < 0) throw new Error('stored object has no metadata');
  const insertAt = at + METADATA_OPEN.length;
  const field = `"resourceVersion":"${revision}"`;
  return stored[insertAt] === '}'
    ? `${stored.slice(0, insertAt)}${field}${stored.slice(insertAt)}`
    : `${stored.slice(0, insertAt)}${field},${stored.slice(insertAt)}`;
}

/** The stored object as an object, with its resourceVersion. */
export function decodeStored(stored: string, revision: number): KubeObject {
  const object = JSON.parse(stored) as KubeObject;
  object.metadata = { ...object.metadata, resourceVersion: String(revision) };
  return object;
}
