// The order of groups and versions in /apis. The aggregator sorts APIServices by
// spec.groupPriorityMinimum then name; aggregated discovery sorts groups by their highest priority
// then name. A group without priorities (apiregistration.k8s.io, served by the aggregator itself)
// comes first in both.

import type { GroupInfo } from '../../api/resources/types.js';
import { compareKubeAwareVersions } from '../../api/resources/versions.js';
import { type ResourceTable, servedVersions } from './table.js';

/** A group of /apis with its served versions in the order discovery lists them. */
export interface OrderedGroup {
  readonly group: GroupInfo;
  readonly versions: readonly string[];
}

export { compareKubeAwareVersions };

function orderVersions(table: ResourceTable, group: GroupInfo): string[] {
  const versions = servedVersions(table, group);
  const priorities = group.priorities;
  if (!priorities) return versions;
  return versions.sort((a, b) => {
    const byPriority = (priorities[b]?.version ?? 0) - (priorities[a]?.version ?? 0);
    return byPriority !== 0 ? byPriority : compareKubeAwareVersions(a, b);
  });
}

function apiGroups(table: ResourceTable): GroupInfo[] {
  return table.groups.filter((group) => group.name !== '' && servedVersions(table, group).length > 0);
}

/** The groups of legacy `/apis` (APIGroupList) in the aggregator's order. */
export function legacyGroupOrder(table: ResourceTable): OrderedGroup[] {
  const groups = apiGroups(table);
  const own = groups.filter((group) => !group.priorities);
  const services = groups
    .filter((group) => group.priorities)
    .flatMap((group) =>
      servedVersions(table, group).map((version) => ({
        group,
        name: `${version}.${group.name}`,
        priority: group.priorities?.[version]?.group ?? 0,
      })),
    )
    .sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const ordered = [...own];
  for (const service of services) if (!ordered.includes(service.group)) ordered.push(service.group);
  return ordered.map((group) => ({ group, versions: orderVersions(table, group) }));
}

function groupPriority(group: GroupInfo): number {
  if (!group.priorities) return Number.POSITIVE_INFINITY;
  return Math.max(...Object.values(group.priorities).map((priority) => priority.group));
}

/** The groups of aggregated `/apis` (APIGroupDiscoveryList) in kube-apiserver's order. */
export function aggregatedGroupOrder(table: ResourceTable): OrderedGroup[] {
  return apiGroups(table)
    .map((group) => ({ group, priority: groupPriority(group) }))
    .sort(
      (a, b) =>
        (a.priority === b.priority ? 0 : b.priority > a.priority ? 1 : -1) ||
        (a.group.name < b.group.name ? -1 : a.group.name > b.group.name ? 1 : 0),
    )
    .map(({ group }) => ({ group, versions: orderVersions(table, group) }));
}
