// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
// (pkg/apis/admissionregistration/validation and v1 defaults): match resources and rules, match
// conditions, variables, validations and audit annotations with every CEL expression compiled
// at write (a compile error refuses the object with cel-go's text), paramKind, failurePolicy;
// a binding's policyName, paramRef and validationActions.
import type { KubeObject } from '../../../../api/object.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  type LabelSelectorObject,
  validateLabelSelectorObject,
} from '../../../../api/selectors/index.js';
import {
  type AdmissionReturnType,
  type AdmissionVariables,
  compileAdmissionExpression,
} from '../../../cel/admission-environment.js';
import { goTypedStringSlice } from '../go-rendered.js';
import { isDns1035Label, isDns1123Subdomain, isQualifiedName, nameIsDnsSubdomain } from '../names.js';
import {
  fieldDuplicate,
  fieldTooMany,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';

type Json = Record<string, unknown>;

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_VALUE_EXPRESSION_LENGTH = 5 * 1024;
const MAX_MATCH_CONDITIONS = 64;
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

function obj(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return list(value).map(str);
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** path.ValidatePathSegmentName. */
function pathSegmentProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const problems: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) problems.push(`may not contain '${illegal}'`);
  return problems;
}

function validateResources(resources: string[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (resources.length === 0) errors.push(fieldRequired(path, ''));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSubresource = false;
  resources.forEach((entry, index) => {
    if (entry === '') {
      errors.push(fieldRequired(indexPath(path, index), ''));
      return;
    }
    if (entry === '*/*') doubleWildcard = true;
    if (entry === '*') singleWildcard = true;
    const slash = entry.indexOf('/');
    if (slash < 0) {
      withoutSubresource = entry !== '*';
      return;
    }
    const [res, sub] = [entry.slice(0, slash), entry.slice(slash + 1)];
    if (withWildcardSub.has(res))
      errors.push(
        fieldInvalid(indexPath(path, index), entry, `if '${res}/*' is present, must not specify ${entry}`),
      );
    if (subWithWildcardRes.has(sub))
      errors.push(
        fieldInvalid(indexPath(path, index), entry, `if '*/${sub}' is present, must not specify ${entry}`),
      );
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard)
    errors.push(fieldInvalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSubresource)
    errors.push(
      fieldInvalid(
        path,
        resources,
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  return errors;
}

function validateNamedRule(rule: Json, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  strings(rule.resourceNames).forEach((name, index) => {
    const at = indexPath(childPath(path, 'resourceNames'), index);
    for (const problem of pathSegmentProblems(name)) errors.push(fieldInvalid(at, name, problem));
    if (seen.has(name)) errors.push(fieldDuplicate(at, name));
    seen.add(name);
  });
  const operations = strings(rule.operations);
  if (operations.length === 0) errors.push(fieldRequired(childPath(path, 'operations'), ''));
  if (operations.length > 1 && operations.includes('*'))
    errors.push(
      fieldInvalid(
        childPath(path, 'operations'),
        goTypedStringSlice('admissionregistration.OperationType', operations),
        "if '*' is present, must not specify other operations",
      ),
    );
  operations.forEach((operation, index) => {
    if (!OPERATIONS.includes(operation))
      errors.push(fieldNotSupported(indexPath(childPath(path, 'operations'), index), operation, OPERATIONS));
  });
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) errors.push(fieldRequired(childPath(path, 'apiGroups'), ''));
  if (groups.length > 1 && groups.includes('*'))
    errors.push(
      fieldInvalid(
        childPath(path, 'apiGroups'),
        groups,
        "if '*' is present, must not specify other API groups",
      ),
    );
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) errors.push(fieldRequired(childPath(path, 'apiVersions'), ''));
  if (versions.length > 1 && versions.includes('*'))
    errors.push(
      fieldInvalid(
        childPath(path, 'apiVersions'),
        versions,
        "if '*' is present, must not specify other API versions",
      ),
    );
  versions.forEach((version, index) => {
    if (version === '') errors.push(fieldRequired(indexPath(childPath(path, 'apiVersions'), index), ''));
  });
  errors.push(...validateResources(strings(rule.resources), childPath(path, 'resources')));
  if (isSet(rule.scope) && !SCOPES.includes(str(rule.scope)))
    errors.push(fieldNotSupported(childPath(path, 'scope'), str(rule.scope), SCOPES));
  return errors;
}

function validateMatchResources(match: unknown, path: string): FieldError[] {
  if (!isSet(match)) return [];
  const m = obj(match);
  const errors: FieldError[] = [];
  if (!isSet(m.matchPolicy)) errors.push(fieldRequired(childPath(path, 'matchPolicy'), ''));
  else if (!MATCH_POLICIES.includes(str(m.matchPolicy)))
    errors.push(fieldNotSupported(childPath(path, 'matchPolicy'), str(m.matchPolicy), MATCH_POLICIES));
  if (!isSet(m.namespaceSelector)) errors.push(fieldRequired(childPath(path, 'namespaceSelector'), ''));
  else
    errors.push(
      ...validateLabelSelectorObject(
        m.namespaceSelector as LabelSelectorObject,
        childPath(path, 'namespaceSelector'),
      ),
    );
  // Upstream names the object selector's path `labelSelector`.
  if (!isSet(m.objectSelector)) errors.push(fieldRequired(childPath(path, 'labelSelector'), ''));
  else
    errors.push(
      ...validateLabelSelectorObject(
        m.objectSelector as LabelSelectorObject,
        childPath(path, 'labelSelector'),
      ),
    );
  list(m.resourceRules).forEach((rule, index) => {
    errors.push(...validateNamedRule(obj(rule), indexPath(childPath(path, 'resourceRules'), index)));
  });
  list(m.excludeResourceRules).forEach((rule, index) => {
    errors.push(...validateNamedRule(obj(rule), indexPath(childPath(path, 'excludeResourceRules'), index)));
  });
  return errors;
}

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

function validateParamKind(paramKind: Json, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const apiVersion = str(paramKind.apiVersion);
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
  const kind = str(paramKind.kind);
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

function validateMatchConditions(conditions: unknown[], hasParams: boolean, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS)
    errors.push(fieldTooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((value, index) => {
    const condition = obj(value);
    const at = indexPath(path, index);
    const expression = str(condition.expression).trim();
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
    const name = str(condition.name);
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
  validation: Json,
  { hasParams, variableNames }: Scope,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const expression = str(validation.expression);
  const message = str(validation.message);
  const messageExpression = str(validation.messageExpression);
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
  if (isSet(validation.reason) && !REASONS.includes(str(validation.reason)))
    errors.push(fieldNotSupported(childPath(path, 'reason'), str(validation.reason), REASONS));
  return errors;
}

function validateAuditAnnotation(
  policyName: string,
  annotation: Json,
  { hasParams, variableNames }: Scope,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const key = str(annotation.key);
  if (policyName !== '') {
    for (const problem of isQualifiedName(`${policyName}/${key}`))
      errors.push(fieldInvalid(childPath(path, 'key'), `${policyName}/${key}`, problem));
  } else errors.push(fieldInvalid(childPath(path, 'key'), key, 'requires metadata.name be non-empty'));
  const valueExpression = str(annotation.valueExpression);
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

function validateVariable(variable: Json, { hasParams, variableNames }: Scope, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = str(variable.name);
  if (name.trim() === '') errors.push(fieldRequired(childPath(path, 'name'), 'name is not specified'));
  else if (!CEL_IDENTIFIER.test(name) || CEL_RESERVED.has(name))
    errors.push(fieldInvalid(childPath(path, 'name'), name, 'name is not a valid CEL identifier'));
  const expression = str(variable.expression);
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

function validatePolicySpec(policyName: string, spec: Json, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!isSet(spec.failurePolicy)) errors.push(fieldRequired(childPath(path, 'failurePolicy'), ''));
  else if (!FAILURE_POLICIES.includes(str(spec.failurePolicy)))
    errors.push(
      fieldNotSupported(childPath(path, 'failurePolicy'), str(spec.failurePolicy), FAILURE_POLICIES),
    );
  const hasParams = isSet(spec.paramKind);
  if (hasParams) errors.push(...validateParamKind(obj(spec.paramKind), childPath(path, 'paramKind')));
  if (!isSet(spec.matchConstraints)) errors.push(fieldRequired(childPath(path, 'matchConstraints'), ''));
  else {
    errors.push(...validateMatchResources(spec.matchConstraints, childPath(path, 'matchConstraints')));
    // At least one resource rule gives the expressions a type to work with.
    if (list(obj(spec.matchConstraints).resourceRules).length === 0)
      errors.push(fieldRequired(childPath(childPath(path, 'matchConstraints'), 'resourceRules'), ''));
  }
  errors.push(
    ...validateMatchConditions(list(spec.matchConditions), hasParams, childPath(path, 'matchConditions')),
  );
  // Each variable may read the ones before it; validations and audit annotations read them all.
  const variableNames: string[] = [];
  list(spec.variables).forEach((variable, index) => {
    const scope = { hasParams, variableNames: [...variableNames] };
    errors.push(...validateVariable(obj(variable), scope, indexPath(childPath(path, 'variables'), index)));
    variableNames.push(str(obj(variable).name));
  });
  const scope: Scope = { hasParams, variableNames: variableNames.length > 0 ? variableNames : null };
  const validations = list(spec.validations);
  const annotations = list(spec.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    const detail = 'validations or auditAnnotations must contain at least one item';
    errors.push(fieldRequired(childPath(path, 'validations'), detail));
    errors.push(fieldRequired(childPath(path, 'auditAnnotations'), detail));
    return errors;
  }
  validations.forEach((validation, index) => {
    errors.push(
      ...validateValidation(obj(validation), scope, indexPath(childPath(path, 'validations'), index)),
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
    const annotation = obj(value);
    const at = indexPath(childPath(path, 'auditAnnotations'), index);
    errors.push(...validateAuditAnnotation(policyName, annotation, scope, at));
    const key = str(annotation.key);
    if (keys.has(key)) errors.push(fieldDuplicate(childPath(at, 'key'), key));
    keys.add(key);
  });
  return errors;
}

function validateStatus(status: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const warnings = list(obj(obj(status).typeChecking).expressionWarnings);
  warnings.forEach((value, index) => {
    const warning = obj(value);
    const at = indexPath('status.typeChecking.expressionWarnings', index);
    if (str(warning.warning) === '') errors.push(fieldRequired(childPath(at, 'warning'), ''));
    if (str(warning.fieldRef).trim() === '') errors.push(fieldRequired(childPath(at, 'fieldRef'), ''));
  });
  return errors;
}

export function validateValidatingAdmissionPolicy(policy: KubeObject): FieldError[] {
  const errors = validateObjectMeta(policy.metadata, { namespaced: false, name: nameIsDnsSubdomain });
  errors.push(...validatePolicySpec(str(policy.metadata?.name), obj(policy.spec), 'spec'));
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
    ...validatePolicySpec(str(policy.metadata?.name), obj(policy.spec), 'spec'),
  ];
}

function validateParamRef(paramRef: unknown, path: string): FieldError[] {
  if (!isSet(paramRef)) return [];
  const ref = obj(paramRef);
  const errors: FieldError[] = [];
  const name = str(ref.name);
  if (name !== '') {
    for (const problem of pathSegmentProblems(name))
      errors.push(fieldInvalid(childPath(path, 'name'), name, problem));
    if (isSet(ref.selector))
      errors.push(fieldForbidden(childPath(path, 'name'), 'name and selector are mutually exclusive'));
  }
  if (isSet(ref.selector)) {
    errors.push(
      ...validateLabelSelectorObject(ref.selector as LabelSelectorObject, childPath(path, 'selector')),
    );
    if (name !== '')
      errors.push(fieldForbidden(childPath(path, 'selector'), 'name and selector are mutually exclusive'));
  }
  if (name === '' && !isSet(ref.selector))
    errors.push(fieldRequired(path, 'one of name or selector must be specified'));
  const action = str(ref.parameterNotFoundAction);
  if (action === '') errors.push(fieldRequired(childPath(path, 'parameterNotFoundAction'), ''));
  else if (action !== 'Deny' && action !== 'Allow')
    errors.push(fieldNotSupported(childPath(path, 'parameterNotFoundAction'), action, ['Deny', 'Allow']));
  return errors;
}

function validateValidationActions(actions: string[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((action, index) => {
    if (!VALIDATION_ACTIONS.includes(action))
      errors.push(fieldNotSupported(indexPath(path, index), action, VALIDATION_ACTIONS));
    if (seen.has(action)) errors.push(fieldDuplicate(indexPath(path, index), action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn'))
    errors.push(
      fieldInvalid(
        path,
        goTypedStringSlice('admissionregistration.ValidationAction', actions),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  if (seen.size === 0) errors.push(fieldRequired(path, 'at least one validation action is required'));
  return errors;
}

function validateBindingSpec(spec: Json): FieldError[] {
  const errors: FieldError[] = [];
  const policyName = str(spec.policyName);
  if (policyName === '') errors.push(fieldRequired('spec.policyName', ''));
  else
    for (const problem of nameIsDnsSubdomain(policyName, false))
      errors.push(fieldInvalid('spec.policyName', policyName, problem));
  errors.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  // Upstream's path has this spelling.
  errors.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  errors.push(...validateValidationActions(strings(spec.validationActions), 'spec.validationActions'));
  return errors;
}

export function validateValidatingAdmissionPolicyBinding(binding: KubeObject): FieldError[] {
  const errors = validateObjectMeta(binding.metadata, { namespaced: false, name: nameIsDnsSubdomain });
  errors.push(...validateBindingSpec(obj(binding.spec)));
  return errors;
}

export function validateValidatingAdmissionPolicyBindingUpdate(
  binding: KubeObject,
  old: KubeObject,
): FieldError[] {
  return [
    ...validateObjectMetaUpdate(binding.metadata, old.metadata),
    ...validateBindingSpec(obj(binding.spec)),
  ];
}

function defaultMatchResources(match: unknown): void {
  if (!isSet(match)) return;
  const m = match as Json;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const rule of [...list(m.resourceRules), ...list(m.excludeResourceRules)])
    if (typeof rule === 'object' && rule !== null) (rule as Json).scope ??= '*';
}

/** SetDefaults_ValidatingAdmissionPolicySpec and SetDefaults_MatchResources / SetDefaults_Rule. */
export function defaultValidatingAdmissionPolicy(policy: KubeObject): void {
  if (typeof policy.spec !== 'object' || policy.spec === null) return;
  const spec = policy.spec as Json;
  spec.failurePolicy ??= 'Fail';
  defaultMatchResources(spec.matchConstraints);
}

export function defaultValidatingAdmissionPolicyBinding(binding: KubeObject): void {
  if (typeof binding.spec !== 'object' || binding.spec === null) return;
  defaultMatchResources((binding.spec as Json).matchResources);
}
