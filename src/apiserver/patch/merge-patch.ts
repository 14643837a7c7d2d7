import {
  getMember,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  jsonEqual,
  jsonKind,
  setMember,
} from './json-value.js';

// RFC 7386 JSON merge patch as kube-apiserver applies it (evanphx/json-patch v4 MergePatch):
// null deletes, objects merge recursively, anything else replaces. Where a patch value is taken
// whole (the target had no object there), the library also drops null members of objects inside
// it, including objects nested in arrays.

/**
 * Applies `patch` to `doc` and returns the result; neither argument is modified (`doc` is, when
 * `consumeDoc`: the caller's own copy).
 */
export function applyMergePatch(doc: unknown, patch: unknown, consumeDoc = false): JsonValue {
  const patchValue = structuredClone(patch ?? null) as JsonValue;
  if (!isJsonObject(patchValue)) return pruneNulls(patchValue);
  const target = isJsonObject(doc) ? ((consumeDoc ? doc : structuredClone(doc)) as JsonObject) : {};
  mergeInto(target, patchValue);
  return target;
}

function mergeInto(target: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete target[key];
      continue;
    }
    const current = getMember(target, key);
    if (current === undefined || current === null || !isJsonObject(current)) {
      setMember(target, key, pruneNulls(value));
    } else if (isJsonObject(value)) {
      mergeInto(current, value);
    } else {
      setMember(target, key, value);
    }
  }
}

function pruneNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((item) => (item === null ? null : pruneNulls(item)));
  if (!isJsonObject(value)) return value;
  for (const [key, member] of Object.entries(value)) {
    if (member === null) delete value[key];
    else setMember(value, key, pruneNulls(member));
  }
  return value;
}

/**
 * The merge patch that turns `original` into `modified`: changed and added members, null for
 * removed ones, nested objects diffed recursively, arrays replaced whole when they differ.
 */
export function createMergePatch(original: JsonObject, modified: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const [key, value] of Object.entries(modified)) {
    if (!Object.hasOwn(original, key)) {
      setMember(patch, key, structuredClone(value));
      continue;
    }
    const before = original[key];
    if (jsonKind(before) !== jsonKind(value)) {
      setMember(patch, key, structuredClone(value));
    } else if (isJsonObject(before) && isJsonObject(value)) {
      const nested = createMergePatch(before, value);
      if (Object.keys(nested).length > 0) setMember(patch, key, nested);
    } else if (!jsonEqual(before, value)) {
      setMember(patch, key, structuredClone(value));
    }
  }
  for (const key of Object.keys(original)) {
    if (!Object.hasOwn(modified, key)) setMember(patch, key, null);
  }
  return patch;
}
