// Success policy (pkg/controller/job/success_policy.go): an Indexed Job succeeds early once the
// succeeded indexes satisfy one rule — all of its `succeededIndexes`, or `succeededCount` of them
// (of all indexes when the rule names none).
import type { SuccessPolicy } from '../../api/types/batch-v1.generated.js';
import { parseIndexes } from './indexes.js';

/** The message of the SuccessCriteriaMet condition when a rule is met, else undefined. */
export function matchSuccessPolicy(
  policy: SuccessPolicy | undefined,
  completions: number,
  succeeded: ReadonlySet<number>,
): string | undefined {
  for (const [index, rule] of (policy?.rules ?? []).entries()) {
    const named =
      rule.succeededIndexes !== undefined ? parseIndexes(rule.succeededIndexes, completions) : undefined;
    const done = named ? [...named].filter((i) => succeeded.has(i)).length : succeeded.size;
    const met =
      rule.succeededCount !== undefined
        ? done >= rule.succeededCount
        : named !== undefined && done === named.size;
    if (met) return `Matched rules at index ${index}`;
  }
  return undefined;
}
