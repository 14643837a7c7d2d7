// A ValidatingAdmissionPolicy compiled once per generation (upstream's validator construction in
// pkg/admission/plugin/policy/validating/plugin.go compileAndStore): its match conditions,
// variables, validations with their message expressions, and audit annotations. An expression
// that does not compile is kept with its error, reported at evaluation as upstream's filter does.
import type { ParseResult } from '@marcbachmann/cel-js';
import type {
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicySpec,
} from '../../../api/types/admissionregistration-v1.generated.js';
import {
  type AdmissionReturnType,
  type AdmissionVariables,
  compileAdmissionExpression,
} from '../../cel/admission-environment.js';

/** One compiled expression, or why it did not compile. */
export interface CompiledExpression {
  readonly source: string;
  readonly program?: ParseResult | undefined;
  readonly error?: string | undefined;
}

export interface CompiledValidation {
  readonly expression: CompiledExpression;
  readonly message: string;
  readonly messageExpression?: CompiledExpression | undefined;
  readonly reason: string;
}

export interface CompiledPolicy {
  readonly name: string;
  readonly generation: number;
  readonly spec: ValidatingAdmissionPolicySpec;
  readonly failurePolicy: string;
  readonly matchConditions: readonly { name: string; expression: CompiledExpression }[];
  readonly variables: readonly { name: string; expression: CompiledExpression }[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly { key: string; valueExpression: CompiledExpression }[];
}

function compile(
  source: string,
  variables: AdmissionVariables,
  returnType: AdmissionReturnType,
): CompiledExpression {
  const result = compileAdmissionExpression(source, variables, returnType);
  return result.program !== undefined ? { source, program: result.program } : { source, error: result.error };
}

export function compilePolicy(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = policy.spec ?? {};
  const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
  const withAuthorizer = { hasParams, hasAuthorizer: true };
  return {
    name: policy.metadata?.name ?? '',
    generation: Number(policy.metadata?.generation ?? 0),
    spec,
    failurePolicy: spec.failurePolicy ?? 'Fail',
    matchConditions: (spec.matchConditions ?? []).map((condition) => ({
      name: condition.name ?? '',
      expression: compile(condition.expression ?? '', withAuthorizer, 'bool'),
    })),
    variables: (spec.variables ?? []).map((variable) => ({
      name: variable.name ?? '',
      expression: compile(variable.expression ?? '', withAuthorizer, 'any'),
    })),
    validations: (spec.validations ?? []).map((validation) => ({
      expression: compile(validation.expression ?? '', withAuthorizer, 'bool'),
      message: validation.message ?? '',
      messageExpression: validation.messageExpression
        ? compile(validation.messageExpression, { hasParams, hasAuthorizer: false }, 'string')
        : undefined,
      reason: validation.reason ?? 'Invalid',
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((annotation) => ({
      key: annotation.key ?? '',
      valueExpression: compile(annotation.valueExpression ?? '', withAuthorizer, 'string-or-null'),
    })),
  };
}
