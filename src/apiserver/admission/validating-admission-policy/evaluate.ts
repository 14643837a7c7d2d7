// Evaluation of one compiled policy for one binding and one param (upstream's validating
// validator.go, cel filter.go and matchconditions/matcher.go): match conditions (any false skips
// the policy; errors fall to the failure policy), then every validation with `variables` bound
// lazily, message expressions for failures, and audit annotations, all within the runtime cost
// budget.
import { lazyVariables } from '../../cel/admission-environment.js';
import { estimateActualCostOf } from '../../cel/cost.js';
import { runtimeErrorText } from '../../cel/issues.js';
import type { CelAuthorizer } from '../../cel/library/authz.js';
import { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from '../../cel/validate.js';
import { dynValue } from '../../cel/values.js';
import type { CompiledExpression, CompiledPolicy } from './compile.js';

/** The JSON values an evaluation binds (`params` only for policies with a paramKind). */
export interface EvaluationInput {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly request: unknown;
  readonly namespaceObject: unknown;
  readonly params: unknown;
  readonly authorizer?: CelAuthorizer | undefined;
  /**
   * CEL values already made from these JSON values, shared by one request's evaluations (CEL
   * values are never changed by evaluation, so every binding may read the same ones).
   */
  readonly converted?: Map<unknown, unknown> | undefined;
}

export interface PolicyDecision {
  readonly action: 'admit' | 'deny';
  /** True when the decision comes from an evaluation error rather than a failed validation. */
  readonly error: boolean;
  readonly message: string;
  /** The Status reason a denial answers with (Invalid unless the validation names another). */
  readonly reason: string;
}

export interface EvaluationResult {
  /** False when a match condition was false (or erred under failurePolicy Ignore). */
  readonly matched: boolean;
  readonly decisions: readonly PolicyDecision[];
  /** Audit annotations the policy published (`<policy>/<key>` is the caller's to build). */
  readonly auditAnnotations: readonly { key: string; value: string }[];
}

/** Largest messageExpression result kept (celconfig.MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_BYTES = 5 * 1024;
/** Largest audit annotation value published (maxAuditAnnotationValueLength). */
const MAX_AUDIT_VALUE_BYTES = 10 * 1024;
const OUT_OF_BUDGET =
  'validation failed due to running out of cost budget, no further validation rules will be run';

class OutOfBudget extends Error {}

/** The CEL type name of a result, as cel-go prints it in errors. */
function celTypeOf(value: unknown): string {
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Map) return 'map';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Date) return 'google.protobuf.Timestamp';
  return typeof value;
}

/** A failed evaluation in cel-go's words, to be wrapped as upstream's filter wraps it. */
class EvaluationError extends Error {}

interface Context {
  readonly activation: Record<string, unknown>;
  readonly json: Readonly<Record<string, unknown>>;
  budget: number;
}

/** Runs one expression, charging its cost; throws EvaluationError or OutOfBudget. */
function run(expression: CompiledExpression, context: Context): unknown {
  if (expression.program === undefined) throw new EvaluationError(`compilation error: ${expression.error}`);
  const cost = estimateActualCostOf(expression.program.ast, context.json);
  if (cost > PER_CALL_LIMIT) {
    throw new EvaluationError(
      `expression '${expression.source}' resulted in error: operation cancelled: actual cost limit exceeded`,
    );
  }
  if (cost > context.budget) throw new OutOfBudget(OUT_OF_BUDGET);
  context.budget -= cost;
  try {
    return expression.program(context.activation);
  } catch (error) {
    if (error instanceof OutOfBudget || error instanceof EvaluationError) throw error;
    throw new EvaluationError(
      `expression '${expression.source}' resulted in error: ${runtimeErrorText(error)}`,
    );
  }
}

function activationOf(policy: CompiledPolicy, input: EvaluationInput, context: () => Context): Context {
  const json = {
    object: input.object ?? null,
    oldObject: input.oldObject ?? null,
    request: input.request,
    namespaceObject: input.namespaceObject ?? null,
    params: input.params ?? null,
  };
  const convert = (value: unknown): unknown => {
    if (input.converted === undefined || value === null || typeof value !== 'object') return dynValue(value);
    let converted = input.converted.get(value);
    if (converted === undefined) {
      converted = dynValue(value);
      input.converted.set(value, converted);
    }
    return converted;
  };
  const activation: Record<string, unknown> = {
    object: convert(json.object),
    oldObject: convert(json.oldObject),
    request: convert(json.request),
    namespaceObject: convert(json.namespaceObject),
    params: convert(json.params),
    authorizer: input.authorizer,
  };
  const variables = new Map(policy.variables.map((variable) => [variable.name, variable.expression]));
  activation.variables = lazyVariables([...variables.keys()], (name) => {
    const expression = variables.get(name)!;
    if (expression.program === undefined)
      throw new EvaluationError(`composited variable "${name}" fails to compile: ${expression.error}`);
    try {
      return run(expression, context());
    } catch (error) {
      if (error instanceof OutOfBudget) throw error;
      throw new EvaluationError(error instanceof EvaluationError ? error.message : runtimeErrorText(error));
    }
  });
  return { activation, json, budget: RUNTIME_CEL_COST_BUDGET };
}

/** The message of an error thrown inside an expression (variables raise theirs through it). */
function errorText(error: unknown, expression: CompiledExpression): string {
  if (error instanceof EvaluationError || error instanceof OutOfBudget) return error.message;
  return `expression '${expression.source}' resulted in error: ${runtimeErrorText(error)}`;
}

/** Match conditions: undefined when all are true, false when one is false, else the error text. */
function matchConditions(policy: CompiledPolicy, context: Context): boolean | string {
  const errors: string[] = [];
  for (const condition of policy.matchConditions) {
    let result: unknown;
    try {
      result = run(condition.expression, context);
    } catch (error) {
      errors.push(errorText(error, condition.expression));
      continue;
    }
    if (result === false) return false;
  }
  if (errors.length === 0) return true;
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

function messageOf(validation: CompiledPolicy['validations'][number], context: Context): string {
  if (validation.messageExpression !== undefined) {
    try {
      const value = run(validation.messageExpression, context);
      if (typeof value === 'string') {
        const message = value.trim();
        if (message !== '' && Buffer.byteLength(message) <= MAX_MESSAGE_BYTES && !message.includes('\n'))
          return message;
      }
    } catch (error) {
      // Running out of budget fails the request; other message errors fall back to the message.
      if (error instanceof OutOfBudget) throw error;
    }
  }
  if (validation.message.trim() !== '') return validation.message.trim();
  return `failed expression: ${validation.expression.source.trim()}`;
}

/** Evaluates `policy` for one binding and one param. */
export function evaluatePolicy(policy: CompiledPolicy, input: EvaluationInput): EvaluationResult {
  const onError = policy.failurePolicy === 'Ignore' ? 'admit' : 'deny';
  const errorDecision = (message: string): PolicyDecision => ({
    action: onError,
    error: true,
    message,
    reason: '',
  });
  // Match conditions run with their own budget, as upstream gives them one of their own.
  let context: Context = activationOf(policy, { ...input, namespaceObject: null }, () => context);
  const matched = matchConditions(policy, context);
  if (matched === false) return { matched: false, decisions: [], auditAnnotations: [] };
  if (typeof matched === 'string') {
    if (onError === 'admit') return { matched: false, decisions: [], auditAnnotations: [] };
    return { matched: true, decisions: [errorDecision(matched)], auditAnnotations: [] };
  }
  context = activationOf(policy, input, () => context);
  const decisions: PolicyDecision[] = [];
  for (const validation of policy.validations) {
    let result: unknown;
    try {
      result = run(validation.expression, context);
    } catch (error) {
      if (error instanceof OutOfBudget)
        return { matched: true, decisions: [errorDecision(OUT_OF_BUDGET)], auditAnnotations: [] };
      decisions.push(errorDecision(errorText(error, validation.expression)));
      continue;
    }
    if (result === true) {
      decisions.push({ action: 'admit', error: false, message: '', reason: '' });
      continue;
    }
    let message: string;
    try {
      message = messageOf(validation, context);
    } catch {
      decisions.push(errorDecision(`failed messageExpression: ${OUT_OF_BUDGET}`));
      continue;
    }
    decisions.push({ action: 'deny', error: false, message, reason: validation.reason });
  }
  const auditAnnotations: { key: string; value: string }[] = [];
  context.budget = RUNTIME_CEL_COST_BUDGET;
  for (const annotation of policy.auditAnnotations) {
    let value: unknown;
    try {
      value = run(annotation.valueExpression, context);
    } catch (error) {
      // Errors in audit annotations deny under failurePolicy Fail, as upstream's AuditAnnotationActionError.
      if (onError === 'deny') decisions.push(errorDecision(errorText(error, annotation.valueExpression)));
      continue;
    }
    if (value === null) continue;
    if (typeof value !== 'string') {
      decisions.push(
        errorDecision(
          `valueExpression '${annotation.valueExpression.source}' resulted in unsupported return type: ${celTypeOf(value)}. Return type must be either string or null.`,
        ),
      );
      continue;
    }
    const trimmed = value.trim();
    if (trimmed !== '')
      auditAnnotations.push({ key: annotation.key, value: trimmed.slice(0, MAX_AUDIT_VALUE_BYTES) });
  }
  return { matched: true, decisions, auditAnnotations };
}
