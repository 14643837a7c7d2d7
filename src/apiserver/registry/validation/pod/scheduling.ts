// The scheduling-related parts of a pod spec: node selectors and affinity, tolerations, topology
// spread constraints (also used by other kinds that embed node selectors).
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  validateLabelSelectorObject,
} from '../../../../api/selectors/index.js';
import {
  fieldsOf,
  isJsonObject,
  type JsonObject,
  numberOf,
  objectOf,
  objectsOf,
  optionalNumber,
  optionalString,
  stringOf,
  stringsOf,
} from '../json.js';
import { isValidLabelValue, nameIsDnsLabel, nameIsDnsSubdomain } from '../names.js';
import { fieldDuplicate, validateLabelName } from '../object-meta.js';

const NOT_POSITIVE = 'must be greater than zero';

/** ValidateNodeSelectorRequirement. */
function validateNodeSelectorRequirement(
  requirement: JsonObject,
  allowInvalidValues: boolean,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const values = stringsOf(requirement.values);
  const operator = stringOf(requirement.operator);
  const valuesPath = childPath(path, 'values');
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0)
        errors.push(fieldRequired(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) {
        errors.push(
          fieldForbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
      }
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) {
        errors.push(
          fieldRequired(valuesPath, "must be specified single value when `operator` is 'Lt' or 'Gt'"),
        );
      }
      break;
    default:
      errors.push(fieldInvalid(childPath(path, 'operator'), operator, 'not a valid selector operator'));
  }
  errors.push(...validateLabelName(stringOf(requirement.key), childPath(path, 'key')));
  if (!allowInvalidValues) {
    values.forEach((value, index) => {
      for (const problem of isValidLabelValue(value))
        errors.push(fieldInvalid(indexPath(valuesPath, index), value, problem));
    });
  }
  return errors;
}

function validateNodeFieldSelectorRequirement(requirement: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const operator = stringOf(requirement.operator);
  const values = stringsOf(requirement.values);
  if (operator === 'In' || operator === 'NotIn') {
    if (values.length !== 1) {
      errors.push(
        fieldRequired(
          childPath(path, 'values'),
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        ),
      );
    }
  } else {
    errors.push(fieldInvalid(childPath(path, 'operator'), operator, 'not a valid selector operator'));
  }
  const key = stringOf(requirement.key);
  if (key !== 'metadata.name') {
    errors.push(fieldInvalid(childPath(path, 'key'), key, 'not a valid field selector key'));
  } else {
    values.forEach((value, index) => {
      for (const problem of nameIsDnsSubdomain(value, false)) {
        errors.push(fieldInvalid(indexPath(childPath(path, 'values'), index), value, problem));
      }
    });
  }
  return errors;
}

/** ValidateNodeSelectorTerm. */
export function validateNodeSelectorTerm(
  term: unknown,
  allowInvalidValues: boolean,
  path: string,
): FieldError[] {
  const fields = fieldsOf(term);
  const errors: FieldError[] = [];
  objectsOf(fields.matchExpressions).forEach((requirement, index) => {
    errors.push(
      ...validateNodeSelectorRequirement(
        requirement,
        allowInvalidValues,
        indexPath(childPath(path, 'matchExpressions'), index),
      ),
    );
  });
  objectsOf(fields.matchFields).forEach((requirement, index) => {
    errors.push(
      ...validateNodeFieldSelectorRequirement(requirement, indexPath(childPath(path, 'matchFields'), index)),
    );
  });
  return errors;
}

/** ValidateNodeSelector. */
export function validateNodeSelector(
  selector: unknown,
  allowInvalidValues: boolean,
  path: string,
): FieldError[] {
  const termsPath = childPath(path, 'nodeSelectorTerms');
  const terms = objectsOf(fieldsOf(selector).nodeSelectorTerms);
  if (terms.length === 0) return [fieldRequired(termsPath, 'must have at least one node selector term')];
  return terms.flatMap((term, index) =>
    validateNodeSelectorTerm(term, allowInvalidValues, indexPath(termsPath, index)),
  );
}

function validateWeight(weight: number, path: string): FieldError[] {
  return weight <= 0 || weight > 100 ? [fieldInvalid(path, weight, 'must be in the range 1-100')] : [];
}

function validateLabelKeys(keys: string[], selector: unknown, path: string): FieldError[] {
  if (keys.length === 0) return [];
  if (!isJsonObject(selector))
    return [fieldForbidden(path, 'must not be specified when labelSelector is not set')];
  return keys.flatMap((key, index) => validateLabelName(key, indexPath(path, index)));
}

function validatePodAffinityTerm(term: JsonObject, path: string): FieldError[] {
  const errors = [
    ...validateLabelSelectorObject(objectOf(term.labelSelector), childPath(path, 'labelSelector')),
    ...validateLabelSelectorObject(objectOf(term.namespaceSelector), childPath(path, 'namespaceSelector')),
  ];
  for (const namespace of stringsOf(term.namespaces)) {
    for (const problem of nameIsDnsLabel(namespace, false))
      errors.push(fieldInvalid(childPath(path, 'namespace'), namespace, problem));
  }
  const matchKeys = stringsOf(term.matchLabelKeys);
  const mismatchKeys = stringsOf(term.mismatchLabelKeys);
  errors.push(...validateLabelKeys(matchKeys, term.labelSelector, childPath(path, 'matchLabelKeys')));
  errors.push(...validateLabelKeys(mismatchKeys, term.labelSelector, childPath(path, 'mismatchLabelKeys')));
  const selector = objectOf(term.labelSelector);
  if (selector !== undefined) {
    const selectorKeys = new Set(Object.keys(fieldsOf(selector.matchLabels)));
    for (const expression of objectsOf(selector.matchExpressions)) {
      const key = stringOf(expression.key);
      const index = matchKeys.lastIndexOf(key);
      if (index >= 0 && selectorKeys.has(key)) {
        errors.push(
          fieldInvalid(indexPath(path, index), key, 'exists in both matchLabelKeys and labelSelector'),
        );
      }
      selectorKeys.add(key);
    }
  }
  const mismatch = new Set(mismatchKeys);
  matchKeys.forEach((key, index) => {
    if (mismatch.has(key)) {
      errors.push(
        fieldInvalid(
          indexPath(childPath(path, 'matchLabelKeys'), index),
          key,
          'exists in both matchLabelKeys and mismatchLabelKeys',
        ),
      );
    }
  });
  const topologyKey = stringOf(term.topologyKey);
  if (topologyKey === '') errors.push(fieldRequired(childPath(path, 'topologyKey'), 'can not be empty'));
  errors.push(...validateLabelName(topologyKey, childPath(path, 'topologyKey')));
  return errors;
}

function validatePodAffinityKind(affinity: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const requiredPath = childPath(path, 'requiredDuringSchedulingIgnoredDuringExecution');
  objectsOf(affinity.requiredDuringSchedulingIgnoredDuringExecution).forEach((term, index) => {
    errors.push(...validatePodAffinityTerm(term, indexPath(requiredPath, index)));
  });
  const preferredPath = childPath(path, 'preferredDuringSchedulingIgnoredDuringExecution');
  objectsOf(affinity.preferredDuringSchedulingIgnoredDuringExecution).forEach((weighted, index) => {
    const itemPath = indexPath(preferredPath, index);
    errors.push(...validateWeight(numberOf(weighted.weight), childPath(itemPath, 'weight')));
    errors.push(
      ...validatePodAffinityTerm(fieldsOf(weighted.podAffinityTerm), childPath(itemPath, 'podAffinityTerm')),
    );
  });
  return errors;
}

/** validateAffinity. */
export function validateAffinity(affinity: unknown, path: string): FieldError[] {
  const fields = objectOf(affinity);
  if (fields === undefined) return [];
  const errors: FieldError[] = [];
  const node = objectOf(fields.nodeAffinity);
  if (node !== undefined) {
    const nodePath = childPath(path, 'nodeAffinity');
    if (isJsonObject(node.requiredDuringSchedulingIgnoredDuringExecution)) {
      errors.push(
        ...validateNodeSelector(
          node.requiredDuringSchedulingIgnoredDuringExecution,
          false,
          childPath(nodePath, 'requiredDuringSchedulingIgnoredDuringExecution'),
        ),
      );
    }
    const preferredPath = childPath(nodePath, 'preferredDuringSchedulingIgnoredDuringExecution');
    objectsOf(node.preferredDuringSchedulingIgnoredDuringExecution).forEach((term, index) => {
      const itemPath = indexPath(preferredPath, index);
      errors.push(...validateWeight(numberOf(term.weight), childPath(itemPath, 'weight')));
      // Preferred terms may use values that are not label values (they match nothing).
      errors.push(...validateNodeSelectorTerm(term.preference, true, childPath(itemPath, 'preference')));
    });
  }
  const pod = objectOf(fields.podAffinity);
  if (pod !== undefined) errors.push(...validatePodAffinityKind(pod, childPath(path, 'podAffinity')));
  const anti = objectOf(fields.podAntiAffinity);
  if (anti !== undefined) errors.push(...validatePodAffinityKind(anti, childPath(path, 'podAntiAffinity')));
  return errors;
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** validateTaintEffect. */
export function validateTaintEffect(effect: string, allowEmpty: boolean, path: string): FieldError[] {
  if (!allowEmpty && effect === '') return [fieldRequired(path, '')];
  return TAINT_EFFECTS.includes(effect) ? [] : [fieldNotSupported(path, effect, TAINT_EFFECTS)];
}

/** ValidateTolerations. */
export function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  objectsOf(tolerations).forEach((toleration, index) => {
    const itemPath = indexPath(path, index);
    const key = stringOf(toleration.key);
    const operator = stringOf(toleration.operator);
    const value = stringOf(toleration.value);
    const effect = stringOf(toleration.effect);
    if (key !== '') errors.push(...validateLabelName(key, childPath(itemPath, 'key')));
    if (key === '' && operator !== 'Exists') {
      errors.push(
        fieldInvalid(
          childPath(itemPath, 'operator'),
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (optionalNumber(toleration.tolerationSeconds) !== undefined && effect !== 'NoExecute') {
      errors.push(
        fieldInvalid(
          childPath(itemPath, 'effect'),
          effect,
          "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
      );
    }
    switch (operator) {
      case 'Equal':
      case '': {
        const problems = isValidLabelValue(value);
        if (problems.length > 0)
          errors.push(fieldInvalid(childPath(itemPath, 'operator'), value, problems.join(';')));
        break;
      }
      case 'Exists':
        if (value !== '') {
          errors.push(
            fieldInvalid(
              childPath(itemPath, 'operator'),
              value,
              "value must be empty when `operator` is 'Exists'",
            ),
          );
        }
        break;
      default:
        errors.push(fieldNotSupported(childPath(itemPath, 'operator'), operator, ['Equal', 'Exists']));
    }
    if (effect !== '') errors.push(...validateTaintEffect(effect, true, childPath(itemPath, 'effect')));
  });
  return errors;
}

const WHEN_UNSATISFIABLE = ['DoNotSchedule', 'ScheduleAnyway'];
const NODE_INCLUSION_POLICIES = ['Honor', 'Ignore'];

/** validateTopologySpreadConstraints. */
export function validateTopologySpreadConstraints(constraints: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const list = objectsOf(constraints);
  list.forEach((constraint, index) => {
    const itemPath = indexPath(path, index);
    const maxSkew = numberOf(constraint.maxSkew);
    if (maxSkew <= 0) errors.push(fieldInvalid(childPath(itemPath, 'maxSkew'), maxSkew, NOT_POSITIVE));
    const topologyKey = stringOf(constraint.topologyKey);
    if (topologyKey === '')
      errors.push(fieldRequired(childPath(itemPath, 'topologyKey'), 'can not be empty'));
    const when = stringOf(constraint.whenUnsatisfiable);
    if (!WHEN_UNSATISFIABLE.includes(when)) {
      errors.push(fieldNotSupported(childPath(itemPath, 'whenUnsatisfiable'), when, WHEN_UNSATISFIABLE));
    }
    const repeated = list
      .slice(index + 1)
      .some(
        (other) => stringOf(other.topologyKey) === topologyKey && stringOf(other.whenUnsatisfiable) === when,
      );
    if (repeated) {
      errors.push(
        fieldDuplicate(childPath(itemPath, '{topologyKey, whenUnsatisfiable}'), `{${topologyKey}, ${when}}`),
      );
    }
    const minDomains = optionalNumber(constraint.minDomains);
    if (minDomains !== undefined) {
      const minPath = childPath(itemPath, 'minDomains');
      if (minDomains <= 0) errors.push(fieldInvalid(minPath, minDomains, NOT_POSITIVE));
      if (when !== 'DoNotSchedule') {
        errors.push(
          fieldInvalid(
            minPath,
            minDomains,
            `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${when}`,
          ),
        );
      }
    }
    for (const key of ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const) {
      const policy = optionalString(constraint[key]);
      if (policy !== undefined && !NODE_INCLUSION_POLICIES.includes(policy)) {
        errors.push(fieldNotSupported(childPath(itemPath, key), policy, NODE_INCLUSION_POLICIES));
      }
    }
    const matchKeys = stringsOf(constraint.matchLabelKeys);
    if (matchKeys.length > 0) {
      const keysPath = childPath(itemPath, 'matchLabelKeys');
      const selector = objectOf(constraint.labelSelector);
      const selectorKeys = new Set<string>();
      if (selector !== undefined) {
        for (const key of Object.keys(fieldsOf(selector.matchLabels))) selectorKeys.add(key);
        for (const expression of objectsOf(selector.matchExpressions))
          selectorKeys.add(stringOf(expression.key));
      } else {
        errors.push(fieldForbidden(keysPath, 'must not be specified when labelSelector is not set'));
      }
      matchKeys.forEach((key, keyIndex) => {
        errors.push(...validateLabelName(key, indexPath(keysPath, keyIndex)));
        if (selectorKeys.has(key)) {
          errors.push(
            fieldInvalid(
              indexPath(keysPath, keyIndex),
              key,
              'exists in both matchLabelKeys and labelSelector',
            ),
          );
        }
      });
    }
    errors.push(
      ...validateLabelSelectorObject(
        objectOf(constraint.labelSelector),
        childPath(itemPath, 'labelSelector'),
      ),
    );
  });
  return errors;
}
