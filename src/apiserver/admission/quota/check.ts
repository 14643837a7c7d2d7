// The ResourceQuota admission check (plugin/pkg/admission/resourcequota, CheckRequest): which
// quotas an object is charged to, whether it fits, and the status.used each quota moves to.

import type { KubeObject } from '../../../api/object.js';
import { quotaMatches } from './evaluator.js';
import {
  addLists,
  exceededNames,
  formatResourceList,
  formatResourceNames,
  has,
  maskList,
  negativeNames,
  parseResourceList,
  removeZeros,
  resourceListToJson,
  subtractNonNegative,
} from './resource-list.js';
import type { GroupResource, QuotaOperation, ResourceQuota } from './types.js';
import { evaluatorFor } from './usage.js';

export interface QuotaUpdate {
  quotaName: string;
  /** The whole new status.used of that quota, to write with compare-and-swap. */
  newUsed: Record<string, string>;
}

/** `message` is the reason Kubernetes wraps as Forbidden: `<resource> "<name>" is forbidden: <message>`. */
export type QuotaCheckResult = { ok: true; updates: QuotaUpdate[] } | { ok: false; message: string };

export interface QuotaCheckOptions {
  /** Defaults to UPDATE when an old object is given, else CREATE. */
  operation?: QuotaOperation;
  /** Only `resize` (pods) is charged; other subresources pass untouched. */
  subresource?: string;
  now?: Date;
}

/**
 * Checks `newObject` of `resource` against the quotas of its namespace, as read from their status
 * (status.hard is what the quota controller has accepted; a quota it has not synced yet limits nothing).
 */
export function checkQuotas(
  quotas: readonly ResourceQuota[],
  resource: GroupResource,
  newObject: KubeObject,
  oldObject?: KubeObject,
  options: QuotaCheckOptions = {},
): QuotaCheckResult {
  const allowed: QuotaCheckResult = { ok: true, updates: [] };
  const subresource = options.subresource ?? '';
  const operation = options.operation ?? (oldObject === undefined ? 'CREATE' : 'UPDATE');
  const now = options.now ?? new Date();
  if (
    subresource !== '' &&
    !(resource.group === '' && resource.resource === 'pods' && subresource === 'resize')
  ) {
    return allowed;
  }
  const evaluator = evaluatorFor(resource);
  if (!evaluator.handles({ operation, subresource, object: newObject, oldObject })) return allowed;

  const charged: ResourceQuota[] = [];
  for (const quota of quotas) {
    const hard = parseResourceList(quota.status?.hard);
    const hardNames = Object.keys(hard);
    if (!quotaMatches(evaluator, quota, hardNames, newObject)) continue;
    const name = quota.metadata?.name ?? '';
    const restricted = evaluator.matchingResources(hardNames);
    const violation = evaluator.constraints(restricted, newObject);
    if (violation !== undefined) return { ok: false, message: `failed quota: ${name}: ${violation}` };
    const used = parseResourceList(quota.status?.used);
    if (restricted.some((resourceName) => !has(used, resourceName))) {
      return {
        ok: false,
        message: `status unknown for quota: ${name}, resources: ${formatResourceNames(restricted)}`,
      };
    }
    charged.push(quota);
  }

  let delta = evaluator.usage(newObject, now);
  const negative = negativeNames(delta);
  if (negative.length > 0) {
    return {
      ok: false,
      message: `quota usage is negative for resource(s): ${formatResourceNames(negative)}`,
    };
  }
  if (operation === 'UPDATE') {
    if (oldObject === undefined) {
      return {
        ok: false,
        message: 'unable to get previous usage since prior version of object was not found',
      };
    }
    // Without a resourceVersion the old object may be a create-on-update: charge the full usage.
    if ((oldObject.metadata?.resourceVersion ?? '') !== '') {
      delta = subtractNonNegative(delta, evaluator.usage(oldObject, now));
    }
  }
  delta = removeZeros(delta);
  if (Object.keys(delta).length === 0 || charged.length === 0) return allowed;

  const updates: QuotaUpdate[] = [];
  for (const quota of charged) {
    const name = quota.metadata?.name ?? '';
    const hard = parseResourceList(quota.status?.hard);
    const used = parseResourceList(quota.status?.used);
    const requested = maskList(delta, Object.keys(hard));
    const newUsed = addLists(used, requested);
    const exceeded = exceededNames(maskList(newUsed, Object.keys(requested)), hard);
    if (exceeded.length > 0) {
      return {
        ok: false,
        message:
          `exceeded quota: ${name}, requested: ${formatResourceList(maskList(requested, exceeded))}, ` +
          `used: ${formatResourceList(maskList(used, exceeded))}, limited: ${formatResourceList(maskList(hard, exceeded))}`,
      };
    }
    if (Object.keys(requested).length > 0)
      updates.push({ quotaName: name, newUsed: resourceListToJson(newUsed) });
  }
  return { ok: true, updates };
}
