// Reading fields of decoded JSON the way Go sees them after decoding into a struct: a missing or
// mistyped field reads as its zero value ('' / 0 / false / empty list or map), or as absent for pointers.
import { isJsonObject, type JsonObject } from '../../api/object.js';

/**
 * The value at a path of object keys, or undefined when some step is missing or not an object. JSON
 * null reads as undefined: Go decodes it to a nil pointer or a zero value.
 */
export function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isJsonObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current === null ? undefined : current;
}

/** The object at a path, or an empty object. */
export function obj(value: unknown, ...path: string[]): JsonObject {
  const found = at(value, ...path);
  return isJsonObject(found) ? found : {};
}

/** The object at a path, or undefined (a nil pointer in Go). */
export function optObj(value: unknown, ...path: string[]): JsonObject | undefined {
  const found = at(value, ...path);
  return isJsonObject(found) ? found : undefined;
}

/** The string at a path, or ''. */
export function str(value: unknown, ...path: string[]): string {
  const found = at(value, ...path);
  return typeof found === 'string' ? found : '';
}

/** The string at a path, or undefined (a nil *string). */
export function optStr(value: unknown, ...path: string[]): string | undefined {
  const found = at(value, ...path);
  return typeof found === 'string' ? found : undefined;
}

/** The integer at a path, or 0. */
export function int(value: unknown, ...path: string[]): number {
  const found = at(value, ...path);
  return typeof found === 'number' && Number.isFinite(found) ? Math.trunc(found) : 0;
}

/** The integer at a path, or undefined (a nil *int32). */
export function optInt(value: unknown, ...path: string[]): number | undefined {
  const found = at(value, ...path);
  return typeof found === 'number' && Number.isFinite(found) ? Math.trunc(found) : undefined;
}

/** The boolean at a path, or false. */
export function bool(value: unknown, ...path: string[]): boolean {
  return at(value, ...path) === true;
}

/** The boolean at a path, or undefined (a nil *bool). */
export function optBool(value: unknown, ...path: string[]): boolean | undefined {
  const found = at(value, ...path);
  return typeof found === 'boolean' ? found : undefined;
}

/** The list at a path, or []. */
export function list(value: unknown, ...path: string[]): unknown[] {
  const found = at(value, ...path);
  return Array.isArray(found) ? found : [];
}

/** The list at a path, or undefined (a nil slice, as opposed to an empty one). */
export function optList(value: unknown, ...path: string[]): unknown[] | undefined {
  const found = at(value, ...path);
  return Array.isArray(found) ? found : undefined;
}

/** The string map at a path (labels, selectors); entries whose value is not a string are skipped. */
export function stringMap(value: unknown, ...path: string[]): Record<string, string> {
  const found = obj(value, ...path);
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(found)) if (typeof entry === 'string') result[key] = entry;
  return result;
}

/** The number of entries of the map at a path (Go's len of a map). */
export function mapSize(value: unknown, ...path: string[]): number {
  return Object.keys(obj(value, ...path)).length;
}

/** The number of items of the list at a path (Go's len of a slice). */
export function listSize(value: unknown, ...path: string[]): number {
  return list(value, ...path).length;
}
