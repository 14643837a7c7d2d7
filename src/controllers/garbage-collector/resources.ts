// Which resources the garbage collector watches, and how it finds the resource of an owner
// reference's apiVersion and kind (the REST mapping), over the built-in resource table.
import { BUILTIN_RESOURCES } from '../../api/resources/builtin.js';
import type { ResourceInfo } from '../../api/resources/types.js';
import type { ResourceRef } from '../../client/types.js';

/** Upstream's DefaultIgnoredResources: events are never owners worth tracking. */
const IGNORED = new Set(['/events', 'events.k8s.io/events']);

function refOf(info: ResourceInfo): ResourceRef {
  const { group, version, resource, kind, namespaced } = info;
  return Object.freeze({ group, version, resource, kind, namespaced });
}

export function apiVersionOf(ref: Pick<ResourceRef, 'group' | 'version'>): string {
  return ref.group === '' ? ref.version : `${ref.group}/${ref.version}`;
}

/**
 * The resources discovery prefers that support delete, list and watch (GetDeletableResources),
 * one version per group and resource, less the ignored ones.
 */
export function deletableResources(): ResourceRef[] {
  const seen = new Set<string>();
  const result: ResourceRef[] = [];
  // The table is in discovery order, preferred versions first.
  for (const info of BUILTIN_RESOURCES) {
    const id = `${info.group}/${info.resource}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (IGNORED.has(id)) continue;
    if (!['delete', 'list', 'watch'].every((verb) => (info.verbs as readonly string[]).includes(verb)))
      continue;
    result.push(refOf(info));
  }
  return result;
}

/** `apps/v1` → apps, v1; `v1` → the core group; undefined for anything else. */
function parseApiVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1 && parts[0]) return { group: '', version: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { group: parts[0], version: parts[1] };
  return undefined;
}

/** A reference whose apiVersion and kind no served resource has (upstream's restMappingError). */
export class RestMappingError extends Error {
  constructor(kind: string, apiVersion: string) {
    super(`unable to get REST mapping for kind: ${kind}, version: ${apiVersion}`);
  }
}

const byVersionKind = new Map<string, ResourceRef>();
for (const info of BUILTIN_RESOURCES) {
  const key = `${apiVersionOf(info)}\u0000${info.kind}`;
  if (!byVersionKind.has(key)) byVersionKind.set(key, refOf(info));
}

/** Maps a custom resource's apiVersion and kind too (the REST mapper learns them from discovery). */
export function addCustomResourceMapping(ref: ResourceRef): void {
  byVersionKind.set(`${apiVersionOf(ref)}\u0000${ref.kind}`, Object.freeze({ ...ref }));
}

/** The resource serving `kind` in exactly `apiVersion`; throws RestMappingError when none does. */
export function resourceFor(apiVersion: string, kind: string): ResourceRef {
  const parsed = parseApiVersion(apiVersion);
  const ref = parsed && byVersionKind.get(`${apiVersionOf(parsed)}\u0000${kind}`);
  if (!ref) throw new RestMappingError(kind, apiVersion);
  return ref;
}
