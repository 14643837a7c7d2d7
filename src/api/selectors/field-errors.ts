import { goQuote, goStringSlice } from './go-text.js';

/** The machine-readable reasons of field errors (Kubernetes' `field.ErrorType`, the `StatusCause.reason`). */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

/** One validation failure of one field, as Kubernetes reports it. */
export interface FieldError {
  type: FieldErrorType;
  /** Path of the field, e.g. `spec.selector.matchExpressions[0].key`. */
  field: string;
  badValue: unknown;
  detail: string;
}

const TYPE_TEXT: Readonly<Record<FieldErrorType, string>> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Appends a child field name to a path (`spec` + `selector` → `spec.selector`). */
export function childPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** Appends a subscript to a path (`values` + 0 → `values[0]`, `matchLabels` + `app` → `matchLabels[app]`). */
export function indexPath(path: string, index: number | string): string {
  return `${path}[${index}]`;
}

export function fieldInvalid(field: string, badValue: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, badValue, detail };
}

export function fieldRequired(field: string, detail: string): FieldError {
  return { type: 'FieldValueRequired', field, badValue: '', detail };
}

export function fieldForbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, badValue: '', detail };
}

export function fieldNotSupported(
  field: string,
  badValue: unknown,
  validValues: readonly string[],
): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field, badValue, detail };
}

/**
 * A bad value already printed the way Go prints it (%#v of maps, selectors, structs), so
 * messages match kube-apiserver's. `omitted` stands for field.OmitValueType{}: no value shown.
 */
export class GoRendered {
  constructor(
    readonly text: string,
    readonly omitted = false,
  ) {}

  toString(): string {
    return this.text;
  }

  toJSON(): string {
    return this.text;
  }
}

function renderBadValue(value: unknown): string {
  if (value instanceof GoRendered) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return goStringSlice(value);
  return JSON.stringify(value);
}

/** The message without the field name (Go's `ErrorBody`, used as `StatusCause.message`). */
export function fieldErrorBody(error: FieldError): string {
  let body = TYPE_TEXT[error.type];
  const omitsValue =
    error.type === 'FieldValueRequired' ||
    error.type === 'FieldValueForbidden' ||
    error.type === 'FieldValueTooLong' ||
    error.type === 'InternalError';
  const omitted = error.badValue instanceof GoRendered && error.badValue.omitted;
  if (!omitsValue && !omitted) body += `: ${renderBadValue(error.badValue)}`;
  if (error.detail !== '') body += `: ${error.detail}`;
  return body;
}

/** `field: body`, as Go's `field.Error.Error()` prints it. */
export function fieldErrorMessage(error: FieldError): string {
  return `${error.field}: ${fieldErrorBody(error)}`;
}

/**
 * Joins messages as Go's error aggregate does: duplicates dropped, one message alone,
 * several as `[a, b]`.
 */
export function aggregateMessages(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
