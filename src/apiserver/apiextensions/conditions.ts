// apihelpers.SetCRDCondition: a condition's lastTransitionTime changes only with its status.
import type { KubeObject } from '../../api/object.js';
import { isJsonObject } from '../registry/validation/json.js';
import { type CrdCondition, conditionsOf } from './crd-object.js';

/** Sets (or adds) a condition in place; returns whether anything changed. */
export function setCrdCondition(crd: KubeObject, condition: CrdCondition, now: string): boolean {
  const status = isJsonObject(crd.status) ? crd.status : {};
  crd.status = status;
  const conditions = conditionsOf(crd);
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    const { type, status: value, reason, message } = condition;
    status.conditions = [...conditions, { type, status: value, lastTransitionTime: now, reason, message }];
    return true;
  }
  const changed =
    existing.status !== condition.status ||
    existing.reason !== condition.reason ||
    existing.message !== condition.message;
  if (existing.status !== condition.status) existing.lastTransitionTime = now;
  existing.status = condition.status;
  existing.reason = condition.reason;
  existing.message = condition.message;
  status.conditions = conditions;
  return changed;
}
