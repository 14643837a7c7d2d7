// Counts objects: `count/<resource>.<group>` (plain `count/<resource>` in the core group), plus the
// legacy names older quotas use for a few core resources.

import { Quantity } from '../../../api/quantity.js';
import { matchesNoScope, type QuotaEvaluator } from './evaluator.js';
import { intersection } from './resource-list.js';
import type { GroupResource } from './types.js';

/** Core resources whose count also goes by their bare name. */
const LEGACY_COUNT_NAMES: Readonly<Record<string, string>> = {
  configmaps: 'configmaps',
  resourcequotas: 'resourcequotas',
  replicationcontrollers: 'replicationcontrollers',
  secrets: 'secrets',
};

export function objectCountName(resource: GroupResource): string {
  return resource.group === ''
    ? `count/${resource.resource}`
    : `count/${resource.resource}.${resource.group}`;
}

export function legacyCountName(resource: GroupResource): string | undefined {
  return resource.group === '' && Object.hasOwn(LEGACY_COUNT_NAMES, resource.resource)
    ? LEGACY_COUNT_NAMES[resource.resource]
    : undefined;
}

export function objectCountEvaluator(resource: GroupResource): QuotaEvaluator {
  const legacy = legacyCountName(resource);
  const names = legacy === undefined ? [objectCountName(resource)] : [objectCountName(resource), legacy];
  return {
    handles: ({ operation }) => operation === 'CREATE',
    matchingResources: (input) => intersection(input, names),
    matchesScope: matchesNoScope,
    constraints: () => undefined,
    usage: () => Object.fromEntries(names.map((name) => [name, Quantity.fromInteger(1)])),
  };
}
