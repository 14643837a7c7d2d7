// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (pkg/apis/admissionregistration/
// validation and v1 defaults): match constraints, match conditions, variables, validations and audit
// annotations with every CEL expression compiled at write (a compile error refuses the object with
// cel-go's text), paramKind, failurePolicy; status writes check only the expression warnings.
import type { KubeObject } from '../../../../api/object.js';
import {
  childPath,
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import {
  type AdmissionReturnType,
  type AdmissionVariables,
  compileAdmissionExpression,
} from '../../../cel/admission-environment.js';
import { isCelReservedWord } from '../../../cel/escaping.js';
import { arrayOf, fieldsOf, isSet, type JsonObject, stringOf } from '../json.js';
import { isDns1035Label, isDns1123Subdomain, isQualifiedName, nameIsDnsSubdomain } from '../names.js';
import {
  fieldDuplicate,
  fieldTooMany,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';
import { defaultMatchResources, validateMatchResources } from './match-resources.js';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_VALUE_EXPRESSION_LENGTH = 5 * 1024;
const MAX_MATCH_CONDITIONS = 64;
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/** Compiles an expression; its error as upstream's convertCELErrorToValidationError reports it. */
function compileErrors(
  expression: string,
  variables: AdmissionVariables,
  returnType: AdmissionReturnType,
  path: string,
  variableNames?: readonly string[] | null,
): FieldError[] {
  const result = compileAdmissionExpression(expression, variables, returnType, variableNames);
  return result.error === undefined ? [] : [fieldInvalid(path, expression, result.error)];
}

function validateParamKind(paramKind: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const apiVersion = stringOf(paramKind.apiVersion);
  const at = childPath(path, 'apiVersion');
  if (apiVersion === '') errors.push(fieldRequired(at, ''));
  else if (apiVersion !== '/') {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1)
      errors.push(fieldInvalid(at, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = slashes === 0 ? ['', apiVersion] : (apiVersion.split('/') as [string, string]);
      if (group !== '') {
        const problems = isDns1123Subdomain(group);
        if (problems.length > 0) errors.push(fieldInvalid(at, group, problems.join(',')));
      }
      if (version === '') errors.push(fieldInvalid(at, apiVersion, 'version must be specified'));
      else {
        const problems = isDns1035Label(version);
        if (problems.length > 0) errors.push(fieldInvalid(at, version, problems.join(',')));
      }
    }
  }
  const kind = stringOf(paramKind.kind);
  if (kind === '') errors.push(fieldRequired(childPath(path, 'kind'), ''));
  else {
    const problems = isDns1035Label(kind.toLowerCase());
    if (problems.length > 0)
      errors.push(
        fieldInvalid(
          childPath(path, 'kind'),
          kind,
          `may have mixed case, but should otherwise match: ${problems.join(',')}`,
        ),
      );
  }
  return errors;
}

export function validateMatchConditions(
  conditions: unknown[],
  hasParams: boolean,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS)
    errors.push(fieldTooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((value, index) => {
    const condition = fieldsOf(value);
    const at = indexPath(path, index);
    const expression = stringOf(condition.expression).trim();
    if (expression === '') errors.push(fieldRequired(childPath(at, 'expression'), ''));
    else
      errors.push(
        // Match conditions compile without the policy's variables, as upstream's stateless compiler does.
        ...compileErrors(
          expression,
          { hasParams, hasAuthorizer: true },
          'bool',
          childPath(at, 'expression'),
          null,
        ),
      );
    const name = stringOf(condition.name);
    if (name === '') errors.push(fieldRequired(childPath(at, 'name'), ''));
    else
      for (const problem of isQualifiedName(name))
        errors.push(fieldInvalid(childPath(at, 'name'), name, problem));
    if (name !== '') {
      if (names.has(name)) errors.push(fieldDuplicate(childPath(at, 'name'), name));
      names.add(name);
    }
  });
  return errors;
}

/** What a policy's expressions may read: params (with a paramKind) and the variables declared so far. */
interface Scope {
  readonly hasParams: boolean;
  /** Null when the policy declares no variables: `variables` is then undeclared. */
  readonly variableNames: readonly string[] | null;
}

function validateValidation(
  validation: JsonObject,
  { hasParams, variableNames }: Scope,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const expression = stringOf(validation.expression);
  const message = stringOf(validation.message);
  const messageExpression = stringOf(validation.messageExpression);
  if (expression.trim() === '')
    errors.push(fieldRequired(childPath(path, 'expression'), 'expression is not specified'));
  else
    errors.push(
      ...compileErrors(
        expression,
        { hasParams, hasAuthorizer: true },
        'bool',
        childPath(path, 'expression'),
        variableNames,
      ),
    );
  if (messageExpression.length > 0 && messageExpression.trim() === '')
    errors.push(
      fieldInvalid(childPath(path, 'messageExpression'), messageExpression, 'must be non-empty if specified'),
    );
  else if (messageExpression.trim() !== '')
    errors.push(
      ...compileErrors(
        messageExpression,
        { hasParams, hasAuthorizer: false },
        'string',
        childPath(path, 'messageExpression'),
        variableNames,
      ),
    );
  if (message.length > 0 && message.trim() === '')
    errors.push(fieldInvalid(childPath(path, 'message'), message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(message.trim()))
    errors.push(fieldInvalid(childPath(path, 'message'), message, 'message must not contain line breaks'));
  if (isSet(validation.reason) && !REASONS.includes(stringOf(validation.reason)))
    errors.push(fieldNotSupported(childPath(path, 'reason'), stringOf(validation.reason), REASONS));
  return errors;
}

function validateAuditAnnotation(
  policyName: string,
  annotation: JsonObject,
  { hasParams, variableNames }: Scope,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const key = stringOf(annotation.key);
  if (policyName !== '') {
    for (const problem of isQualifiedName(`${policyName}/${key}`))
      errors.push(fieldInvalid(childPath(path, 'key'), `${policyName}/${key}`, problem));
  } else errors.push(fieldInvalid(childPath(path, 'key'), key, 'requires metadata.name be non-empty'));
  const valueExpression = stringOf(annotation.valueExpression);
  const trimmed = valueExpression.trim();
  const at = childPath(path, 'valueExpression');
  if (trimmed === '') errors.push(fieldRequired(at, 'valueExpression is not specified'));
  else if (trimmed.length > MAX_AUDIT_VALUE_EXPRESSION_LENGTH)
    errors.push(fieldRequired(at, `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION_LENGTH} bytes in length`));
  else {
    const result = compileAdmissionExpression(
      trimmed,
      { hasParams, hasAuthorizer: true },
      'string-or-null',
      variableNames,
    );
    if (result.error !== undefined) errors.push(fieldInvalid(at, valueExpression, result.error));
  }
  return errors;
}

function validateVariable(
  variable: JsonObject,
  { hasParams, variableNames }: Scope,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringOf(variable.name);
  if (name.trim() === '') errors.push(fieldRequired(childPath(path, 'name'), 'name is not specified'));
  else if (!CEL_IDENTIFIER.test(name) || isCelReservedWord(name))
    errors.push(fieldInvalid(childPath(path, 'name'), name, 'name is not a valid CEL identifier'));
  const expression = stringOf(variable.expression);
  if (expression.trim() === '')
    errors.push(fieldRequired(childPath(path, 'expression'), 'expression is not specified'));
  else
    errors.push(
      ...compileErrors(
        expression,
        { hasParams, hasAuthorizer: true },
        'any',
        childPath(path, 'expression'),
        variableNames,
      ),
    );
  return errors;
}

function validatePolicySpec(policyName: string, spec: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!isSet(spec.failurePolicy)) errors.push(fieldRequired(childPath(path, 'failurePolicy'), ''));
  else if (!FAILURE_POLICIES.includes(stringOf(spec.failurePolicy)))
    errors.push(
      fieldNotSupported(childPath(path, 'failurePolicy'), stringOf(spec.failurePolicy), FAILURE_POLICIES),
    );
  const hasParams = isSet(spec.paramKind);
  if (hasParams) errors.push(...validateParamKind(fieldsOf(spec.paramKind), childPath(path, 'paramKind')));
  if (!isSet(spec.matchConstraints)) errors.push(fieldRequired(childPath(path, 'matchConstraints'), ''));
  else {
    errors.push(...validateMatchResources(spec.matchConstraints, childPath(path, 'matchConstraints')));
    // At least one resource rule gives the expressions a type to work with.
    if (arrayOf(fieldsOf(spec.matchConstraints).resourceRules).length === 0)
      errors.push(fieldRequired(childPath(childPath(path, 'matchConstraints'), 'resourceRules'), ''));
  }
  errors.push(
    ...validateMatchConditions(arrayOf(spec.matchConditions), hasParams, childPath(path, 'matchConditions')),
  );
  // Each variable may read the ones before it; validations and audit annotations read them all.
  const variableNames: string[] = [];
  arrayOf(spec.variables).forEach((variable, index) => {
    const scope = { hasParams, variableNames: [...variableNames] };
    errors.push(
      ...validateVariable(fieldsOf(variable), scope, indexPath(childPath(path, 'variables'), index)),
    );
    variableNames.push(stringOf(fieldsOf(variable).name));
  });
  const scope: Scope = { hasParams, variableNames: variableNames.length > 0 ? variableNames : null };
  const validations = arrayOf(spec.validations);
  const annotations = arrayOf(spec.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    const detail = 'validations or auditAnnotations must contain at least one item';
    errors.push(fieldRequired(childPath(path, 'validations'), detail));
    errors.push(fieldRequired(childPath(path, 'auditAnnotations'), detail));
    return errors;
  }
  validations.forEach((validation, index) => {
    errors.push(
      ...validateValidation(fieldsOf(validation), scope, indexPath(childPath(path, 'validations'), index)),
    );
  });
  if (annotations.length > MAX_AUDIT_ANNOTATIONS)
    errors.push(
      fieldInvalid(
        childPath(path, 'auditAnnotations'),
        annotations,
        `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
      ),
    );
  const keys = new Set<string>();
  annotations.forEach((value, index) => {
    const annotation = fieldsOf(value);
    const at = indexPath(childPath(path, 'auditAnnotations'), index);
    errors.push(...validateAuditAnnotation(policyName, annotation, scope, at));
    const key = stringOf(annotation.key);
    if (keys.has(key)) errors.push(fieldDuplicate(childPath(at, 'key'), key));
    keys.add(key);
  });
  return errors;
}

function validateStatus(status: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const warnings = arrayOf(fieldsOf(fieldsOf(status).typeChecking).expressionWarnings);
  warnings.forEach((value, index) => {
    const warning = fieldsOf(value);
    const at = indexPath('status.typeChecking.expressionWarnings', index);
    if (stringOf(warning.warning) === '') errors.push(fieldRequired(childPath(at, 'warning'), ''));
    if (stringOf(warning.fieldRef).trim() === '') errors.push(fieldRequired(childPath(at, 'fieldRef'), ''));
  });
  return errors;
}

export function validateValidatingAdmissionPolicy(policy: KubeObject): FieldError[] {
  const errors = validateObjectMeta(policy.metadata, { namespaced: false, name: nameIsDnsSubdomain });
  errors.push(...validatePolicySpec(stringOf(policy.metadata?.name), fieldsOf(policy.spec), 'spec'));
  return errors;
}

export function validateValidatingAdmissionPolicyUpdate(
  policy: KubeObject,
  old: KubeObject,
  subresource: string,
): FieldError[] {
  if (subresource === 'status') return validateStatus(policy.status);
  return [
    ...validateObjectMetaUpdate(policy.metadata, old.metadata),
    ...validatePolicySpec(stringOf(policy.metadata?.name), fieldsOf(policy.spec), 'spec'),
  ];
}

/** SetDefaults_ValidatingAdmissionPolicySpec and SetDefaults_MatchResources / SetDefaults_Rule. */
export function defaultValidatingAdmissionPolicy(policy: KubeObject): void {
  if (typeof policy.spec !== 'object' || policy.spec === null) return;
  const spec = policy.spec as JsonObject;
  spec.failurePolicy ??= 'Fail';
  defaultMatchResources(spec.matchConstraints);
}
