// structured-merge-diff's value package, the parts field paths need: the total order of values
// (value.Compare), their equality, their JSON form inside `k:`/`v:` path elements and their
// `%v` rendering in conflict paths (value.ToString).
import { compareGoStrings, goQuote } from '../../../api/selectors/go-text.js';
import { isJsonObject, type JsonValue } from '../../patch/json-value.js';

type Rank = 0 | 1 | 2 | 3 | 4 | 5;

// Numbers first (floats and ints compare by value), then strings, booleans, lists, maps, null.
function rank(value: JsonValue): Rank {
  if (typeof value === 'number') return 0;
  if (typeof value === 'string') return 1;
  if (typeof value === 'boolean') return 2;
  if (Array.isArray(value)) return 3;
  if (value !== null) return 4;
  return 5;
}

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

/** value.Compare: -1, 0 or 1. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return sign(a - b);
  if (typeof a === 'string' && typeof b === 'string') return sign(compareGoStrings(a, b));
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; ; i++) {
      if (i >= a.length && i >= b.length) return 0;
      if (i >= a.length) return -1;
      if (i >= b.length) return 1;
      const c = compareValues(a[i] as JsonValue, b[i] as JsonValue);
      if (c !== 0) return c;
    }
  }
  if (isJsonObject(a) && isJsonObject(b)) return compareMaps(a, b);
  return 0;
}

// value.MapCompare: keys zipped in lexical order; a map that runs out of keys first is smaller.
function compareMaps(a: Record<string, JsonValue>, b: Record<string, JsonValue>): number {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareGoStrings);
  const aLength = Object.keys(a).length;
  const bLength = Object.keys(b).length;
  if (aLength === 0 && bLength === 0) return 0;
  let i = 0;
  for (const key of keys) {
    if (i === aLength) return -1;
    if (i === bLength) return 1;
    if (!(key in a)) return 1;
    if (!(key in b)) return -1;
    const c = compareValues(a[key] as JsonValue, b[key] as JsonValue);
    if (c !== 0) return c;
    i++;
  }
  return 0;
}

export function valuesEqual(a: JsonValue, b: JsonValue): boolean {
  return compareValues(a, b) === 0;
}

const HTML_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** A JSON string as Go's encoder writes it (HTML-safe escapes included). */
export function goJsonString(text: string): string {
  return JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** A value's JSON as jsoniter writes it: compact, map keys sorted. */
export function goJson(value: JsonValue): string {
  if (typeof value === 'string') return goJsonString(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort(compareGoStrings);
    return `{${keys.map((k) => `${goJsonString(k)}:${goJson(value[k] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** value.ToString: how a value prints inside a path (`[name="x"]`, `[=80]`). */
export function valueToString(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(valueToString).join(',')}]`;
  return Object.keys(value)
    .sort(compareGoStrings)
    .map((k) => `${k}=${valueToString(value[k] as JsonValue)}`)
    .join('');
}
