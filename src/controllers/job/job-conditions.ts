// Job conditions (pkg/controller/job/job_controller.go): the reasons and messages upstream gives
// the interim SuccessCriteriaMet / FailureTarget conditions and the final Complete / Failed ones,
// and setting a condition the way upstream does (a transition time only when the status changes).
import type { Job, JobCondition } from '../../api/types/batch-v1.generated.js';
import { matchSuccessPolicy } from './success-policy.js';

export interface Verdict {
  readonly type: 'SuccessCriteriaMet' | 'FailureTarget';
  readonly reason: string;
  readonly message: string;
}

export const BACKOFF_LIMIT_EXCEEDED: Verdict = {
  type: 'FailureTarget',
  reason: 'BackoffLimitExceeded',
  message: 'Job has reached the specified backoff limit',
};
export const DEADLINE_EXCEEDED: Verdict = {
  type: 'FailureTarget',
  reason: 'DeadlineExceeded',
  message: 'Job was active longer than specified deadline',
};
export const MAX_FAILED_INDEXES_EXCEEDED: Verdict = {
  type: 'FailureTarget',
  reason: 'MaxFailedIndexesExceeded',
  message: 'Job has exceeded the specified maximum number of failed indexes',
};
export const FAILED_INDEXES: Verdict = {
  type: 'FailureTarget',
  reason: 'FailedIndexes',
  message: 'Job has failed indexes',
};
export const COMPLETIONS_REACHED: Verdict = {
  type: 'SuccessCriteriaMet',
  reason: 'CompletionsReached',
  message: 'Reached expected number of succeeded pods',
};

export function findCondition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((condition) => condition.type === type);
}

export function isConditionTrue(job: Job, type: string): boolean {
  return findCondition(job, type)?.status === 'True';
}

/** Complete or Failed is True. */
export function isFinished(job: Job): boolean {
  return isConditionTrue(job, 'Complete') || isConditionTrue(job, 'Failed');
}

/** The interim verdict already recorded, if any. */
export function recordedVerdict(job: Job): Verdict | undefined {
  for (const type of ['FailureTarget', 'SuccessCriteriaMet'] as const) {
    const condition = findCondition(job, type);
    if (condition?.status === 'True')
      return { type, reason: condition.reason ?? '', message: condition.message ?? '' };
  }
  return undefined;
}

/** Sets a condition on the conditions list; returns whether anything changed. */
export function setCondition(
  conditions: JobCondition[],
  type: string,
  status: 'True' | 'False',
  reason: string,
  message: string,
  now: string,
): boolean {
  const existing = conditions.find((condition) => condition.type === type);
  if (existing) {
    if (existing.status === status && existing.reason === reason && existing.message === message)
      return false;
    if (existing.status !== status) existing.lastTransitionTime = now;
    existing.status = status;
    existing.reason = reason;
    existing.message = message;
    existing.lastProbeTime = now;
    return true;
  }
  conditions.push({ type, status, reason, message, lastProbeTime: now, lastTransitionTime: now });
  return true;
}

/** SuccessCriteriaMet when completions (or the success policy) are reached; FailedIndexes when all indexes are done. */
export function successVerdict(
  job: Job,
  completed: ReadonlySet<number>,
  failedIndexes: ReadonlySet<number>,
  succeeded: number,
  active: number,
): Verdict | undefined {
  const spec = job.spec;
  const completions = spec?.completions;
  if (spec?.completionMode === 'Indexed') {
    const total = completions ?? 0;
    const policy = matchSuccessPolicy(spec.successPolicy, total, completed);
    if (policy) return { type: 'SuccessCriteriaMet', reason: 'SuccessPolicy', message: policy };
    if (completed.size + failedIndexes.size >= total) {
      return failedIndexes.size > 0 ? FAILED_INDEXES : COMPLETIONS_REACHED;
    }
    return undefined;
  }
  if (completions !== undefined) return succeeded >= completions ? COMPLETIONS_REACHED : undefined;
  // A work queue: done once one pod succeeded and none is left running.
  return succeeded > 0 && active === 0 ? COMPLETIONS_REACHED : undefined;
}
