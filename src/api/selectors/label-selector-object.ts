// metav1.LabelSelector (the `selector` of Deployments, Services' consumers, PDBs, ...): conversion
// to a LabelSelector and API validation, with Kubernetes' semantics and messages.
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  indexPath,
} from './field-errors.js';
import { goQuote } from './go-text.js';
import { type LabelOperator, type LabelRequirement, newLabelRequirement } from './label-requirement.js';
import { LabelSelector } from './label-selector.js';
import { isQualifiedName, isValidLabelValue } from './name-validation.js';
import { SelectorError } from './selector-error.js';

/** metav1.LabelSelectorRequirement as it arrives in JSON. */
export interface LabelSelectorRequirementObject {
  key: string;
  /** `In`, `NotIn`, `Exists` or `DoesNotExist`. */
  operator: string;
  values?: readonly string[] | null;
}

/** metav1.LabelSelector as it arrives in JSON. */
export interface LabelSelectorObject {
  matchLabels?: Readonly<Record<string, string>> | null;
  matchExpressions?: readonly LabelSelectorRequirementObject[] | null;
}

// Decoded JSON may lack a key or operator; Go sees the empty string then.
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

const OBJECT_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * metav1.LabelSelectorAsSelector: null or undefined selects nothing, `{}` selects everything.
 * Throws a SelectorError with Kubernetes' message for an unknown operator or a bad requirement.
 */
export function labelSelectorFromObject(selector: LabelSelectorObject | null | undefined): LabelSelector {
  if (selector === null || selector === undefined) return LabelSelector.nothing();
  const matchLabels = Object.entries(selector.matchLabels ?? {});
  const matchExpressions = selector.matchExpressions ?? [];
  if (matchLabels.length + matchExpressions.length === 0) return LabelSelector.everything();
  const requirements: LabelRequirement[] = matchLabels.map(([key, value]) =>
    newLabelRequirement(key, '=', [value]),
  );
  for (const expression of matchExpressions) {
    const name = text(expression.operator);
    const operator = Object.hasOwn(OBJECT_OPERATORS, name) ? OBJECT_OPERATORS[name] : undefined;
    if (operator === undefined)
      throw new SelectorError(`${goQuote(name)} is not a valid label selector operator`);
    requirements.push(newLabelRequirement(text(expression.key), operator, [...(expression.values ?? [])]));
  }
  return LabelSelector.of(requirements);
}

/** Options of Kubernetes' LabelSelectorValidationOptions. */
export interface LabelSelectorValidationOptions {
  /** Accept values that are not valid label values (for objects stored before validation was tight). */
  allowInvalidLabelValueInSelector?: boolean;
  /** Accept operators that cannot be interpreted (as SubjectAccessReviews do). */
  allowUnknownOperatorInRequirement?: boolean;
}

function validateRequirement(
  requirement: LabelSelectorRequirementObject,
  options: LabelSelectorValidationOptions,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const values = requirement.values ?? [];
  const valuesPath = childPath(path, 'values');
  const operator = text(requirement.operator);
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        errors.push(fieldRequired(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) {
        errors.push(
          fieldForbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
      }
      break;
    default:
      if (!options.allowUnknownOperatorInRequirement) {
        errors.push(fieldInvalid(childPath(path, 'operator'), operator, 'not a valid selector operator'));
      }
  }
  const keyPath = childPath(path, 'key');
  const key = text(requirement.key);
  for (const problem of isQualifiedName(key)) errors.push(fieldInvalid(keyPath, key, problem));
  if (!options.allowInvalidLabelValueInSelector) {
    values.forEach((value, index) => {
      for (const problem of isValidLabelValue(value)) {
        errors.push(fieldInvalid(indexPath(valuesPath, index), value, problem));
      }
    });
  }
  return errors;
}

/**
 * Validates a metav1.LabelSelector at `fieldPath` (e.g. `spec.selector`) as Kubernetes'
 * ValidateLabelSelector does; a null selector is valid. Returns the field errors, empty when valid.
 */
export function validateLabelSelectorObject(
  selector: LabelSelectorObject | null | undefined,
  fieldPath: string,
  options: LabelSelectorValidationOptions = {},
): FieldError[] {
  if (selector === null || selector === undefined) return [];
  const errors: FieldError[] = [];
  const labelsPath = childPath(fieldPath, 'matchLabels');
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    for (const problem of isQualifiedName(key)) errors.push(fieldInvalid(labelsPath, key, problem));
    for (const problem of isValidLabelValue(value)) errors.push(fieldInvalid(labelsPath, value, problem));
  }
  const expressionsPath = childPath(fieldPath, 'matchExpressions');
  (selector.matchExpressions ?? []).forEach((requirement, index) => {
    errors.push(...validateRequirement(requirement, options, indexPath(expressionsPath, index)));
  });
  return errors;
}
