// The input every discovery and OpenAPI document is computed from: which groups and resources the
// server serves. Built-ins are the default; custom resources will extend a copy at run time.

import { API_GROUPS, BUILTIN_RESOURCES, CORE_GROUP } from '../../api/resources/builtin.js';
import type { GroupInfo, ResourceInfo } from '../../api/resources/types.js';

export interface ResourceTable {
  /** The core group (`''`) and the groups of `/apis`, each with its versions, preferred first. */
  readonly groups: readonly GroupInfo[];
  readonly resources: readonly ResourceInfo[];
  /**
   * Groups served from CustomResourceDefinitions. apiextensions-apiserver names the group and version
   * of every response kind in aggregated discovery; kube-apiserver leaves them empty for its own.
   */
  readonly customResourceGroups?: ReadonlySet<string>;
}

export const BUILTIN_TABLE: ResourceTable = Object.freeze({
  groups: Object.freeze([CORE_GROUP, ...API_GROUPS]),
  resources: BUILTIN_RESOURCES,
});

/** `v1` for the core group, `apps/v1` otherwise, as `apiVersion` and `groupVersion` spell it. */
export function groupVersionString(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

export function findTableGroup(table: ResourceTable, name: string): GroupInfo | undefined {
  return table.groups.find((group) => group.name === name);
}

function byResourceName(a: ResourceInfo, b: ResourceInfo): number {
  return a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0;
}

/** The resources `group`/`version` serves, sorted by name as discovery lists them. */
export function tableResourcesOf(table: ResourceTable, group: string, version: string): ResourceInfo[] {
  return table.resources
    .filter((info) => info.group === group && info.version === version)
    .sort(byResourceName);
}

/** Versions of a group that serve at least one resource, preferred first. */
export function servedVersions(table: ResourceTable, group: GroupInfo): string[] {
  return group.versions.filter((version) =>
    table.resources.some((info) => info.group === group.name && info.version === version),
  );
}
