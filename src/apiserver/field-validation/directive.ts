import {
  aggregateMessages,
  type FieldError,
  fieldErrorBody,
  fieldErrorMessage,
  fieldNotSupported,
} from '../../api/selectors/field-errors.js';
import { StatusError } from '../status.js';

/** The `fieldValidation` directive of create, update and patch requests. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** kube-apiserver's directive when the parameter is absent or empty (kubectl sends Strict itself). */
export const DEFAULT_FIELD_VALIDATION: FieldValidation = 'Warn';

/** The options type the parameter belongs to, named in the 422 error. */
export type FieldValidationOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

// Sorted, with "" first, as Go's sets.String.List() gives them in the error's detail.
const SUPPORTED = ['', 'Ignore', 'Strict', 'Warn'];

function isDirective(value: string): value is FieldValidation {
  return value === 'Strict' || value === 'Warn' || value === 'Ignore';
}

/**
 * The field error for an unsupported `fieldValidation` value (none for a valid or absent one), for handlers
 * that report it together with the other options errors (dryRun, fieldManager) in one 422, as
 * ValidateCreateOptions / ValidateUpdateOptions / ValidatePatchOptions do, fieldValidation last.
 */
export function fieldValidationOptionErrors(value: string | null | undefined): FieldError[] {
  if (value === null || value === undefined || value === '' || isDirective(value)) return [];
  return [fieldNotSupported('fieldValidation', value, SUPPORTED)];
}

/**
 * The 422 kube-apiserver answers for invalid request options before it reads the body:
 * `CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported
 * values: "", "Ignore", "Strict", "Warn"`.
 */
export function invalidOptions(kind: FieldValidationOptionsKind, errors: readonly FieldError[]): StatusError {
  return new StatusError(
    422,
    'Invalid',
    `${kind}.meta.k8s.io "" is invalid: ${aggregateMessages(errors.map(fieldErrorMessage))}`,
    {
      group: 'meta.k8s.io',
      kind,
      causes: errors.map((error) => ({
        reason: error.type,
        message: fieldErrorBody(error),
        field: error.field,
      })),
    },
  );
}

/**
 * The directive named by the `fieldValidation` query parameter (the first value when repeated): Warn when
 * absent or empty; any value other than Strict, Warn or Ignore (case matters) is a 422.
 */
export function fieldValidationDirective(
  value: string | null | undefined,
  optionsKind: FieldValidationOptionsKind,
): FieldValidation {
  if (value === null || value === undefined || value === '') return DEFAULT_FIELD_VALIDATION;
  if (isDirective(value)) return value;
  throw invalidOptions(optionsKind, fieldValidationOptionErrors(value));
}
