// structured-merge-diff's schema atoms, as kube-openapi's schemaconv builds them from OpenAPI: a
// scalar, a list (atomic, or associative as a set or by key fields) or a map (a struct's fields
// and/or an element type; granular or atomic). `untyped` is schemaconv's `__untyped_atomic_` /
// `__untyped_deduced_`: its atom is deduced from the value.
import type { JsonValue } from '../../patch/json-value.js';

export interface ScalarType {
  readonly kind: 'scalar';
}

export interface ListType {
  readonly kind: 'list';
  element: SchemaType;
  readonly relationship: 'atomic' | 'associative';
  /** The key fields of an associative list of maps; empty for a set of scalars. */
  readonly keys: readonly string[];
}

export interface MapType {
  readonly kind: 'map';
  readonly fields: Map<string, SchemaType>;
  /** Defaults of fields, used for list-map keys an item omits (upstream's field Default). */
  readonly defaults: Map<string, JsonValue>;
  /** The type of keys not among `fields`; undefined when the map is a closed struct. */
  element: SchemaType | undefined;
  readonly relationship: 'atomic' | 'granular';
}

export interface UntypedType {
  readonly kind: 'untyped';
  /** `__untyped_atomic_`: lists and maps inside are atomic; otherwise maps are granular. */
  readonly atomic: boolean;
}

export type SchemaType = ScalarType | ListType | MapType | UntypedType;

export const SCALAR: ScalarType = { kind: 'scalar' };
export const UNTYPED_ATOMIC: UntypedType = { kind: 'untyped', atomic: true };
export const UNTYPED_DEDUCED: UntypedType = { kind: 'untyped', atomic: false };

const UNTYPED_ATOMIC_LIST: ListType = {
  kind: 'list',
  element: UNTYPED_ATOMIC,
  relationship: 'atomic',
  keys: [],
};
const UNTYPED_ATOMIC_MAP: MapType = {
  kind: 'map',
  fields: new Map(),
  defaults: new Map(),
  element: UNTYPED_ATOMIC,
  relationship: 'atomic',
};
const UNTYPED_DEDUCED_MAP: MapType = {
  kind: 'map',
  fields: new Map(),
  defaults: new Map(),
  element: UNTYPED_DEDUCED,
  relationship: 'granular',
};

export type Atom = ScalarType | ListType | MapType;

/**
 * deduceAtom then handleAtom: the atom a value is walked with. Typed schemas have one atom; untyped
 * ones take the value's shape, and null or an absent value keeps the whole atom, which upstream
 * handles as its map.
 */
export function atomFor(type: SchemaType, value: JsonValue | undefined): Atom {
  if (type.kind !== 'untyped') return type;
  if (Array.isArray(value)) return UNTYPED_ATOMIC_LIST;
  if (value === null || value === undefined || typeof value === 'object') {
    return type.atomic ? UNTYPED_ATOMIC_MAP : UNTYPED_DEDUCED_MAP;
  }
  return SCALAR;
}

/** A field's type: the declared one, else the map's element type. */
export function fieldType(map: MapType, name: string): SchemaType | undefined {
  return map.fields.get(name) ?? map.element;
}

/** Thrown where upstream's walkers report a schema or value error. */
export class TypedValueError extends Error {}
