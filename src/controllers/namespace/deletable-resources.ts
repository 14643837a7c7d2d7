// What the namespace controller empties a namespace of: every namespaced resource that can be
// deleted, in its group's preferred version (discovery's ServerPreferredNamespacedResources, then
// filtered to those supporting `delete`), with whether it can be listed and collection-deleted.
import { BUILTIN_RESOURCES } from '../../api/resources/builtin.js';
import { preferredCustomResource } from '../../api/resources/custom-resources.js';
import type { ResourceInfo } from '../../api/resources/types.js';
import type { ResourceRef } from '../../client/types.js';

export interface DeletableResource {
  readonly ref: ResourceRef;
  /** `list` is served: remaining objects can be counted. */
  readonly list: boolean;
  /** `deletecollection` is served; otherwise objects are listed and deleted one by one. */
  readonly deleteCollection: boolean;
}

/** The namespaced custom resources the established CRDs among `crds` serve, as discovery lists them. */
export function deletableCustomResources(crds: readonly unknown[]): DeletableResource[] {
  return crds.flatMap((crd) => {
    const ref = preferredCustomResource(crd);
    return ref?.namespaced ? [{ ref, list: true, deleteCollection: true }] : [];
  });
}

/**
 * The deletable namespaced resources of `resources` (a table in discovery order, preferred
 * versions first), each group/resource once.
 */
export function deletableNamespacedResources(
  resources: readonly ResourceInfo[] = BUILTIN_RESOURCES,
): DeletableResource[] {
  const seen = new Set<string>();
  const deletable: DeletableResource[] = [];
  for (const info of resources) {
    const id = `${info.resource}.${info.group}`;
    if (!info.namespaced || seen.has(id)) continue;
    seen.add(id);
    if (!info.verbs.includes('delete')) continue;
    const { group, version, resource, kind, namespaced } = info;
    deletable.push({
      ref: { group, version, resource, kind, namespaced },
      list: info.verbs.includes('list'),
      deleteCollection: info.verbs.includes('deletecollection'),
    });
  }
  return deletable;
}
