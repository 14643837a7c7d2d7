// The text go-spew prints for a Go value with `%#v` and Kubernetes' hashing configuration
// (DisableMethods, SortKeys, SpewKeys): every value prefixed with its type in parentheses, except
// slice elements, map keys and values and pointees; struct fields as `Name:value` separated by
// spaces; nil pointers, slices and maps as `<nil>`; strings raw. Here the Go value is the one
// kube-controller-manager decodes from the apiserver's JSON for a type of the layout.
import { compareGoStrings } from '../../api/selectors/go-text.js';
import { fieldJson, goTypeName, isNilCollection, jsonEntries, mapParts, namedType } from './go-layout.js';
import { quantityInternals } from './quantity-internals.js';

type Json = unknown;

const INTEGERS = new Set(['int', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64']);

/** Seconds between year 1 and 1970: time.Time's ext for wall times without monotonic readings. */
const UNIX_TO_INTERNAL = 62135596800n;

/** `%#v` of the value of `type` decoded from `json`. */
export function spewPrint(type: string, json: Json): string {
  const out: string[] = [];
  format(type, json, true, out);
  return out.join('');
}

function isNil(json: Json): boolean {
  return json === undefined || json === null;
}

function format(type: string, json: Json, showType: boolean, out: string[]): void {
  if (type.startsWith('*')) {
    const element = type.slice(1);
    if (isNil(json)) {
      out.push(showType ? `(${goTypeName(type)})<nil>` : '<nil>');
      return;
    }
    out.push(showType ? `(${goTypeName(type)})` : '<*>');
    format(element, json, false, out);
    return;
  }
  if (showType) out.push(`(${goTypeName(type)})`);
  formatValue(type, json, out);
}

function formatValue(type: string, json: Json, out: string[]): void {
  if (type.startsWith('[]')) {
    if (isNilCollection(json)) {
      out.push('<nil>');
      return;
    }
    const element = type.slice(2);
    out.push('[');
    (json as Json[]).forEach((item, index) => {
      if (index > 0) out.push(' ');
      format(element, item, false, out);
    });
    out.push(']');
    return;
  }
  const map = mapParts(type);
  if (map !== undefined) {
    if (isNilCollection(json)) {
      out.push('<nil>');
      return;
    }
    out.push('map[');
    const entries = jsonEntries(json).sort(([a], [b]) => compareGoStrings(a, b));
    entries.forEach(([key, value], index) => {
      if (index > 0) out.push(' ');
      format(map.key, key, false, out);
      out.push(':');
      format(map.value, value, false, out);
    });
    out.push(']');
    return;
  }
  if (formatSpecial(type, json, out)) return;
  const named = namedType(type);
  if (named === undefined) {
    out.push(builtinText(type, json));
    return;
  }
  if ('basic' in named) {
    out.push(builtinText(named.basic, json));
    return;
  }
  if ('underlying' in named) {
    formatValue(named.underlying, json, out);
    return;
  }
  out.push('{');
  named.struct.forEach((field, index) => {
    if (index > 0) out.push(' ');
    out.push(`${field[0]}:`);
    format(field[2], fieldJson(json, field), true, out);
  });
  out.push('}');
}

function builtinText(type: string, json: Json): string {
  if (type === 'string') return typeof json === 'string' ? json : isNil(json) ? '' : String(json);
  if (type === 'bool') return json === true ? 'true' : 'false';
  if (INTEGERS.has(type)) return typeof json === 'number' ? String(Math.trunc(json)) : '0';
  if (type === 'float64') return typeof json === 'number' ? String(json) : '0';
  throw new Error(`no printing for Go type ${type}`);
}

/** Types whose Go fields are not their JSON: metav1.Time, resource.Quantity, intstr.IntOrString. */
function formatSpecial(type: string, json: Json, out: string[]): boolean {
  switch (type) {
    case 'meta.Time':
    case 'meta.MicroTime':
      out.push(`{Time:(time.Time)${timeText(json)}}`);
      return true;
    case 'resource.Quantity':
      out.push(quantityText(json));
      return true;
    case 'intstr.IntOrString': {
      const isString = typeof json === 'string';
      const intValue = typeof json === 'number' ? Math.trunc(json) : 0;
      out.push(
        `{Type:(intstr.Type)${isString ? 1 : 0} IntVal:(int32)${intValue} StrVal:(string)${isString ? json : ''}}`,
      );
      return true;
    }
    case 'meta.FieldsV1': {
      const bytes = isNil(json) ? [] : [...Buffer.from(JSON.stringify(json))];
      out.push(`{Raw:([]uint8)${bytes.length === 0 ? '<nil>' : `[${bytes.join(' ')}]`}}`);
      return true;
    }
    default:
      return false;
  }
}

/**
 * time.Time's fields. A zero time (`null`, the usual creationTimestamp of a template) is exact; a
 * set one is printed as a UTC time, where kube-controller-manager would hold its local zone.
 */
function timeText(json: Json): string {
  const ms = typeof json === 'string' ? Date.parse(json) : Number.NaN;
  if (Number.isNaN(ms)) return '{wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}';
  const seconds = BigInt(Math.floor(ms / 1000));
  return `{wall:(uint64)0 ext:(int64)${seconds + UNIX_TO_INTERNAL} loc:(*time.Location)<nil>}`;
}

/** A big integer's magnitude as big.nat: 64-bit words, least significant first. */
function natText(magnitude: bigint): string {
  if (magnitude === 0n) return '<nil>';
  const words: string[] = [];
  for (let rest = magnitude; rest > 0n; rest >>= 64n) words.push((rest & 0xffffffffffffffffn).toString());
  return `[${words.join(' ')}]`;
}

function quantityText(json: Json): string {
  const text = typeof json === 'number' ? String(json) : typeof json === 'string' ? json.trim() : '';
  const internals = quantityInternals(text);
  if (internals === undefined) {
    // Not a quantity Go accepts (the apiserver would have refused it): Go's zero Quantity.
    return '{i:(resource.int64Amount){value:(int64)0 scale:(resource.Scale)0} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string) Format:(resource.Format)}';
  }
  if (internals.kind === 'int64') {
    return (
      `{i:(resource.int64Amount){value:(int64)${internals.value} scale:(resource.Scale)${internals.scale}} ` +
      `d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)${internals.text} Format:(resource.Format)${internals.format}}`
    );
  }
  const negative = internals.unscaled < 0n;
  const magnitude = negative ? -internals.unscaled : internals.unscaled;
  return (
    '{i:(resource.int64Amount){value:(int64)0 scale:(resource.Scale)0} ' +
    `d:(resource.infDecAmount){Dec:(*inf.Dec){unscaled:(big.Int){neg:(bool)${negative} abs:(big.nat)${natText(magnitude)}} scale:(inf.Scale)${internals.scale}}} ` +
    `s:(string) Format:(resource.Format)${internals.format}}`
  );
}
