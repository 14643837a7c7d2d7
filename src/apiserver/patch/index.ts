import { badRequest, unsupportedMediaType } from './errors.js';
import { decodeJsonLikeGo, GoJsonSyntaxError } from './go-json.js';
import { applyJsonPatch } from './json-patch.js';
import { isJsonObject, type JsonValue } from './json-value.js';
import { applyMergePatch } from './merge-patch.js';
import type { PatchSchema } from './schema.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

export type { PatchErrorReason, PatchFailureStatus } from './errors.js';
export { PatchError } from './errors.js';
export { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch.js';
export type { JsonObject, JsonValue } from './json-value.js';
export { applyMergePatch, createMergePatch } from './merge-patch.js';
export type {
  FieldSchema,
  MapFieldSchema,
  ObjectFieldSchema,
  ObjectListFieldSchema,
  PatchSchema,
  PatchStrategy,
  PrimitiveFieldSchema,
  PrimitiveListFieldSchema,
} from './schema.js';
export { createTwoWayStrategicMergePatch } from './strategic-merge-diff.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH_YAML = 'application/apply-patch+yaml';

export type PatchType = typeof JSON_PATCH | typeof MERGE_PATCH | typeof STRATEGIC_MERGE_PATCH;

/**
 * The patch media types a resource accepts, in kube-apiserver's order (apply last). Strategic
 * merge patch needs a schema, so custom resources go without it. Apply is served by the handler
 * (handlers/apply-patch.ts), not by applyPatch.
 */
export function supportedPatchTypes(strategic: boolean): string[] {
  return strategic
    ? [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH_YAML]
    : [JSON_PATCH, MERGE_PATCH, APPLY_PATCH_YAML];
}

/**
 * The patch type named by a Content-Type header, or a 415 PatchError. kube-apiserver checks this
 * before anything else, even before looking the object up.
 */
export function patchTypeOf(contentType: string | undefined, strategic: boolean): PatchType {
  let mediaType = contentType ?? '';
  // Like kube-apiserver, cut parameters such as "; charset=utf-8" and nothing else.
  const semicolon = mediaType.indexOf(';');
  if (semicolon > 0) mediaType = mediaType.slice(0, semicolon);
  const supported = supportedPatchTypes(strategic);
  const patchType = supported.find((type) => type === mediaType && type !== APPLY_PATCH_YAML);
  if (!patchType) throw unsupportedMediaType(supported);
  return patchType as PatchType;
}

/**
 * Applies a PATCH request body to the current object `doc` and returns the patched object
 * (`doc` is not modified unless `consumeDoc`: the caller's own copy, patched in place rather than
 * copied again, which takes a big object's patch tens of ms). `schema` describes a built-in type
 * and enables strategic merge patch.
 * Throws PatchError carrying the status, reason and message kube-apiserver answers with.
 * The result still has to be decoded and validated like an update; like Kubernetes, a merge
 * patch whose body is a JSON array yields that array.
 */
export function applyPatch(
  contentType: string | undefined,
  doc: unknown,
  patchBody: string | Uint8Array,
  schema?: PatchSchema,
  consumeDoc = false,
): JsonValue {
  const patchType = patchTypeOf(contentType, schema !== undefined);
  switch (patchType) {
    case JSON_PATCH:
      return applyJsonPatch(doc, decode(patchBody), consumeDoc);
    case MERGE_PATCH:
      return applyMergePatch(doc, decodeMergePatch(patchBody), consumeDoc);
    case STRATEGIC_MERGE_PATCH:
      return applyStrategicMergePatch(doc, decode(patchBody), schema!, consumeDoc);
  }
}

function decode(body: string | Uint8Array): JsonValue {
  try {
    return decodeJsonLikeGo(body);
  } catch (error) {
    if (error instanceof GoJsonSyntaxError) throw badRequest(error.message);
    throw error;
  }
}

/** The JSON merge patch library accepts only an object or an array, else "Invalid JSON Patch". */
function decodeMergePatch(body: string | Uint8Array): JsonValue {
  let patch: JsonValue;
  try {
    patch = decodeJsonLikeGo(body);
  } catch (error) {
    if (error instanceof GoJsonSyntaxError) throw badRequest('Invalid JSON Patch');
    throw error;
  }
  if (!isJsonObject(patch) && !Array.isArray(patch)) throw badRequest('Invalid JSON Patch');
  return patch;
}
