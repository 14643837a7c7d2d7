import { compareGoStrings } from '../../api/selectors/go-text.js';
import { encodeJsonLikeGo } from '../discovery/go-json.js';
import type { GroupVersionKind } from '../openapi/schema.js';
import { goSprintV } from '../patch/go-format.js';
import { decodeJsonLikeGo, GoJsonSyntaxError } from '../patch/go-json.js';
import { JSON_PATCH, type PatchType, STRATEGIC_MERGE_PATCH } from '../patch/index.js';
import { isJsonObject, type JsonValue } from '../patch/json-value.js';
import { badRequest } from '../status.js';
import type { FieldValidation } from './directive.js';
import { ANY_SHAPE, OPAQUE_SHAPE, type Shape, type StructField, shapeForKind } from './shapes.js';
import { strictPatchError } from './strict-errors.js';
import { scanStrictErrors, strictErrorText } from './strict-scan.js';
import { conversionUnknownFieldErrors } from './unknown-fields.js';

// kube-apiserver checks a patch in two steps (handlers/patch.go). Before applying it, under Strict or
// Warn, it decodes the patch body strictly: a merge or strategic merge patch into map[string]interface{}
// (so only duplicate fields count), a JSON patch into []jsonPatchOp{op, path, from, value} (so unknown
// and duplicate keys of the operations count, reported as `json patch unknown field "[0].valu"`).
// After applying it, it decodes the patched object strictly into the typed object; those unknown fields
// follow the body's own errors (the stored object, already typed, adds none).

/** What the first step found, to hand to `validatePatchedFields`. */
export interface PatchBodyCheck {
  readonly patchType: PatchType;
  readonly mode: FieldValidation;
  /** Strict errors of the patch body itself, as texts. */
  readonly errors: readonly string[];
  /** The decoded patch; a strategic merge patch's 422 prints it. */
  readonly patch: JsonValue | undefined;
}

const MAP_TYPE = 'map[string]interface {}';

const JSON_PATCH_OP_FIELDS: ReadonlyMap<string, StructField> = new Map([
  ['op', { shape: OPAQUE_SHAPE, ordinal: 0 }],
  ['path', { shape: OPAQUE_SHAPE, ordinal: 1 }],
  ['from', { shape: OPAQUE_SHAPE, ordinal: 2 }],
  ['value', { shape: ANY_SHAPE, ordinal: 3 }],
]);

/** handlers.jsonPatchOp: op, path and from are strings, value is an interface{}. */
const JSON_PATCH_OPERATIONS: Shape = {
  kind: 'list',
  items: { kind: 'struct', field: (name) => JSON_PATCH_OP_FIELDS.get(name) },
};

/**
 * Step one, called before the patch is applied (and only once the object is known to exist: a patch of a
 * missing object is a 404 first). Throws the 400 kube-apiserver answers when the body cannot be decoded
 * that way; under Ignore it checks nothing.
 */
export function checkPatchBody(
  patchType: PatchType,
  body: Uint8Array | string,
  mode: FieldValidation,
): PatchBodyCheck {
  if (mode === 'Ignore') return { patchType, mode, errors: [], patch: undefined };
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (patchType === JSON_PATCH) {
    const patch = decodePatch(bytes, 'error decoding patch: ');
    const typeError = jsonPatchTypeError(patch);
    if (typeError !== undefined) throw badRequest(`error decoding patch: ${typeError}`);
    const errors = scanStrictErrors(bytes, JSON_PATCH_OPERATIONS).map(
      (e) => `json patch ${strictErrorText(e)}`,
    );
    return { patchType, mode, errors, patch };
  }
  // Merge patch errors carry the "error decoding patch: " prefix; strategic merge patch errors do not.
  const prefix = patchType === STRATEGIC_MERGE_PATCH ? '' : 'error decoding patch: ';
  const patch = decodePatch(bytes, prefix);
  if (patch !== null && !isJsonObject(patch)) throw badRequest(`${prefix}${typeErrorText(patch, MAP_TYPE)}`);
  return { patchType, mode, errors: scanStrictErrors(bytes, ANY_SHAPE).map(strictErrorText), patch };
}

/**
 * Step two, called with the patched object before defaulting, admission and validation. Returns the
 * warning texts under Warn; under Strict throws the 422 kube-apiserver answers when there is any strict
 * error, from the body or from the patched object.
 */
export function validatePatchedFields(
  check: PatchBodyCheck,
  patched: unknown,
  gvk: GroupVersionKind,
): string[] {
  if (check.mode === 'Ignore') return [];
  const shape = shapeForKind(gvk.group, gvk.version, gvk.kind);
  let unknown: string[];
  let badValue: () => string;
  if (check.patchType === STRATEGIC_MERGE_PATCH) {
    unknown = conversionUnknownFieldErrors(patched, shape);
    badValue = () => goSprintV(check.patch ?? {});
  } else {
    // The JSON patch library re-encodes the document through Go maps, so keys come out sorted.
    const json = sortedGoJson(patched);
    unknown = scanStrictErrors(Buffer.from(json, 'utf8'), shape).map(strictErrorText);
    badValue = () => json;
  }
  const texts = [...check.errors, ...unknown];
  if (texts.length === 0 || check.mode === 'Warn') return texts;
  throw strictPatchError(badValue(), texts);
}

function decodePatch(bytes: Uint8Array, prefix: string): JsonValue {
  try {
    return decodeJsonLikeGo(bytes);
  } catch (error) {
    if (error instanceof GoJsonSyntaxError) throw badRequest(`${prefix}${error.message}`);
    throw error;
  }
}

function jsonKind(value: JsonValue): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function typeErrorText(value: JsonValue, goType: string): string {
  return `json: cannot unmarshal ${jsonKind(value)} into Go value of type ${goType}`;
}

/** Go's first type error decoding a JSON patch into []jsonPatchOp, if any (null decodes into anything). */
function jsonPatchTypeError(patch: JsonValue): string | undefined {
  if (patch === null) return undefined;
  if (!Array.isArray(patch)) return typeErrorText(patch, '[]handlers.jsonPatchOp');
  for (const operation of patch) {
    if (operation === null) continue;
    if (!isJsonObject(operation)) return typeErrorText(operation, 'handlers.jsonPatchOp');
    for (const [key, value] of Object.entries(operation)) {
      if ((key === 'op' || key === 'path' || key === 'from') && value !== null && typeof value !== 'string') {
        return `json: cannot unmarshal ${jsonKind(value)} into Go struct field jsonPatchOp.${key} of type string`;
      }
    }
  }
  return undefined;
}

/** JSON as Go's json.Marshal writes a map[string]interface{}: keys sorted bytewise at every level. */
function sortedGoJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedGoJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort(compareGoStrings)
      .map((key) => `${encodeJsonLikeGo(key)}:${sortedGoJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return encodeJsonLikeGo(value ?? null);
}
