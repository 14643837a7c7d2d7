// Aggregated discovery (apidiscovery.k8s.io/v2): every group, version and resource of /api or /apis in
// one document, which kubectl and client-go request first. Kubernetes 1.33 turns on
// AggregatedDiscoveryRemoveBetaType, so v2beta1 is no longer served: such a request gets the
// unaggregated document instead (see negotiation.ts).

import { createHash } from 'node:crypto';
import type { ResourceInfo, Verb } from '../../api/resources/types.js';
import { encodeJsonLikeGo } from './go-json.js';
import { aggregatedGroupOrder } from './group-order.js';
import { BUILTIN_TABLE, findTableGroup, type ResourceTable, tableResourcesOf } from './table.js';

export const AGGREGATED_DISCOVERY_API_VERSION = 'apidiscovery.k8s.io/v2';

/** The Content-Type of an aggregated answer; client-go reads it to tell the two documents apart. */
export const AGGREGATED_DISCOVERY_CONTENT_TYPE =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKind;
  verbs: Verb[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: Verb[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources?: APIResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

export interface APIGroupDiscovery {
  /** Go's zero ObjectMeta: the name (absent for the core group) and a null creationTimestamp. */
  metadata: { name?: string; creationTimestamp: null };
  versions: APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: typeof AGGREGATED_DISCOVERY_API_VERSION;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

function responseKind(
  table: ResourceTable,
  info: ResourceInfo,
  kind: string,
  other?: { group?: string; version?: string },
): GroupVersionKind {
  if (other?.group !== undefined && other.version !== undefined) {
    return { group: other.group, version: other.version, kind };
  }
  // kube-apiserver fills group and version only for kinds of another group-version; apiextensions
  // spells them out for custom resources.
  return table.customResourceGroups?.has(info.group)
    ? { group: info.group, version: info.version, kind }
    : { group: '', version: '', kind };
}

function resourceDiscovery(table: ResourceTable, info: ResourceInfo): APIResourceDiscovery {
  const entry: APIResourceDiscovery = {
    resource: info.resource,
    responseKind: responseKind(table, info, info.kind),
    scope: info.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: info.singularName,
    verbs: [...info.verbs],
  };
  if (info.shortNames.length > 0) entry.shortNames = [...info.shortNames];
  if (info.categories.length > 0) entry.categories = [...info.categories];
  if (info.subresources.length > 0) {
    entry.subresources = info.subresources.map((sub) => ({
      subresource: sub.name,
      responseKind: responseKind(table, info, sub.kind, sub),
      verbs: [...sub.verbs],
    }));
  }
  return entry;
}

function versionDiscovery(table: ResourceTable, group: string, version: string): APIVersionDiscovery {
  const resources = tableResourcesOf(table, group, version).map((info) => resourceDiscovery(table, info));
  return resources.length > 0
    ? { version, resources, freshness: 'Current' }
    : { version, freshness: 'Current' };
}

function list(items: APIGroupDiscovery[]): APIGroupDiscoveryList {
  return { kind: 'APIGroupDiscoveryList', apiVersion: AGGREGATED_DISCOVERY_API_VERSION, metadata: {}, items };
}

/** The aggregated document of `/api`: the core group alone. */
export function aggregatedCoreDiscovery(table: ResourceTable = BUILTIN_TABLE): APIGroupDiscoveryList {
  const core = findTableGroup(table, '');
  const versions = (core?.versions ?? []).map((version) => versionDiscovery(table, '', version));
  return list([{ metadata: { creationTimestamp: null }, versions }]);
}

/** The aggregated document of `/apis`: every other group, highest priority first. */
export function aggregatedGroupsDiscovery(table: ResourceTable = BUILTIN_TABLE): APIGroupDiscoveryList {
  return list(
    aggregatedGroupOrder(table).map(({ group, versions }) => ({
      metadata: { name: group.name, creationTimestamp: null },
      versions: versions.map((version) => versionDiscovery(table, group.name, version)),
    })),
  );
}

/**
 * The ETag value (unquoted) kube-apiserver gives an aggregated document: upper-case hex SHA-512 of
 * the list's JSON without its kind and apiVersion, so it does not depend on the media type. Send it
 * quoted, with `Vary: Accept` and `Cache-Control: public`; answer 304 when If-None-Match equals it.
 */
export function aggregatedDiscoveryETag(document: APIGroupDiscoveryList): string {
  const { kind: _kind, apiVersion: _apiVersion, ...withoutTypeMeta } = document;
  return createHash('sha512').update(encodeJsonLikeGo(withoutTypeMeta)).digest('hex').toUpperCase();
}
