// What the quota controller writes to a ResourceQuota's status: hard copied from spec, used
// measured from the objects that exist (quota.CalculateUsage).

import type { KubeObject } from '../../../api/object.js';
import { Quantity } from '../../../api/quantity.js';
import { scopeSelectorsOf } from './evaluator.js';
import { legacyCountName, objectCountName } from './object-count-evaluator.js';
import { STORAGE_CLASS_SUFFIX } from './pvc-evaluator.js';
import {
  addLists,
  maskList,
  parseResourceList,
  type ResourceList,
  resourceListToJson,
} from './resource-list.js';
import type { GroupResource, ResourceQuota } from './types.js';
import { evaluatorFor } from './usage.js';

export interface QuotaStatus {
  hard: Record<string, string>;
  used: Record<string, string>;
}

/** Lists the objects of one resource in the quota's namespace. */
export type ObjectLister = (resource: GroupResource) => readonly KubeObject[];

const CORE_WITH_SPECIAL_USAGE = ['pods', 'services', 'persistentvolumeclaims'];

/** The resource a quota name is measured on, if any (e.g. `requests.cpu` → pods, `count/jobs.batch` → jobs.batch). */
export function resourceForQuotaName(name: string): GroupResource | undefined {
  for (const resource of CORE_WITH_SPECIAL_USAGE) {
    const candidate = { group: '', resource };
    if (evaluatorFor(candidate).matchingResources([name]).length > 0) return candidate;
  }
  if (name.includes(STORAGE_CLASS_SUFFIX)) return undefined;
  for (const legacy of ['configmaps', 'secrets', 'resourcequotas', 'replicationcontrollers']) {
    if (legacyCountName({ group: '', resource: legacy }) === name) return { group: '', resource: legacy };
  }
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  const resource =
    dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
  return objectCountName(resource) === name ? resource : undefined;
}

/** The resources whose objects a quota's hard names are measured on, without duplicates. */
export function resourcesTrackedBy(hardNames: readonly string[]): GroupResource[] {
  const seen = new Map<string, GroupResource>();
  for (const name of hardNames) {
    const resource = resourceForQuotaName(name);
    if (resource !== undefined) seen.set(`${resource.resource}.${resource.group}`, resource);
  }
  return [...seen.values()];
}

/**
 * The status the quota controller computes. Names no evaluator measures keep their previous used
 * value; every measured name is present, zero when nothing consumes it.
 */
export function recalculateQuotaStatus(
  quota: ResourceQuota,
  listObjects: ObjectLister,
  now: Date = new Date(),
): QuotaStatus {
  const hard = parseResourceList(quota.spec?.hard);
  const hardNames = Object.keys(hard);
  const selectors = scopeSelectorsOf(quota);
  let used: ResourceList = parseResourceList(quota.status?.used);
  for (const resource of resourcesTrackedBy(hardNames)) {
    const evaluator = evaluatorFor(resource);
    const measured = evaluator.matchingResources(hardNames);
    let total: ResourceList = Object.fromEntries(measured.map((name) => [name, Quantity.fromInteger(0)]));
    for (const object of listObjects(resource)) {
      if (!selectors.every((selector) => evaluator.matchesScope(selector, object))) continue;
      total = addLists(total, evaluator.usage(object, now));
    }
    used = { ...used, ...maskList(total, measured) };
  }
  return { hard: resourceListToJson(hard), used: resourceListToJson(maskList(used, hardNames)) };
}
