// Plain-JSON helpers for custom resources (apimachinery's runtime.DeepCopyJSONValue, Go's
// reflect.DeepEqual over decoded JSON, and json.Marshal's key-sorted form), with a nesting guard:
// Go's stacks grow, JavaScript's do not, so very deep values end in a clear error instead.
import { isJsonObject, type JsonObject } from '../../../api/object.js';
import { GoRendered } from '../../../api/selectors/field-errors.js';
import { compareGoStrings, goQuote } from '../../../api/selectors/go-text.js';

export type { JsonObject };
export { isJsonObject };

/** How deep schemas and the values walked along them may nest before we refuse them. */
export const MAX_NESTING_DEPTH = 1000;

/** Thrown when a schema or a value nests deeper than MAX_NESTING_DEPTH. */
export class NestingTooDeepError extends Error {
  constructor(readonly path: string) {
    super(`exceeded max depth of ${MAX_NESTING_DEPTH}`);
  }
}

export function checkDepth(depth: number, path: string): void {
  if (depth > MAX_NESTING_DEPTH) throw new NestingTooDeepError(path);
}

/** runtime.DeepCopyJSONValue. */
export function deepCopyJson(value: unknown, depth = 0): unknown {
  checkDepth(depth, '');
  if (Array.isArray(value)) return value.map((item) => deepCopyJson(item, depth + 1));
  if (isJsonObject(value)) {
    const copy: JsonObject = {};
    for (const [key, item] of Object.entries(value)) copy[key] = deepCopyJson(item, depth + 1);
    return copy;
  }
  return value;
}

/** reflect.DeepEqual of decoded JSON (numbers compare by value, as int64/float64 conversions do). */
export function jsonEqual(a: unknown, b: unknown, depth = 0): boolean {
  checkDepth(depth, '');
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index], depth + 1));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key], depth + 1));
  }
  return false;
}

/** json.Marshal's text: object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown, depth = 0): string {
  checkDepth(depth, '');
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key], depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The JSON type name of a decoded value, as kube-openapi's type validator names Go kinds. */
export function jsonTypeOf(
  value: unknown,
): 'null' | 'boolean' | 'string' | 'integer' | 'number' | 'array' | 'object' {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array';
  return 'object';
}

/** Go's `%v` of a float64 (strconv 'g' with the shortest digits, exponent at < -4 or >= 21). */
export function goFloat(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN';
  const exponent = value === 0 ? 0 : Math.floor(Math.log10(Math.abs(value)));
  if (exponent < -4 || exponent >= 21) {
    const [mantissa, power] = value.toExponential().split('e') as [string, string];
    const sign = power.startsWith('-') ? '-' : '+';
    const digits = power.replace(/^[+-]/, '').padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(value);
}

/** Go's `%#v` of a decoded JSON value (`map[string]interface {}{"name":"a"}`), keys sorted as fmt does. */
export function goSyntax(value: unknown, depth = 0): string {
  checkDepth(depth, '');
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value))
    return `[]interface {}{${value.map((item) => goSyntax(item, depth + 1)).join(', ')}}`;
  const object = value as JsonObject;
  const entries = Object.keys(object)
    .sort(compareGoStrings)
    .map((key) => `${goQuote(key)}:${goSyntax(object[key], depth + 1)}`);
  return `map[string]interface {}{${entries.join(', ')}}`;
}

/** A field error's bad value: compound JSON prints as Go's `%#v`, scalars as they are. */
export function goBadValue(value: unknown): unknown {
  return isJsonObject(value) || Array.isArray(value) ? new GoRendered(goSyntax(value)) : value;
}
