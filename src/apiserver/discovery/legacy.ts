// The unaggregated discovery documents: /api, /apis, /apis/<group>, /api/v1 and /apis/<group>/<version>.
// Field order follows apimachinery's meta/v1 types, so the JSON reads like kube-apiserver's.

import type { ResourceInfo, Verb } from '../../api/resources/types.js';
import { legacyGroupOrder, type OrderedGroup } from './group-order.js';
import { BUILTIN_TABLE, groupVersionString, type ResourceTable, tableResourcesOf } from './table.js';

export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

/** `/api`: the core group's versions. kube-apiserver strips `apiVersion` from this one. */
export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

/** One group; inside an APIGroupList it carries no `kind` or `apiVersion`. */
export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

export interface APIResource {
  name: string;
  /** Empty for subresources. */
  singularName: string;
  namespaced: boolean;
  /** Set only when the kind lives in another group-version (`deployments/scale` → autoscaling/v1). */
  group?: string;
  version?: string;
  kind: string;
  verbs: Verb[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/** `/api/v1` (no `apiVersion`, as kube-apiserver strips it for the core group) or `/apis/<g>/<v>`. */
export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

/**
 * `/api`. `serverAddress` is the `host:port` clients should use; kube-apiserver lists it for every
 * client under the catch-all CIDR.
 */
export function apiVersions(serverAddress: string): APIVersions {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function forDiscovery(group: string, version: string): GroupVersionForDiscovery {
  return { groupVersion: groupVersionString(group, version), version };
}

function groupBody({ group, versions }: OrderedGroup): Omit<APIGroup, 'kind' | 'apiVersion'> {
  return {
    name: group.name,
    versions: versions.map((version) => forDiscovery(group.name, version)),
    preferredVersion: forDiscovery(group.name, versions[0]!),
  };
}

/** `/apis`: every group but the core one, in the aggregator's priority order. */
export function apiGroupList(table: ResourceTable = BUILTIN_TABLE): APIGroupList {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: legacyGroupOrder(table).map(groupBody) };
}

/** `/apis/<group>`, or undefined when the group is not served. */
export function apiGroup(group: string, table: ResourceTable = BUILTIN_TABLE): APIGroup | undefined {
  const ordered = legacyGroupOrder(table).find((entry) => entry.group.name === group);
  return ordered ? { kind: 'APIGroup', apiVersion: 'v1', ...groupBody(ordered) } : undefined;
}

function resourceEntry(info: ResourceInfo): APIResource {
  const entry: APIResource = {
    name: info.resource,
    singularName: info.singularName,
    namespaced: info.namespaced,
    kind: info.kind,
    verbs: [...info.verbs],
  };
  if (info.shortNames.length > 0) entry.shortNames = [...info.shortNames];
  if (info.categories.length > 0) entry.categories = [...info.categories];
  if (info.storageVersionHash !== undefined) entry.storageVersionHash = info.storageVersionHash;
  return entry;
}

function subresourceEntries(info: ResourceInfo): APIResource[] {
  return info.subresources.map((sub) => ({
    name: `${info.resource}/${sub.name}`,
    singularName: '',
    namespaced: info.namespaced,
    ...(sub.group !== undefined && sub.version !== undefined
      ? { group: sub.group, version: sub.version }
      : {}),
    kind: sub.kind,
    verbs: [...sub.verbs],
  }));
}

/** The resources and subresources of a group-version, named `pods`, `pods/log`, ... in name order. */
export function apiResources(
  group: string,
  version: string,
  table: ResourceTable = BUILTIN_TABLE,
): APIResource[] {
  return tableResourcesOf(table, group, version)
    .flatMap((info) => [resourceEntry(info), ...subresourceEntries(info)])
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `/api/v1` or `/apis/<group>/<version>`, or undefined when that group-version serves nothing. */
export function apiResourceList(
  group: string,
  version: string,
  table: ResourceTable = BUILTIN_TABLE,
): APIResourceList | undefined {
  const resources = apiResources(group, version, table);
  if (resources.length === 0) return undefined;
  const groupVersion = groupVersionString(group, version);
  return group === ''
    ? { kind: 'APIResourceList', groupVersion, resources }
    : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}
