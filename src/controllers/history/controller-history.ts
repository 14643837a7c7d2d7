// ControllerRevision history shared by the DaemonSet and StatefulSet controllers
// (pkg/controller/history): revisions named `<parent>-<hash>` where the hash covers the revision's
// data and the parent's collisionCount, the `controller-revision-hash` label, revision numbers,
// finding the revision equal to the current template, and truncating old revisions.
import type { ControllerRevision } from '../../api/types/apps-v1.generated.js';
import { isAlreadyExists } from '../../client/rest/index.js';
import type { ApiObject, ResourceClient } from '../../client/types.js';
import type { OwnerKind } from '../controller-utils/owner-references.js';
import { newControllerRef } from '../controller-utils/owner-references.js';
import { safeEncodeString } from '../deployment/pod-template-hash.js';

/** The label on revisions and on the pods made from them (apps.ControllerRevisionHashLabelKey). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** FNV-1 (not 1a): fnv.New32 as HashControllerRevision uses it. */
function fnv32(bytes: Uint8Array, hash = FNV32_OFFSET): number {
  let h = hash;
  for (const byte of bytes) h = (Math.imul(h, FNV32_PRIME) ^ byte) >>> 0;
  return h;
}

/** JSON with every object's keys sorted, as Go prints a map[string]interface{}. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The revision's hash: its data, then the collision count in decimal when set. */
export function hashControllerRevision(data: unknown, collisionCount?: number): string {
  let hash = fnv32(Buffer.from(canonicalJson(data), 'utf8'));
  if (collisionCount !== undefined) hash = fnv32(Buffer.from(String(collisionCount), 'utf8'), hash);
  return safeEncodeString(String(hash));
}

/** `<prefix>-<hash>`, the prefix cut so the name fits 253 characters (ControllerRevisionName). */
export function controllerRevisionName(prefix: string, hash: string): string {
  const cut = prefix.length > 223 ? prefix.slice(0, 223) : prefix;
  return `${cut}-${hash}`;
}

/**
 * The template patch a revision stores (getPatch in both controllers): the parent's
 * spec.template marked `$patch: replace`, so `kubectl rollout undo` swaps the template whole.
 */
export function templatePatch(template: unknown): Record<string, unknown> {
  // Keys in Go's map order (sorted): clients compare the stored bytes (RawExtension) with theirs.
  return sortedKeys({
    spec: { template: { ...goMarshalledTemplate(template), $patch: 'replace' } },
  }) as Record<string, unknown>;
}

/** A copy whose objects list their keys sorted, so JSON.stringify writes them as Go writes a map. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isObject(value)) return value;
  const sorted: JsonObject = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortedKeys(value[key]);
  return sorted;
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The template as upstream's getPatch sees it after json.Marshal of the typed object: the struct
 * fields Go writes even when empty are there (the template's `metadata.creationTimestamp: null`, a
 * container's `resources: {}`), so a revision's data, and its hash, do not depend on whether a
 * client sent them (clients compare revisions with their own getPatch, e.g. daemon.Match).
 */
function goMarshalledTemplate(template: unknown): JsonObject {
  const copy: JsonObject = isObject(template) ? { ...template } : {};
  const metadata = isObject(copy.metadata) ? copy.metadata : {};
  copy.metadata = 'creationTimestamp' in metadata ? metadata : { ...metadata, creationTimestamp: null };
  if (isObject(copy.spec)) {
    const spec: JsonObject = { ...copy.spec };
    for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
      const containers = spec[field];
      if (!Array.isArray(containers)) continue;
      spec[field] = containers.map((container: unknown) =>
        isObject(container) && !('resources' in container) ? { ...container, resources: {} } : container,
      );
    }
    copy.spec = spec;
  }
  return copy;
}

/** A new, not yet stored revision of the parent (NewControllerRevision). */
export function newControllerRevision(
  parent: ApiObject,
  parentKind: OwnerKind,
  templateLabels: Record<string, string>,
  data: Record<string, unknown>,
  revision: number,
  collisionCount: number | undefined,
): ControllerRevision {
  const hash = hashControllerRevision(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(parent.metadata?.name ?? '', hash),
      namespace: parent.metadata?.namespace ?? '',
      labels: { ...templateLabels, [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ownerReferences: [newControllerRef(parent, parentKind)],
    },
    data,
    revision,
  };
}

/** Oldest first by revision number, then creation time, then name (history.SortControllerRevisions). */
export function sortRevisions(revisions: readonly ControllerRevision[]): ControllerRevision[] {
  return [...revisions].sort((a, b) => {
    if (a.revision !== b.revision) return a.revision - b.revision;
    const at = a.metadata?.creationTimestamp ?? '';
    const bt = b.metadata?.creationTimestamp ?? '';
    if (at !== bt) return at < bt ? -1 : 1;
    const an = a.metadata?.name ?? '';
    const bn = b.metadata?.name ?? '';
    return an < bn ? -1 : an > bn ? 1 : 0;
  });
}

/** The revisions whose data equals the candidate's (FindEqualRevisions). */
export function findEqualRevisions(
  revisions: readonly ControllerRevision[],
  candidate: ControllerRevision,
): ControllerRevision[] {
  const wanted = canonicalJson(candidate.data);
  return revisions.filter((revision) => canonicalJson(revision.data) === wanted);
}

/** One past the highest revision number (nextRevision). */
export function nextRevisionNumber(revisions: readonly ControllerRevision[]): number {
  let max = 0;
  for (const revision of revisions) max = Math.max(max, revision.revision);
  return max + 1;
}

/**
 * Stores the revision (CreateControllerRevision): on a name taken by a revision with other
 * data, the collision count is bumped and the hash recomputed until a name is free or holds
 * equal data. Returns the stored revision and the collision count used.
 */
export async function createControllerRevision(
  revisions: ResourceClient<ControllerRevision>,
  parent: ApiObject,
  parentKind: OwnerKind,
  revision: ControllerRevision,
  collisionCount: number | undefined,
): Promise<{ revision: ControllerRevision; collisionCount: number | undefined }> {
  const namespace = parent.metadata?.namespace ?? '';
  const baseLabels = { ...(revision.metadata?.labels ?? {}) };
  delete baseLabels[CONTROLLER_REVISION_HASH_LABEL];
  let count = collisionCount;
  for (;;) {
    const attempt = newControllerRevision(
      parent,
      parentKind,
      baseLabels,
      revision.data ?? {},
      revision.revision,
      count,
    );
    try {
      const created = await revisions.create(attempt);
      return { revision: created, collisionCount: count };
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      const existing = await revisions.get(namespace, attempt.metadata?.name ?? '');
      if (canonicalJson(existing.data) === canonicalJson(attempt.data)) {
        return { revision: existing, collisionCount: count };
      }
      count = (count ?? 0) + 1;
    }
  }
}
