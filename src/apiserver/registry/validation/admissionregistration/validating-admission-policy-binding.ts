// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding (pkg/apis/admissionregistration/
// validation): policyName, paramRef (name or selector, parameterNotFoundAction), match resources and
// validationActions with the Deny+Warn rule.
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
import { goTypedStringSlice } from '../go-rendered.js';
import { fieldsOf, isSet, type JsonObject, stringOf, stringsOf } from '../json.js';
import { nameIsDnsSubdomain } from '../names.js';
import { fieldDuplicate, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { defaultMatchResources, pathSegmentProblems, validateMatchResources } from './match-resources.js';

const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];

function validateParamRef(paramRef: unknown, path: string): FieldError[] {
  if (!isSet(paramRef)) return [];
  const ref = fieldsOf(paramRef);
  const errors: FieldError[] = [];
  const name = stringOf(ref.name);
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
  const action = stringOf(ref.parameterNotFoundAction);
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

function validateBindingSpec(spec: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const policyName = stringOf(spec.policyName);
  if (policyName === '') errors.push(fieldRequired('spec.policyName', ''));
  else
    for (const problem of nameIsDnsSubdomain(policyName, false))
      errors.push(fieldInvalid('spec.policyName', policyName, problem));
  errors.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  // Upstream's path has this spelling.
  errors.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  errors.push(...validateValidationActions(stringsOf(spec.validationActions), 'spec.validationActions'));
  return errors;
}

export function validateValidatingAdmissionPolicyBinding(binding: KubeObject): FieldError[] {
  const errors = validateObjectMeta(binding.metadata, { namespaced: false, name: nameIsDnsSubdomain });
  errors.push(...validateBindingSpec(fieldsOf(binding.spec)));
  return errors;
}

export function validateValidatingAdmissionPolicyBindingUpdate(
  binding: KubeObject,
  old: KubeObject,
): FieldError[] {
  return [
    ...validateObjectMetaUpdate(binding.metadata, old.metadata),
    ...validateBindingSpec(fieldsOf(binding.spec)),
  ];
}

export function defaultValidatingAdmissionPolicyBinding(binding: KubeObject): void {
  if (typeof binding.spec !== 'object' || binding.spec === null) return;
  defaultMatchResources((binding.spec as JsonObject).matchResources);
}
