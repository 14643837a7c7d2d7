// structured-merge-diff's fieldpath.PathElement: one step into an object — a field (`f:`), a list
// item by its key fields (`k:`), a set item by value (`v:`) or an item by position (`i:`) — with
// upstream's total order and its serialised form (serialize-pe.go).
import { compareGoStrings } from '../../../api/selectors/go-text.js';
import type { JsonValue } from '../../patch/json-value.js';
import { compareValues, goJson, goJsonString, valueToString } from './value-order.js';

/** One key field of a list-map item; a key's fields are kept sorted by name. */
export interface KeyField {
  readonly name: string;
  readonly value: JsonValue;
}

export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: readonly KeyField[] }
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'index'; readonly index: number };

export type Path = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return { kind: 'field', name };
}

/** A key element; fields are sorted by name as upstream's FieldList.Sort does. */
export function keyElement(fields: readonly KeyField[]): PathElement {
  return { kind: 'key', fields: [...fields].sort((a, b) => compareGoStrings(a.name, b.name)) };
}

export function valueElement(value: JsonValue): PathElement {
  return { kind: 'value', value };
}

export function indexElement(index: number): PathElement {
  return { kind: 'index', index };
}

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

function compareKeys(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length && i >= b.length) return 0;
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const left = a[i] as KeyField;
    const right = b[i] as KeyField;
    const byName = compareGoStrings(left.name, right.name);
    if (byName !== 0) return byName < 0 ? -1 : 1;
    const byValue = compareValues(left.value, right.value);
    if (byValue !== 0) return byValue;
  }
}

/** PathElement.Compare: fields < keys < values < indexes, then within the kind. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] < KIND_ORDER[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field': {
      const c = compareGoStrings(a.name, (b as typeof a).name);
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    case 'key':
      return compareKeys(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index': {
      const other = (b as typeof a).index;
      return a.index < other ? -1 : a.index > other ? 1 : 0;
    }
  }
}

export function pathElementsEqual(a: PathElement, b: PathElement): boolean {
  return comparePathElements(a, b) === 0;
}

/** PathElement.String: `.name`, `[k=v,k2=v2]`, `[=v]`, `[3]`. */
export function pathElementToString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map((f) => `${f.name}=${valueToString(f.value)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

/** fieldpath.Path.String: the elements' strings joined, as conflict messages print them. */
export function pathToString(path: Path): string {
  return path.map(pathElementToString).join('');
}

// Serialised keys and values by element: a set's elements are written again on each encode.
const serialized = new WeakMap<PathElement, string>();

/** SerializePathElement. The field name is written raw, as upstream does. */
export function serializePathElement(pe: PathElement): string {
  if (pe.kind === 'field') return `f:${pe.name}`;
  let text = serialized.get(pe);
  if (text === undefined) {
    text = computeSerialized(pe);
    serialized.set(pe, text);
  }
  return text;
}

function computeSerialized(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map((f) => `${goJsonString(f.name)}:${goJson(f.value)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** Thrown for a `fieldsV1` key that is not a path element upstream can read. */
export class PathElementError extends Error {}

/** Why DeserializePathElement gives up on an unknown prefix: upstream skips such keys. */
export class UnknownPathElementTypeError extends PathElementError {
  constructor() {
    super('unknown path element type');
  }
}

function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new PathElementError(`invalid JSON in path element: ${(error as Error).message}`);
  }
}

/** DeserializePathElement. */
export function deserializePathElement(text: string): PathElement {
  if (text.length < 2) throw new PathElementError('key must be 2 characters long:');
  if (text[1] !== ':') throw new PathElementError(`missing colon: ${text}`);
  const rest = text.slice(2);
  switch (text[0]) {
    case 'f':
      return fieldElement(rest);
    case 'v':
      return valueElement(parseJson(rest));
    case 'k': {
      const parsed = parseJson(rest);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw new PathElementError(`key path element must be a JSON object: ${text}`);
      }
      return keyElement(Object.entries(parsed).map(([name, value]) => ({ name, value })));
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(rest))
        throw new PathElementError(`strconv.Atoi: parsing "${rest}": invalid syntax`);
      return indexElement(Number.parseInt(rest, 10));
    }
    default:
      throw new UnknownPathElementTypeError();
  }
}
