// LimitRanger's validating half: pods against Container and Pod items, claims against
// PersistentVolumeClaim items.

import type { KubeObject } from '../../../api/object.js';
import { Quantity } from '../../../api/quantity.js';
import { aggregateMessages } from '../../../api/selectors/field-errors.js';
import {
  containerResources,
  objectField,
  podContainers,
  podLimits,
  podRequests,
} from '../quota/pod-resources.js';
import { parseResourceList, type ResourceList } from '../quota/resource-list.js';
import {
  limitRequestRatioConstraint,
  maxConstraint,
  maxRequestConstraint,
  minConstraint,
} from './constraints.js';
import type { LimitRange, LimitRangeItem } from './types.js';

type Check = (
  limitType: string,
  name: string,
  enforced: Quantity,
  requests: ResourceList,
  limits: ResourceList,
) => string | undefined;

function runChecks(
  item: LimitRangeItem,
  requests: ResourceList,
  limits: ResourceList,
  checks: ReadonlyArray<[Record<string, unknown> | undefined, Check]>,
  errors: string[],
): void {
  for (const [bounds, check] of checks) {
    for (const [name, raw] of Object.entries(bounds ?? {})) {
      const enforced = Quantity.tryFromJson(raw);
      if (enforced === undefined) continue;
      const error = check(item.type, name, enforced, requests, limits);
      if (error !== undefined) errors.push(error);
    }
  }
}

function podErrors(limitRange: LimitRange, pod: KubeObject): string[] {
  const errors: string[] = [];
  for (const item of limitRange.spec?.limits ?? []) {
    const checks: Array<[Record<string, unknown> | undefined, Check]> = [
      [item.min, minConstraint],
      [item.max, maxConstraint],
      [item.maxLimitRequestRatio, limitRequestRatioConstraint],
    ];
    if (item.type === 'Container') {
      for (const container of [
        ...podContainers(pod, 'containers'),
        ...podContainers(pod, 'initContainers'),
      ]) {
        const requests = containerResources(container, 'requests');
        const limits = containerResources(container, 'limits');
        runChecks(item, requests, limits, checks, errors);
      }
    }
    if (item.type === 'Pod') {
      const options = { useStatusResources: true };
      runChecks(item, podRequests(pod, options), podLimits(pod, options), checks, errors);
    }
  }
  return errors;
}

function claimErrors(limitRange: LimitRange, claim: KubeObject): string[] {
  const errors: string[] = [];
  const requests = parseResourceList(objectField(claim, 'spec', 'resources', 'requests'));
  for (const item of limitRange.spec?.limits ?? []) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    // A claim's limits are not user input here: min and max apply to the request alone.
    runChecks(
      item,
      requests,
      {},
      [
        [item.min, minConstraint],
        [item.max, (type, name, enforced, req) => maxRequestConstraint(type, name, enforced, req)],
      ],
      errors,
    );
  }
  return errors;
}

/**
 * The Forbidden reason for the first LimitRange `object` violates, or undefined when it fits all.
 * `kind` is `Pod` or `PersistentVolumeClaim`; other kinds are not limited.
 */
export function validateAgainstLimitRanges(
  kind: string,
  object: KubeObject,
  limitRanges: readonly LimitRange[],
): string | undefined {
  for (const limitRange of limitRanges) {
    const errors =
      kind === 'Pod'
        ? podErrors(limitRange, object)
        : kind === 'PersistentVolumeClaim'
          ? claimErrors(limitRange, object)
          : [];
    if (errors.length > 0) return aggregateMessages(errors);
  }
  return undefined;
}
