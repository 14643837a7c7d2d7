// scheduling.k8s.io/v1 PriorityClasses: `system-` names are reserved, user values are capped.
import type { KubeObject } from '../../../../api/object.js';
import {
  type FieldError,
  fieldForbidden,
  fieldNotSupported,
  fieldRequired,
} from '../../../../api/selectors/index.js';
import { fieldsOf, numberOf, optionalString, stringOf } from '../json.js';
import { nameIsDnsSubdomain } from '../names.js';
import { validateImmutable, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';

const SYSTEM_PREFIX = 'system-';
const HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000;
const SYSTEM_CLASSES: Readonly<Record<string, number>> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};

function systemClassProblem(name: string, value: number, globalDefault: boolean): string | undefined {
  const expected = SYSTEM_CLASSES[name];
  if (expected === undefined) return `${name} is not a known system priority class`;
  if (value !== expected) return `value of ${name} PriorityClass must be ${expected}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClass(priorityClass: KubeObject): FieldError[] {
  const errors = validateObjectMeta(priorityClass.metadata, { namespaced: false, name: nameIsDnsSubdomain });
  const name = stringOf(fieldsOf(priorityClass.metadata).name);
  const value = numberOf(priorityClass.value);
  if (name.startsWith(SYSTEM_PREFIX)) {
    const problem = systemClassProblem(name, value, priorityClass.globalDefault === true);
    if (problem !== undefined) {
      errors.push(
        fieldForbidden(
          'metadata.name',
          `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${problem}`,
        ),
      );
    }
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errors.push(
      fieldForbidden(
        'value',
        `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`,
      ),
    );
  }
  const preemption = optionalString(priorityClass.preemptionPolicy);
  if (preemption !== undefined) {
    if (preemption === '') errors.push(fieldRequired('preemptionPolicy', ''));
    else if (preemption !== 'PreemptLowerPriority' && preemption !== 'Never') {
      errors.push(fieldNotSupported('preemptionPolicy', preemption, ['PreemptLowerPriority', 'Never']));
    }
  }
  return errors;
}

export function validatePriorityClassUpdate(priorityClass: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(priorityClass.metadata, old.metadata);
  if (numberOf(priorityClass.value) !== numberOf(old.value))
    errors.push(fieldForbidden('value', 'may not be changed in an update.'));
  errors.push(...validateImmutable(priorityClass.preemptionPolicy, old.preemptionPolicy, 'preemptionPolicy'));
  return errors;
}
