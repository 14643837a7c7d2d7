// kube-openapi's validation errors (pkg/validation/errors) and how apiextensions-apiserver turns
// them into field errors (pkg/apiserver/validation/validation.go kubeOpenAPIResultToFieldErrors).
import { goQuote } from '../../../api/selectors/go-text.js';
import {
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../api/selectors/index.js';
import { fieldTooMany } from '../../registry/validation/object-meta.js';
import { canonicalJson, goBadValue, goFloat } from './json-value.js';

/** Where kube-openapi says a value sits; CRD validation always says "body". */
const IN = 'body';

export type OpenApiErrorCode =
  | 'InvalidType'
  | 'Required'
  | 'TooLong'
  | 'TooShort'
  | 'Pattern'
  | 'Enum'
  | 'MultipleOf'
  | 'Max'
  | 'Min'
  | 'Unique'
  | 'MaxItems'
  | 'MinItems'
  | 'TooFewProperties'
  | 'TooManyProperties'
  | 'UnallowedProperty';

/** errors.Validation: a failure at a named value. */
export interface OpenApiValidationError {
  readonly code: OpenApiErrorCode;
  /** The value's path as kube-openapi writes it (`spec.items[0].name`, `.extra` at the root). */
  readonly name: string;
  readonly value: unknown;
  /** The limit broken (maxLength, maxItems, maxProperties). */
  readonly limit?: number;
  readonly values?: readonly unknown[];
  readonly message: string;
}

/** errors.CompositeError and the other plain errors (anyOf, oneOf, allOf, not). */
export interface OpenApiCompositeError {
  readonly code: 'Composite';
  readonly message: string;
}

export type OpenApiError = OpenApiValidationError | OpenApiCompositeError;

/** Go's `%v` of a JSON number. */
export function goNumber(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : goFloat(value);
}

function at(name: string): string {
  return `${name} in ${IN}`;
}

export function invalidType(name: string, typeName: string, value: string): OpenApiValidationError {
  return {
    code: 'InvalidType',
    name,
    value,
    message: `${at(name)} must be of type ${typeName}: ${goQuote(value)}`,
  };
}

export function required(name: string): OpenApiValidationError {
  return { code: 'Required', name, value: undefined, message: `${at(name)} is required` };
}

export function tooLong(name: string, max: number, value: string): OpenApiValidationError {
  return {
    code: 'TooLong',
    name,
    value,
    limit: max,
    message: `${at(name)} should be at most ${max} chars long`,
  };
}

export function tooShort(name: string, min: number, value: string): OpenApiValidationError {
  return { code: 'TooShort', name, value, message: `${at(name)} should be at least ${min} chars long` };
}

export function failedPattern(name: string, pattern: string, value: string): OpenApiValidationError {
  return { code: 'Pattern', name, value, message: `${at(name)} should match '${pattern}'` };
}

export function enumFail(name: string, value: unknown, values: readonly unknown[]): OpenApiValidationError {
  const shown = values.map((item) => (typeof item === 'string' ? item : canonicalJson(item))).join(' ');
  return { code: 'Enum', name, value, values, message: `${at(name)} should be one of [${shown}]` };
}

export function notMultipleOf(name: string, factor: number, value: number): OpenApiValidationError {
  return {
    code: 'MultipleOf',
    name,
    value,
    message: `${at(name)} should be a multiple of ${goNumber(factor)}`,
  };
}

export function exceedsMaximum(
  name: string,
  max: number,
  exclusive: boolean,
  value: number,
): OpenApiValidationError {
  const relation = exclusive ? 'less than' : 'less than or equal to';
  return { code: 'Max', name, value, message: `${at(name)} should be ${relation} ${goNumber(max)}` };
}

export function exceedsMinimum(
  name: string,
  min: number,
  exclusive: boolean,
  value: number,
): OpenApiValidationError {
  const relation = exclusive ? 'greater than' : 'greater than or equal to';
  return { code: 'Min', name, value, message: `${at(name)} should be ${relation} ${goNumber(min)}` };
}

export function duplicateItems(name: string): OpenApiValidationError {
  return { code: 'Unique', name, value: undefined, message: `${at(name)} shouldn't contain duplicates` };
}

export function tooManyItems(name: string, max: number, size: number): OpenApiValidationError {
  return {
    code: 'MaxItems',
    name,
    value: size,
    limit: max,
    message: `${at(name)} should have at most ${max} items`,
  };
}

export function tooFewItems(name: string, min: number, size: number): OpenApiValidationError {
  return { code: 'MinItems', name, value: size, message: `${at(name)} should have at least ${min} items` };
}

export function tooFewProperties(name: string, min: number, size: number): OpenApiValidationError {
  return {
    code: 'TooFewProperties',
    name,
    value: size,
    message: `${at(name)} should have at least ${min} properties`,
  };
}

export function tooManyProperties(name: string, max: number, size: number): OpenApiValidationError {
  return {
    code: 'TooManyProperties',
    name,
    value: size,
    limit: max,
    message: `${at(name)} should have at most ${max} properties`,
  };
}

export function propertyNotAllowed(name: string, key: string): OpenApiValidationError {
  return {
    code: 'UnallowedProperty',
    name,
    value: key,
    message: `${name}.${key} in ${IN} is a forbidden property`,
  };
}

export function composite(message: string): OpenApiCompositeError {
  return { code: 'Composite', message };
}

/** Go's field.Path of a nil root with the kube-openapi name as child. */
function errorPath(root: string | undefined, name: string): string {
  const child = name.startsWith('.') ? name.slice(1) : name;
  if (name === '' || name === '.') return root ?? '<nil>';
  return root === undefined ? child : `${root}.${child}`;
}

/** field.TooLong of 1.33 (the value is not printed). */
function fieldTooLong(path: string, value: unknown, max: number): FieldError {
  const detail =
    max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
  return { type: 'FieldValueTooLong', field: path, badValue: value, detail };
}

/**
 * kubeOpenAPIResultToFieldErrors. `root` is the field path the validated value sits at
 * (undefined for a custom resource itself, which Go prints as `<nil>` for whole-object errors).
 */
export function toFieldErrors(errors: readonly OpenApiError[], root?: string): FieldError[] {
  return errors.map((error): FieldError => {
    if (error.code === 'Composite') return fieldInvalid(root ?? '<nil>', '', error.message);
    const path = errorPath(root, error.name);
    const value = goBadValue(error.value ?? '');
    switch (error.code) {
      case 'Required':
        return fieldRequired(path, '');
      case 'Enum':
        return fieldNotSupported(
          path,
          goBadValue(error.value ?? null),
          (error.values ?? []).map((item) => (typeof item === 'string' ? item : canonicalJson(item))),
        );
      case 'TooLong':
        return fieldTooLong(path, value, error.limit ?? -1);
      case 'MaxItems':
      case 'TooManyProperties':
        return fieldTooMany(path, typeof error.value === 'number' ? error.value : -1, error.limit ?? -1);
      case 'InvalidType':
        return { type: 'FieldValueTypeInvalid', field: path, badValue: value, detail: error.message };
      default:
        return fieldInvalid(path, value, error.message);
    }
  });
}
