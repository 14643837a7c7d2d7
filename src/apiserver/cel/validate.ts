// Evaluation of compiled rules (apiextensions schema/cel/validation.go): every rule at every value
// its node applies to, `oldSelf` bound where the old value correlates (object properties, map
// values by key, items of list-type=map lists by their keys), transition rules skipped without
// an old value, and failures reported as upstream reports them.
import { Optional } from '@marcbachmann/cel-js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  indexPath,
} from '../../api/selectors/field-errors.js';
import { estimateActualCost } from './cost.js';
import { runtimeErrorText } from './issues.js';
import { mapIsCorrelatable, type RuleNode } from './schema-rules.js';
import { jsonEqual } from './values.js';

const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

/** Largest runtime cost of one rule evaluation (celconfig.PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** Largest runtime cost of all rules on one object (celconfig.RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** Rules whose static estimate is this small are charged it without measuring actual sizes. */
const CHEAP_RULE_COST = 1000;

/** The cost budget left for one object's rules (once spent, no further rules run), and where ratcheted failures go. */
export interface CostBudget {
  remaining: number;
  exhausted: boolean;
  /** Failures on unchanged values, which upstream returns as warnings; not evaluated when absent. */
  warnings?: FieldError[] | undefined;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema type as the bad value of rule failures (`Invalid value: "object"`). */
function schemaTypeOf(node: RuleNode): string {
  return node.schema.type ?? '';
}

function errorForReason(
  reason: string | undefined,
  field: string,
  value: string,
  detail: string,
): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return fieldForbidden(field, detail);
    case 'FieldValueRequired':
      return fieldRequired(field, detail);
    case 'FieldValueDuplicate':
      return { type: 'FieldValueDuplicate', field, badValue: value, detail: '' };
    default:
      return fieldInvalid(field, value, detail);
  }
}

function ruleText(rule: { rule: string; message?: string | undefined }): string {
  return rule.message !== undefined && rule.message.length > 0 ? rule.message.trim() : rule.rule.trim();
}

/** The field of an error at `path`; the root is Go's nil field.Path, printed `<nil>`. */
function errorField(path: string): string {
  return path === '' ? '<nil>' : path;
}

function evaluateRules(
  node: RuleNode,
  value: unknown,
  old: unknown,
  path: string,
  errors: FieldError[],
  budget: CostBudget,
): void {
  if (node.rules.length === 0 || node.converter === undefined || node.type === undefined) return;
  const outOfBudget = (): void => {
    errors.push(
      fieldInvalid(
        errorField(path),
        schemaTypeOf(node),
        'validation failed due to running out of cost budget, no further validation rules will be run',
      ),
    );
    budget.exhausted = true;
  };
  if (budget.remaining <= 0) {
    outOfBudget();
    return;
  }
  const self = node.converter.convert(value, node.type);
  const oldSelf = old === undefined ? undefined : node.converter.convert(old, node.type);
  // Validation ratcheting (CRDValidationRatcheting, GA in 1.33): a rule that does not read
  // oldSelf cannot fail a value the update left as it was; upstream turns such failures into
  // warnings, which this interface does not carry.
  const unchanged = old !== undefined && jsonEqual(value, old);
  const context: Record<string, unknown> = { self };
  for (const compiled of node.rules) {
    const rule = compiled.rule;
    if (compiled.transition && old === undefined && !rule.optionalOldSelf) continue;
    const ratcheted = unchanged && !compiled.transition;
    if (ratcheted && budget.warnings === undefined) continue;
    const report = ratcheted ? budget.warnings! : errors;
    if (rule.optionalOldSelf)
      context.oldSelf = oldSelf === undefined ? Optional.none() : Optional.of(oldSelf);
    else if (oldSelf !== undefined) context.oldSelf = oldSelf;
    else delete context.oldSelf;
    const type = schemaTypeOf(node);
    const cost =
      compiled.staticCost <= CHEAP_RULE_COST
        ? compiled.staticCost
        : estimateActualCost(compiled.program.ast, node.type, value, old);
    if (cost > PER_CALL_LIMIT) {
      errors.push(
        fieldInvalid(
          errorField(path),
          type,
          `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(rule)}`,
        ),
      );
      budget.exhausted = true;
      return;
    }
    if (cost > budget.remaining) {
      outOfBudget();
      return;
    }
    budget.remaining -= cost;
    let result: unknown;
    try {
      result = compiled.program(context);
    } catch (error) {
      const text = runtimeErrorText(error);
      report.push(
        fieldInvalid(
          errorField(path),
          type,
          /^no such overload/i.test(text)
            ? `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(rule)}`
            : `${text} evaluating rule: ${ruleText(rule)}`,
        ),
      );
      continue;
    }
    if (result === true) continue;
    const field = compiled.fieldPath ? childPath(path, compiled.fieldPath) : errorField(path);
    const fallback = rule.message ? rule.message.trim() : `failed rule: ${ruleText(rule)}`;
    let detail = fallback;
    if (compiled.message !== undefined) {
      try {
        const message = compiled.message(context);
        const trimmed = typeof message === 'string' ? message.trim() : '';
        if (trimmed.length > 0 && trimmed.length <= MAX_MESSAGE_EXPRESSION_BYTES && !/\n/.test(trimmed))
          detail = trimmed;
      } catch {
        // upstream logs a failed messageExpression and reports the message instead
      }
    }
    report.push(errorForReason(rule.reason, field, type, detail));
  }
}

/** The old item of a list-type=map list with the same key values as `item`. */
function correlatedItem(node: RuleNode, item: unknown, oldList: unknown[]): unknown {
  const keys = node.schema['x-kubernetes-list-map-keys'] ?? [];
  if (!isObject(item)) return undefined;
  return oldList.find(
    (candidate) => isObject(candidate) && keys.every((key) => candidate[key] === item[key]),
  );
}

/** Walks `value` (and its correlated `old`) under `node`, collecting failed rules. */
export function validateNode(
  node: RuleNode,
  value: unknown,
  old: unknown,
  path: string,
  errors: FieldError[],
  budget: CostBudget,
): void {
  if (value === null || value === undefined || budget.exhausted) return;
  evaluateRules(node, value, old, path, errors, budget);
  if (isObject(value)) {
    const oldObject =
      isObject(old) && mapIsCorrelatable(node.schema['x-kubernetes-map-type']) ? old : undefined;
    for (const [name, child] of node.properties) {
      if (value[name] === undefined) continue;
      validateNode(child, value[name], oldObject?.[name], childPath(path, name), errors, budget);
    }
    if (node.additionalProperties !== undefined) {
      for (const [key, item] of Object.entries(value)) {
        if (node.properties.has(key) || node.schema.properties?.[key] !== undefined) continue;
        validateNode(node.additionalProperties, item, oldObject?.[key], indexPath(path, key), errors, budget);
      }
    }
  } else if (Array.isArray(value) && node.items !== undefined) {
    const oldList = Array.isArray(old) && node.schema['x-kubernetes-list-type'] === 'map' ? old : undefined;
    value.forEach((item, index) => {
      const oldItem = oldList === undefined ? undefined : correlatedItem(node, item, oldList);
      validateNode(node.items!, item, oldItem, indexPath(path, index), errors, budget);
    });
  }
}
