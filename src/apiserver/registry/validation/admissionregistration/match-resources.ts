// The match resources of ValidatingAdmissionPolicies and their bindings
// (pkg/apis/admissionregistration/validation: validateMatchResources, validateRuleWithOperations,
// validateResources) and their v1 defaults (SetDefaults_MatchResources, SetDefaults_Rule).
import {
  childPath,
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  type LabelSelectorObject,
  validateLabelSelectorObject,
} from '../../../../api/selectors/index.js';
import { goTypedStringSlice } from '../go-rendered.js';
import { arrayOf, fieldsOf, isSet, type JsonObject, objectOf, stringOf, stringsOf } from '../json.js';
import { fieldDuplicate } from '../object-meta.js';

const MATCH_POLICIES = ['Equivalent', 'Exact'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

/** path.ValidatePathSegmentName. */
export function pathSegmentProblems(name: string): string[] {
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

export function validateNamedRule(rule: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  stringsOf(rule.resourceNames).forEach((name, index) => {
    const at = indexPath(childPath(path, 'resourceNames'), index);
    for (const problem of pathSegmentProblems(name)) errors.push(fieldInvalid(at, name, problem));
    if (seen.has(name)) errors.push(fieldDuplicate(at, name));
    seen.add(name);
  });
  const operations = stringsOf(rule.operations);
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
  const groups = stringsOf(rule.apiGroups);
  if (groups.length === 0) errors.push(fieldRequired(childPath(path, 'apiGroups'), ''));
  if (groups.length > 1 && groups.includes('*'))
    errors.push(
      fieldInvalid(
        childPath(path, 'apiGroups'),
        groups,
        "if '*' is present, must not specify other API groups",
      ),
    );
  const versions = stringsOf(rule.apiVersions);
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
  errors.push(...validateResources(stringsOf(rule.resources), childPath(path, 'resources')));
  if (isSet(rule.scope) && !SCOPES.includes(stringOf(rule.scope)))
    errors.push(fieldNotSupported(childPath(path, 'scope'), stringOf(rule.scope), SCOPES));
  return errors;
}

export function validateMatchResources(match: unknown, path: string): FieldError[] {
  if (!isSet(match)) return [];
  const m = fieldsOf(match);
  const errors: FieldError[] = [];
  if (!isSet(m.matchPolicy)) errors.push(fieldRequired(childPath(path, 'matchPolicy'), ''));
  else if (!MATCH_POLICIES.includes(stringOf(m.matchPolicy)))
    errors.push(fieldNotSupported(childPath(path, 'matchPolicy'), stringOf(m.matchPolicy), MATCH_POLICIES));
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
  arrayOf(m.resourceRules).forEach((rule, index) => {
    errors.push(...validateNamedRule(fieldsOf(rule), indexPath(childPath(path, 'resourceRules'), index)));
  });
  arrayOf(m.excludeResourceRules).forEach((rule, index) => {
    errors.push(
      ...validateNamedRule(fieldsOf(rule), indexPath(childPath(path, 'excludeResourceRules'), index)),
    );
  });
  return errors;
}

/** SetDefaults_MatchResources and SetDefaults_Rule, in place (a value that is no object is left to validation). */
export function defaultMatchResources(match: unknown): void {
  const m = objectOf(match);
  if (m === undefined) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const rule of [...arrayOf(m.resourceRules), ...arrayOf(m.excludeResourceRules)])
    if (typeof rule === 'object' && rule !== null) (rule as JsonObject).scope ??= '*';
}
