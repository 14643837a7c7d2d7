// Reading decoded JSON the way Go's typed structs see it: an absent or mistyped field is the
// zero value ('' / 0 / false / empty), and `null` is nil.
import { isJsonObject, type JsonObject } from '../../../api/object.js';

export type { JsonObject };
export { isJsonObject };

/** The object at `value`, or undefined (Go: a nil pointer to a struct). */
export function objectOf(value: unknown): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

/** The object at `value`, or an empty one (Go: an embedded struct). */
export function fieldsOf(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

export function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A string field that is a pointer in Go: undefined when absent. */
export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** A numeric field that is a pointer in Go: undefined when absent. */
export function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

export function booleanOf(value: unknown): boolean {
  return value === true;
}

export function optionalBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Array elements as objects (mistyped elements read as empty structs). */
export function objectsOf(value: unknown): JsonObject[] {
  return arrayOf(value).map(fieldsOf);
}

export function stringsOf(value: unknown): string[] {
  return arrayOf(value).map(stringOf);
}

/** A map[string]string: entries with string values (others read as ''). */
export function stringMapOf(value: unknown): Record<string, string> {
  if (!isJsonObject(value)) return {};
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) result[key] = stringOf(entry);
  return result;
}

/** The number of entries of a map, or of items of a list (Go's len). */
export function lengthOf(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (isJsonObject(value)) return Object.keys(value).length;
  if (typeof value === 'string') return value.length;
  return 0;
}

/** True when the field is present and not null. */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** An object field, created empty when missing (for defaulting). */
export function ensureObject(parent: JsonObject, key: string): JsonObject {
  const current = parent[key];
  if (isJsonObject(current)) return current;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

/**
 * Kubernetes' semantic equality over decoded JSON: absent, null, empty lists and empty maps are
 * equal (Go cannot tell a nil slice or map from an empty one after decoding).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  const emptyA = isEmptyValue(a);
  const emptyB = isEmptyValue(b);
  if (emptyA || emptyB) return emptyA && emptyB;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => semanticEqual(item, b[index]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) if (!semanticEqual(a[key], b[key])) return false;
    return true;
  }
  return a === b;
}

function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isJsonObject(value)) return Object.values(value).every(isEmptyValue);
  return false;
}

/** A deep copy of decoded JSON. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}
