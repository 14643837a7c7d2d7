import { fieldErrorBody, fieldErrorMessage, fieldInvalid } from '../../api/selectors/field-errors.js';
import type { GroupVersionKind } from '../openapi/schema.js';
import { badRequest, StatusError } from '../status.js';

/** runtime.NewStrictDecodingError(errs).Error(): `strict decoding error: <e1>, <e2>`. */
export function strictDecodingMessage(texts: readonly string[]): string {
  return `strict decoding error: ${texts.join(', ')}`;
}

/**
 * The 400 of a create or update whose body has strict errors under fieldValidation=Strict (the handlers'
 * transformDecodeError): `Deployment in version "v1" cannot be handled as a Deployment: strict decoding
 * error: unknown field "spec.replicasx"`.
 */
export function strictBodyError(gvk: GroupVersionKind, texts: readonly string[]): StatusError {
  return badRequest(
    `${gvk.kind} in version "${gvk.version}" cannot be handled as a ${gvk.kind}: ${strictDecodingMessage(texts)}`,
  );
}

/**
 * The 422 of a patch with strict errors under fieldValidation=Strict: errors.NewInvalid with an empty kind
 * and name over `field.Invalid("patch", <badValue>, <strict decoding error>)`, so the message starts with
 * ` "" is invalid: patch: Invalid value: "...`. `badValue` is what kube-apiserver shows: the patched object's
 * JSON for JSON and merge patches, the Go rendering of the patch map for strategic merge patches.
 */
export function strictPatchError(badValue: string, texts: readonly string[]): StatusError {
  const error = fieldInvalid('patch', badValue, strictDecodingMessage(texts));
  return new StatusError(422, 'Invalid', ` "" is invalid: ${fieldErrorMessage(error)}`, {
    causes: [{ reason: error.type, message: fieldErrorBody(error), field: error.field }],
  });
}
