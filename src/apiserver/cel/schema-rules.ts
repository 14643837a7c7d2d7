// The `x-kubernetes-validations` rules of a CRD schema (apiextensions-apiserver: validation.go's
// rule checks, schema/cel/compilation.go and validation.go): each rule compiled with `self` (and
// `oldSelf`) typed from the schema, its cost estimated against the per-rule and per-CRD budgets,
// and evaluated at every value of its node with `oldSelf` where the old value correlates.
import type { ASTNode, Environment, ParseResult } from '@marcbachmann/cel-js';
import {
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  GoRendered,
} from '../../api/selectors/field-errors.js';
import { goQuote } from '../../api/selectors/go-text.js';
import type { JSONSchemaProps, ValidationRule } from '../../api/types/apiextensions-v1.generated.js';
import { estimateMaxCost, maxCardinality } from './cost.js';
import { type DeclType, DeclTypeBuilder } from './decl-types.js';
import { normalizeFieldPath } from './field-path.js';
import { formatIssue } from './issues.js';
import { invalidFindPattern, invalidLiteral, nodesOf } from './literals.js';
import { environmentFor } from './schema-environment.js';
import type { ValueConverter } from './values.js';

/** Largest static cost of one rule (StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Largest static cost of all rules of one CRD version (StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

const SUPPORTED_REASONS = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];

/** One compiled rule of one schema node. */
interface CompiledRule {
  rule: ValidationRule;
  program: ParseResult;
  message?: ParseResult | undefined;
  transition: boolean;
  /** The static cost estimate of one evaluation (before cardinality). */
  staticCost: number;
  /** The field path to report, relative to the node (from `fieldPath`). */
  fieldPath?: string | undefined;
}

/** A schema node with rules, and the nodes below it that have rules. */
export interface RuleNode {
  schema: JSONSchemaProps;
  type: DeclType | undefined;
  rules: CompiledRule[];
  converter?: ValueConverter | undefined;
  properties: Map<string, RuleNode>;
  items?: RuleNode | undefined;
  additionalProperties?: RuleNode | undefined;
}

let typeCounter = 0;

/** Go's `%f` and `%.1f`, and the budget message of getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text =
    factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/**
 * A ValidationRule as Go's `%#v` prints it (the bad value of rule compile errors). Go prints the
 * address of a set pointer field; the value stands in for it here.
 */
function renderRule(rule: ValidationRule): GoRendered {
  const reason =
    rule.reason === undefined
      ? '(*apiextensions.FieldValueErrorReason)(nil)'
      : `(*apiextensions.FieldValueErrorReason)(${goQuote(rule.reason)})`;
  const optional = rule.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(${rule.optionalOldSelf})`;
  return new GoRendered(
    `apiextensions.ValidationRule{Rule:${goQuote(rule.rule ?? '')}, Message:${goQuote(rule.message ?? '')}, MessageExpression:${goQuote(rule.messageExpression ?? '')}, Reason:${reason}, FieldPath:${goQuote(rule.fieldPath ?? '')}, OptionalOldSelf:${optional}}`,
  );
}

/** Whether a rule reads `oldSelf`, which makes it a transition rule. */
function referencesOldSelf(ast: ASTNode): boolean {
  for (const node of nodesOf(ast)) if (node.op === 'id' && node.args === 'oldSelf') return true;
  return false;
}

const NEWLINES = /[\n\r]+/;

/** A rule whose text fields are strings (what the API's decoding guarantees), so no input can crash compilation. */
function wellTypedRule(value: unknown): ValidationRule {
  const rule = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const text = (key: string): string | undefined =>
    typeof rule[key] === 'string' ? (rule[key] as string) : undefined;
  const result: ValidationRule = { rule: text('rule') ?? '' };
  for (const key of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) {
    const field = text(key);
    if (field !== undefined) result[key] = field;
  }
  if (typeof rule.optionalOldSelf === 'boolean') result.optionalOldSelf = rule.optionalOldSelf;
  return result;
}

/** Whether old property values match new ones (MapIsCorrelatable): granular and atomic maps; an unknown map type is not. */
export function mapIsCorrelatable(mapType: string | undefined): boolean {
  return mapType === undefined || mapType === 'granular' || mapType === 'atomic';
}

class SchemaCompiler {
  readonly errors: FieldError[] = [];
  private totalCost = 0;
  private readonly expensive: { path: string; cost: number }[] = [];

  constructor(private readonly builder: DeclTypeBuilder) {}

  finish(path: string): void {
    if (this.totalCost > STATIC_ESTIMATED_CRD_COST_LIMIT) {
      for (const rule of this.expensive)
        this.errors.push(
          fieldForbidden(
            rule.path,
            'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
          ),
        );
      this.errors.push(
        fieldForbidden(
          path,
          costErrorMessage(
            'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
            this.totalCost,
            STATIC_ESTIMATED_CRD_COST_LIMIT,
          ),
        ),
      );
    }
  }

  private observe(path: string, cost: number): void {
    this.totalCost += cost;
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    this.expensive.push({ path, cost });
    this.expensive.sort((a, b) => b.cost - a.cost);
    if (this.expensive.length > 4) this.expensive.length = 4;
  }

  /**
   * Compiles the rules of `schema` and below. `cardinality` is how often the node can occur
   * (undefined: unbounded); `uncorrelatable` the path of the nearest ancestor whose old value
   * cannot be matched to the new one.
   */
  node(
    schema: JSONSchemaProps,
    type: DeclType | undefined,
    path: string,
    isRoot: boolean,
    cardinality: number | undefined,
    uncorrelatable: string | undefined,
  ): RuleNode | undefined {
    const result: RuleNode = { schema, type, rules: [], properties: new Map() };
    let hasRules = false;
    const declared: unknown = schema['x-kubernetes-validations'];
    const rules = Array.isArray(declared) ? declared.map(wellTypedRule) : [];
    if (rules.length > 0) {
      const nodeType =
        type ??
        this.builder.build(
          schema,
          isRoot || schema['x-kubernetes-embedded-resource'] === true,
          `selfType${++typeCounter}`,
        );
      result.type = nodeType;
      this.compileRules(result, rules, nodeType, path, cardinality, uncorrelatable);
      hasRules = true;
    }
    const childCardinality = (max: number | undefined): number | undefined =>
      cardinality === undefined || max === undefined ? undefined : cardinality * max;

    const additional = schema.additionalProperties;
    if (additional !== undefined && typeof additional === 'object') {
      const child = this.node(
        additional as JSONSchemaProps,
        type?.kind === 'map' ? type.elem : undefined,
        `${path}.additionalProperties`,
        false,
        childCardinality(schema.maxProperties),
        uncorrelatable,
      );
      if (child) {
        result.additionalProperties = child;
        hasRules = true;
      }
    }
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const correlatable = mapIsCorrelatable(schema['x-kubernetes-map-type']);
      const fieldType =
        type?.kind === 'object'
          ? [...type.fields.values()].find((f) => f.jsonName === name)?.type
          : undefined;
      const child = this.node(
        prop,
        fieldType,
        `${path}.properties[${name}]`,
        false,
        childCardinality(1),
        uncorrelatable ?? (correlatable ? undefined : path),
      );
      if (child) {
        result.properties.set(name, child);
        hasRules = true;
      }
    }
    if (schema.items !== undefined && !Array.isArray(schema.items)) {
      const items = schema.items as JSONSchemaProps;
      const child = this.node(
        items,
        type?.kind === 'list' ? type.elem : undefined,
        `${path}.items`,
        false,
        childCardinality(schema.maxItems),
        uncorrelatable ?? (schema['x-kubernetes-list-type'] === 'map' ? undefined : path),
      );
      if (child) {
        result.items = child;
        hasRules = true;
      }
    }
    return hasRules ? result : undefined;
  }

  private compileRules(
    node: RuleNode,
    rules: ValidationRule[],
    type: DeclType | undefined,
    path: string,
    cardinality: number | undefined,
    uncorrelatable: string | undefined,
  ): void {
    const schemaErrors: FieldError[] = [];
    rules.forEach((rule, i) => {
      const at = `${path}.x-kubernetes-validations[${i}]`;
      const trimmedRule = (rule.rule ?? '').trim();
      const trimmedMessage = (rule.message ?? '').trim();
      if (trimmedRule === '') schemaErrors.push(fieldRequired(`${at}.rule`, 'rule is not specified'));
      else if ((rule.message ?? '').length > 0 && trimmedMessage === '')
        schemaErrors.push(
          fieldInvalid(`${at}.message`, rule.message, 'message must be non-empty if specified'),
        );
      else if (NEWLINES.test(trimmedMessage))
        schemaErrors.push(
          fieldInvalid(`${at}.message`, rule.message, 'message must not contain line breaks'),
        );
      else if (NEWLINES.test(trimmedRule) && trimmedMessage === '')
        schemaErrors.push(
          fieldRequired(`${at}.message`, 'message must be specified if rule contains line breaks'),
        );
      if ((rule.messageExpression ?? '').length > 0 && rule.messageExpression!.trim() === '')
        schemaErrors.push(
          fieldRequired(`${at}.messageExpression`, 'messageExpression must be non-empty if specified'),
        );
      if (rule.reason !== undefined && !SUPPORTED_REASONS.includes(rule.reason))
        schemaErrors.push(fieldNotSupported(`${at}.reason`, rule.reason, SUPPORTED_REASONS));
      if (rule.fieldPath !== undefined && rule.fieldPath.length > 0) {
        if (rule.fieldPath.trim() === '')
          schemaErrors.push(
            fieldInvalid(`${at}.fieldPath`, rule.fieldPath, 'fieldPath must be non-empty if specified'),
          );
        if (/\n/.test(rule.fieldPath))
          schemaErrors.push(
            fieldInvalid(`${at}.fieldPath`, rule.fieldPath, 'fieldPath must not contain line breaks'),
          );
        if (normalizeFieldPath(rule.fieldPath, node.schema) === undefined)
          schemaErrors.push(
            fieldInvalid(`${at}.fieldPath`, rule.fieldPath, 'fieldPath must be a valid path'),
          );
      }
    });
    if (schemaErrors.length > 0) {
      this.errors.push(...schemaErrors);
      return;
    }
    if (type === undefined) {
      this.errors.push({
        type: 'InternalError',
        field: `${path}.x-kubernetes-validations`,
        badValue: '',
        detail:
          'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations',
      });
      return;
    }
    const environment = environmentFor(type);
    node.converter = environment.converter;
    const ruleCardinality = cardinality ?? maxCardinality(type.minSerializedSize);
    rules.forEach((rule, i) => {
      const at = `${path}.x-kubernetes-validations[${i}]`;
      const env = rule.optionalOldSelf === true ? environment.optionalEnv() : environment.env;
      const compiled = this.compileRule(env, rule, type, node.schema, at, ruleCardinality, uncorrelatable);
      if (compiled) node.rules.push(compiled);
    });
  }

  private compileRule(
    env: Environment,
    rule: ValidationRule,
    type: DeclType,
    schema: JSONSchemaProps,
    at: string,
    cardinality: number,
    uncorrelatable: string | undefined,
  ): CompiledRule | undefined {
    let program: ParseResult;
    try {
      program = env.parse(rule.rule);
    } catch (error) {
      this.observe(`${at}.rule`, 0);
      this.errors.push(
        fieldInvalid(
          `${at}.rule`,
          renderRule(rule),
          `compilation failed: ${formatIssue(error as Error, rule.rule)}`,
        ),
      );
      return undefined;
    }
    const checked = program.check();
    if (!checked.valid) {
      this.observe(`${at}.rule`, 0);
      this.errors.push(
        fieldInvalid(
          `${at}.rule`,
          renderRule(rule),
          `compilation failed: ${formatIssue(checked.error as Error, rule.rule)}`,
        ),
      );
      return undefined;
    }
    // Upstream stops at the first failure and then has no cost estimate: literal checks of
    // the compiler, the result type, then program creation.
    const literal = invalidLiteral(program.ast);
    const findPattern = invalidFindPattern(program.ast);
    const failure =
      literal !== undefined
        ? `compilation failed: ${formatIssue({ message: literal.message, summary: literal.message, node: literal.node }, rule.rule)}`
        : checked.type !== 'bool'
          ? 'cel expression must evaluate to a bool'
          : findPattern !== undefined
            ? `program instantiation failed: ${findPattern}`
            : undefined;
    if (failure !== undefined) {
      this.observe(`${at}.rule`, 0);
      this.errors.push(fieldInvalid(`${at}.rule`, renderRule(rule), failure));
      return undefined;
    }
    const staticCost = estimateMaxCost(program.ast, type);
    const cost = Math.min(staticCost * cardinality, Number.MAX_SAFE_INTEGER);
    if (cost > STATIC_ESTIMATED_COST_LIMIT)
      this.errors.push(
        fieldForbidden(
          `${at}.rule`,
          costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT),
        ),
      );
    this.observe(`${at}.rule`, cost);
    const transition = referencesOldSelf(program.ast);
    let message: ParseResult | undefined;
    if (rule.messageExpression !== undefined && rule.messageExpression !== '') {
      message = this.compileMessageExpression(env, rule, type, at);
    }
    if (transition && uncorrelatable !== undefined) {
      this.errors.push(
        fieldInvalid(
          `${at}.rule`,
          rule.rule,
          `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`,
        ),
      );
    }
    const fieldPath = rule.fieldPath ? normalizeFieldPath(rule.fieldPath, schema) : undefined;
    return { rule, program, message, transition, staticCost, fieldPath };
  }

  private compileMessageExpression(
    env: Environment,
    rule: ValidationRule,
    type: DeclType,
    at: string,
  ): ParseResult | undefined {
    const source = rule.messageExpression!;
    let program: ParseResult;
    try {
      program = env.parse(source);
    } catch (error) {
      this.errors.push(
        fieldInvalid(
          `${at}.messageExpression`,
          renderRule(rule),
          `messageExpression compilation failed: ${formatIssue(error as Error, source)}`,
        ),
      );
      return undefined;
    }
    const checked = program.check();
    if (!checked.valid) {
      this.errors.push(
        fieldInvalid(
          `${at}.messageExpression`,
          renderRule(rule),
          `messageExpression compilation failed: ${formatIssue(checked.error as Error, source)}`,
        ),
      );
      return undefined;
    }
    const literal = invalidLiteral(program.ast);
    if (literal !== undefined) {
      const issue = formatIssue(
        { message: literal.message, summary: literal.message, node: literal.node },
        source,
      );
      this.errors.push(
        fieldInvalid(
          `${at}.messageExpression`,
          renderRule(rule),
          `messageExpression compilation failed: ${issue}`,
        ),
      );
      return undefined;
    }
    if (checked.type !== 'string') {
      this.errors.push(
        fieldInvalid(
          `${at}.messageExpression`,
          renderRule(rule),
          'messageExpression must evaluate to a string',
        ),
      );
      return undefined;
    }
    const cost = estimateMaxCost(program.ast, type);
    if (cost > STATIC_ESTIMATED_COST_LIMIT)
      this.errors.push(
        fieldForbidden(
          `${at}.messageExpression`,
          costErrorMessage('estimated messageExpression cost', cost, STATIC_ESTIMATED_COST_LIMIT),
        ),
      );
    this.observe(`${at}.messageExpression`, cost);
    return program;
  }
}

/** Compiles every rule under `schema`; errors come back at `path` with upstream's texts. */
export function compileRuleTree(
  schema: JSONSchemaProps,
  path: string,
): { errors: FieldError[]; root: RuleNode | undefined } {
  const builder = new DeclTypeBuilder();
  const rootType = builder.build(schema, true, `selfType${++typeCounter}`);
  const compiler = new SchemaCompiler(builder);
  const root = compiler.node(schema, rootType, path, true, 1, undefined);
  compiler.finish(path);
  return { errors: compiler.errors, root };
}
