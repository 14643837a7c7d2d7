// Aggregated discovery for service-backed APIServices, as kube-aggregator's discovery manager
// builds it: the server's APIResourceList of /apis/<group>/<version> (read by the availability
// check) turned into the apidiscovery.k8s.io/v2 form, and the groups merged into the local
// document by priority (groupPriorityMinimum, then name; versions by versionPriority). A version
// whose server is unavailable keeps its last document, marked Stale.

import type { APIService } from '../../api/types/apiregistration-v1.generated.js';
import type { APIResource, APIResourceList } from '../../api/types/meta-v1.generated.js';
import type {
  APIGroupDiscovery,
  APIGroupDiscoveryList,
  APIResourceDiscovery,
  APIVersionDiscovery,
} from '../discovery/aggregated.js';

/** What one resource of a legacy list becomes; its subresources (`name/sub`) are attached after. */
function resourceOf(resource: APIResource): APIResourceDiscovery {
  const entry: APIResourceDiscovery = {
    resource: resource.name,
    responseKind: { group: resource.group ?? '', version: resource.version ?? '', kind: resource.kind },
    scope: resource.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: resource.singularName,
    verbs: [...(resource.verbs as APIResourceDiscovery['verbs'])],
  };
  if (resource.shortNames?.length) entry.shortNames = [...resource.shortNames];
  if (resource.categories?.length) entry.categories = [...resource.categories];
  return entry;
}

/** endpoints.ConvertGroupVersionIntoToDiscovery: a legacy APIResourceList as a v2 version entry. */
export function versionDiscoveryOf(version: string, list: APIResourceList): APIVersionDiscovery {
  const resources = new Map<string, APIResourceDiscovery>();
  for (const resource of list.resources ?? []) {
    if (!resource.name.includes('/')) resources.set(resource.name, resourceOf(resource));
  }
  for (const resource of list.resources ?? []) {
    const [parent = '', subresource = ''] = resource.name.split('/', 2);
    const owner = resources.get(parent);
    if (!subresource || !owner) continue;
    owner.subresources = [
      ...(owner.subresources ?? []),
      {
        subresource,
        responseKind: { group: resource.group ?? '', version: resource.version ?? '', kind: resource.kind },
        verbs: [...(resource.verbs as APIResourceDiscovery['verbs'])],
      },
    ];
  }
  const entries = [...resources.values()];
  return entries.length > 0
    ? { version, resources: entries, freshness: 'Current' }
    : { version, freshness: 'Current' };
}

export interface AggregatedVersion {
  readonly apiService: APIService;
  readonly discovery: APIVersionDiscovery;
}

/** The local document with the service-backed groups' versions in their place. */
export function mergeAggregatedDiscovery(
  local: APIGroupDiscoveryList,
  localPriority: (group: string) => number,
  versions: readonly AggregatedVersion[],
): APIGroupDiscoveryList {
  if (versions.length === 0) return local;
  const byGroup = new Map<string, AggregatedVersion[]>();
  for (const entry of versions) {
    const group = entry.apiService.spec?.group ?? '';
    byGroup.set(group, [...(byGroup.get(group) ?? []), entry]);
  }
  const priority = new Map<string, number>();
  const items: APIGroupDiscovery[] = local.items.filter((item) => !byGroup.has(item.metadata.name ?? ''));
  for (const item of items) priority.set(item.metadata.name ?? '', localPriority(item.metadata.name ?? ''));
  for (const [group, entries] of byGroup) {
    const sorted = [...entries].sort(
      (a, b) => (b.apiService.spec?.versionPriority ?? 0) - (a.apiService.spec?.versionPriority ?? 0),
    );
    items.push({
      metadata: { name: group, creationTimestamp: null },
      versions: sorted.map((e) => e.discovery),
    });
    priority.set(group, Math.max(...entries.map((e) => e.apiService.spec?.groupPriorityMinimum ?? 0)));
  }
  items.sort((a, b) => {
    const pa = priority.get(a.metadata.name ?? '') ?? 0;
    const pb = priority.get(b.metadata.name ?? '') ?? 0;
    if (pa !== pb) return pb > pa ? 1 : -1;
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
  return { ...local, items };
}
