// PodDisruptionBudget facts the disruption controller and the eviction subresource share
// (k8s.io/component-helpers/apps/poddisruptionbudget and the policy API's constants).
import { findStatusCondition, setStatusCondition } from './conditions.js';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from './types/policy-v1.generated.js';

export const DISRUPTION_ALLOWED_CONDITION = 'DisruptionAllowed';
/** The controller could not compute the budget (its message says why). */
export const SYNC_FAILED_REASON = 'SyncFailed';
export const SUFFICIENT_PODS_REASON = 'SufficientPods';
export const INSUFFICIENT_PODS_REASON = 'InsufficientPods';
/** The StatusCause type of a refused eviction. */
export const DISRUPTION_BUDGET_CAUSE = 'DisruptionBudget';

/** The status of a budget nothing has computed yet (all counts are required fields). */
export function budgetStatusOf(pdb: PodDisruptionBudget): PodDisruptionBudgetStatus {
  return {
    currentHealthy: 0,
    desiredHealthy: 0,
    disruptionsAllowed: 0,
    expectedPods: 0,
    ...pdb.status,
  };
}

/** UpdateDisruptionAllowedCondition: True/SufficientPods while disruptions are allowed, else False/InsufficientPods. */
export function updateDisruptionAllowedCondition(status: PodDisruptionBudgetStatus, now: string): void {
  status.conditions ??= [];
  const allowed = status.disruptionsAllowed > 0;
  setStatusCondition(
    status.conditions,
    {
      type: DISRUPTION_ALLOWED_CONDITION,
      status: allowed ? 'True' : 'False',
      reason: allowed ? SUFFICIENT_PODS_REASON : INSUFFICIENT_PODS_REASON,
      message: '',
      observedGeneration: status.observedGeneration ?? 0,
    },
    now,
  );
}

/** ConditionsAreUpToDate: the DisruptionAllowed condition agrees with disruptionsAllowed at this generation. */
export function conditionsAreUpToDate(pdb: PodDisruptionBudget): boolean {
  const status = budgetStatusOf(pdb);
  const condition = findStatusCondition(status.conditions, DISRUPTION_ALLOWED_CONDITION);
  if (!condition) return false;
  if ((status.observedGeneration ?? 0) !== (pdb.metadata?.generation ?? 0)) return false;
  if (status.disruptionsAllowed > 0)
    return condition.status === 'True' && condition.reason === SUFFICIENT_PODS_REASON;
  return condition.status === 'False' && condition.reason === INSUFFICIENT_PODS_REASON;
}
