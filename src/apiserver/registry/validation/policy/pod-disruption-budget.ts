// policy/v1 PodDisruptionBudgets. Kubernetes validates only the spec here; the generic
// ObjectMeta check (path-segment names) runs afterwards, and only when the spec is valid.
import type { KubeObject } from '../../../../api/object.js';
import {
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  validateLabelSelectorObject,
} from '../../../../api/selectors/index.js';
import { GoRendered, goIntOrString } from '../go-rendered.js';
import { fieldsOf, isSet, type JsonObject, numberOf, objectOf, optionalString } from '../json.js';
import { isValidPercent, nameIsPathSegment } from '../names.js';
import { validateNonnegative, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

function validateIntOrPercent(value: unknown, path: string): FieldError[] {
  if (typeof value === 'string') {
    const errors = isValidPercent(value).map((problem) => fieldInvalid(path, goIntOrString(value), problem));
    if (errors.length === 0 && Number.parseInt(value.slice(0, -1), 10) > 100) {
      errors.push(fieldInvalid(path, goIntOrString(value), 'must not be greater than 100%'));
    }
    return errors;
  }
  return validateNonnegative(numberOf(value), path);
}

function validateSpec(spec: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  if (isSet(spec.minAvailable) && isSet(spec.maxUnavailable)) {
    errors.push(
      fieldInvalid(
        'spec',
        new GoRendered('policy.PodDisruptionBudgetSpec{...}'),
        'minAvailable and maxUnavailable cannot be both set',
      ),
    );
  }
  if (isSet(spec.minAvailable)) errors.push(...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable'));
  if (isSet(spec.maxUnavailable))
    errors.push(...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  errors.push(...validateLabelSelectorObject(objectOf(spec.selector), 'spec.selector'));
  const policy = optionalString(spec.unhealthyPodEvictionPolicy);
  if (policy !== undefined && !EVICTION_POLICIES.includes(policy)) {
    errors.push(fieldNotSupported('spec.unhealthyPodEvictionPolicy', policy, EVICTION_POLICIES));
  }
  return errors;
}

export function validatePodDisruptionBudget(budget: KubeObject): FieldError[] {
  const errors = validateSpec(fieldsOf(budget.spec));
  return errors.length > 0
    ? errors
    : validateObjectMeta(budget.metadata, { namespaced: true, name: nameIsPathSegment });
}

export function validatePodDisruptionBudgetUpdate(budget: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(budget.metadata, old.metadata), ...validateSpec(fieldsOf(budget.spec))];
}
