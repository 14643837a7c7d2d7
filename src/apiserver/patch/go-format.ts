import { isJsonObject } from './json-value.js';

// Kubernetes builds many patch error messages with Go's fmt verbs over decoded JSON
// (map[string]interface{}, []interface{}, int64, float64, string, bool, nil). These helpers
// print JSON values the same way so the messages match byte for byte.

/** Go's type name for a decoded JSON value, as reflect.TypeOf(v) prints with %s. */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (isJsonObject(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return 'string';
}

/** fmt.Sprintf("%v", value) for decoded JSON. */
export function goSprintV(value: unknown): string {
  return format(value, 'v');
}

/** fmt.Sprintf("%s", value) for decoded JSON: non-strings print as `%!s(type=value)`. */
export function goSprintS(value: unknown): string {
  return format(value, 's');
}

function format(value: unknown, verb: 'v' | 's'): string {
  if (value === null || value === undefined) return verb === 'v' ? '<nil>' : '%!s(<nil>)';
  if (Array.isArray(value)) return `[${value.map((item) => format(item, verb)).join(' ')}]`;
  if (isJsonObject(value)) {
    // fmt prints map entries sorted by key.
    const entries = Object.keys(value)
      .sort(compareGoStrings)
      .map((key) => `${key}:${format(value[key], verb)}`);
    return `map[${entries.join(' ')}]`;
  }
  if (typeof value === 'string') return value;
  const printed = typeof value === 'number' ? goNumber(value) : String(value);
  return verb === 'v' ? printed : `%!s(${goTypeName(value)}=${printed})`;
}

/** %v of an int64 or float64: shortest form, exponent below 1e-4 and from 1e21, two-digit exponent. */
export function goNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude < 1e-4 || magnitude >= 1e21)) {
    return value.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(value);
}

/** Go compares strings bytewise (UTF-8), which orders them by code point, unlike UTF-16 units. */
export function compareGoStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    // A surrogate pair encodes a code point above every BMP character.
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
