import type { GroupVersionKind } from '../openapi/schema.js';
import { DEFAULT_FIELD_VALIDATION, type FieldValidation } from './directive.js';
import { shapeForKind } from './shapes.js';
import { strictBodyError } from './strict-errors.js';
import { scanStrictErrors, strictErrorText } from './strict-scan.js';

// Server-side field validation (the `fieldValidation` parameter): unknown and duplicate fields in create,
// update and patch bodies are rejected (Strict), reported in Warning headers (Warn, the default) or
// dropped silently (Ignore).

export type { FieldValidation, FieldValidationOptionsKind } from './directive.js';
export {
  DEFAULT_FIELD_VALIDATION,
  fieldValidationDirective,
  fieldValidationOptionErrors,
  invalidOptions,
} from './directive.js';
export { checkPatchBody, type PatchBodyCheck, validatePatchedFields } from './patch.js';
export { pruneUnknownFields } from './prune.js';
export { strictBodyError, strictDecodingMessage, strictPatchError } from './strict-errors.js';
export { conversionUnknownFieldErrors, unknownFields } from './unknown-fields.js';
export { warningHeader } from './warning-header.js';

/**
 * Checks the JSON body of a create or update of `gvk` (the kind and version the body decodes as; the
 * endpoint's when it names none), as kube-apiserver's strict decoder does while it decodes the body:
 * before the apiVersion check, defaulting, admission and validation. Returns the warning texts
 * (`unknown field "spec.replicasx"`, `duplicate field "metadata.name"`) under Warn, nothing under Ignore;
 * under Strict throws the 400 StatusError kube-apiserver answers. `mode` undefined means the default, Warn.
 * Only JSON bodies are checked: protobuf has no strict decoding.
 */
export function validateFields(
  body: Uint8Array | string,
  gvk: GroupVersionKind,
  mode: FieldValidation | undefined,
): string[] {
  const directive = mode ?? DEFAULT_FIELD_VALIDATION;
  if (directive === 'Ignore') return [];
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const texts = scanStrictErrors(bytes, shapeForKind(gvk.group, gvk.version, gvk.kind)).map(strictErrorText);
  if (texts.length === 0 || directive === 'Warn') return texts;
  throw strictBodyError(gvk, texts);
}
