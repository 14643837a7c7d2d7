// Kubernetes' CEL: the environment and library (k8s.io/apiserver/pkg/cel), and the
// `x-kubernetes-validations` rules of CRD schemas (apiextensions-apiserver's schema/cel). This file is
// the seam the CRD registry calls; the implementations live beside it.
import type { FieldError } from '../../api/selectors/field-errors.js';
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';
import { compileRuleTree } from './schema-rules.js';
import { RUNTIME_CEL_COST_BUDGET, validateNode } from './validate.js';

export { kubernetesEnvironment, newKubernetesEnvironment } from './environment.js';
export { STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './schema-rules.js';
export { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from './validate.js';

/** The compiled rules of one CRD version's schema. */
export interface SchemaValidationRules {
  /**
   * Evaluates every rule against `object` (and `old` on updates, for transition rules), returning
   * upstream's field errors (`message`, `messageExpression`, `reason`, `fieldPath`).
   */
  validate(object: unknown, old: unknown | undefined): FieldError[];
  /**
   * As validate, and also evaluates the rules that validation ratcheting skips on an update
   * (values left unchanged): their failures come back as warnings, as upstream reports them.
   */
  validateWithWarnings?(
    object: unknown,
    old: unknown | undefined,
  ): { errors: FieldError[]; warnings: FieldError[] };
}

const BLOCKING_TYPES = new Set([
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

/**
 * When schema validation found a missing, oversized or mistyped value, upstream's custom
 * resource strategy runs no rules and reports this error instead (hasBlockingErr); undefined
 * when the rules may run.
 */
export function blockingSchemaError(schemaErrors: readonly FieldError[]): FieldError | undefined {
  if (!schemaErrors.some((error) => BLOCKING_TYPES.has(error.type))) return undefined;
  return {
    type: 'FieldValueInvalid',
    field: '<nil>',
    badValue: 'null',
    detail:
      'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  };
}

const NO_RULES: SchemaValidationRules = {
  validate: () => [],
  validateWithWarnings: () => ({ errors: [], warnings: [] }),
};

const cache = new WeakMap<
  JSONSchemaProps,
  Map<string, { errors: FieldError[]; rules: SchemaValidationRules }>
>();

/**
 * Compiles every `x-kubernetes-validations` rule of a CRD version's schema. Rules that do not
 * compile or exceed the cost budget come back as field errors under `path` (e.g.
 * `spec.validation.openAPIV3Schema`), with upstream's texts. Compiled once per schema object.
 */
export function compileSchemaValidations(
  schema: JSONSchemaProps,
  path: string,
): { errors: FieldError[]; rules: SchemaValidationRules } {
  let byPath = cache.get(schema);
  const cached = byPath?.get(path);
  if (cached !== undefined) return cached;
  const { errors, root } = compileRuleTree(schema, path);
  const rules: SchemaValidationRules =
    root === undefined
      ? NO_RULES
      : {
          validate(object, old) {
            const found: FieldError[] = [];
            validateNode(root, object, old, '', found, {
              remaining: RUNTIME_CEL_COST_BUDGET,
              exhausted: false,
            });
            return found;
          },
          validateWithWarnings(object, old) {
            const found: FieldError[] = [];
            const warnings: FieldError[] = [];
            validateNode(root, object, old, '', found, {
              remaining: RUNTIME_CEL_COST_BUDGET,
              exhausted: false,
              warnings,
            });
            return { errors: found, warnings };
          },
        };
  const result = { errors, rules };
  if (byPath === undefined) {
    byPath = new Map();
    cache.set(schema, byPath);
  }
  byPath.set(path, result);
  return result;
}
