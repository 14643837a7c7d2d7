// The Go shape of a pod template, as the pod-template hash and template comparison need it: every
// struct reachable from core/v1 PodTemplateSpec with its fields in declaration order (Go field
// name, JSON name, Go type, embedded-inline), and the named non-struct types with what they are.
// The data (pod-template-layout.generated.ts) is generated once from Kubernetes 1.33's types.go
// files by scripts/build/pod-template-layout/generate-layout.ts.
//
// Type expressions: `*T` pointer, `[]T` slice, `map[K]V` map, a Go builtin (`string`, `int32` ...)
// or a named type `<package>.<Name>` with package one of core, meta, resource, intstr, types.
import { LAYOUT_JSON } from './pod-template-layout.generated.js';

/** One struct field: Go name, JSON name (`''` for an inline embedded struct), type, embedded inline. */
export type GoField = readonly [goName: string, jsonName: string, type: string, inline: boolean];

export type GoTypeFacts =
  | { readonly struct: readonly GoField[] }
  /** A named type over a builtin (`type Protocol string`). */
  | { readonly basic: string }
  /** A named slice or map type (`type ResourceList map[ResourceName]resource.Quantity`). */
  | { readonly underlying: string };

export interface GoLayout {
  /** The module version the facts were read from. */
  readonly source: string;
  readonly types: Readonly<Record<string, GoTypeFacts>>;
}

export const GO_LAYOUT: GoLayout = JSON.parse(LAYOUT_JSON) as GoLayout;

/** The Go package name reflect prints for each package. */
const PACKAGE_NAMES: Readonly<Record<string, string>> = {
  core: 'v1',
  meta: 'v1',
  resource: 'resource',
  intstr: 'intstr',
  types: 'types',
};

/** The type as reflect.Type.String() prints it: `[]v1.Container`, `*int64`, `v1.ResourceList`. */
export function goTypeName(type: string): string {
  if (type.startsWith('*')) return `*${goTypeName(type.slice(1))}`;
  if (type.startsWith('[]')) return `[]${goTypeName(type.slice(2))}`;
  const map = mapParts(type);
  if (map) return `map[${goTypeName(map.key)}]${goTypeName(map.value)}`;
  const dot = type.indexOf('.');
  if (dot < 0) return type;
  return `${PACKAGE_NAMES[type.slice(0, dot)] ?? type.slice(0, dot)}${type.slice(dot)}`;
}

/** `map[K]V` split into K and V (K is never itself a map). */
export function mapParts(type: string): { key: string; value: string } | undefined {
  if (!type.startsWith('map[')) return undefined;
  const close = type.indexOf(']');
  return { key: type.slice(4, close), value: type.slice(close + 1) };
}

/** The facts of a named type (undefined for builtins and for the types printed by hand). */
export function namedType(type: string): GoTypeFacts | undefined {
  return GO_LAYOUT.types[type];
}

type Json = unknown;

function isJsonObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A struct field's JSON value: its member of the object, or for an inline embedded struct the
 * object itself.
 */
export function fieldJson(object: Json, field: GoField): Json {
  if (field[3]) return object;
  return isJsonObject(object) ? object[field[1]] : undefined;
}

/**
 * Whether a slice or map is nil in the Go value the controller works on. Objects reach
 * kube-controller-manager as protobuf, which cannot tell an empty list or map from a missing one:
 * both decode to nil.
 */
export function isNilCollection(value: Json): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (isJsonObject(value)) return Object.keys(value).length === 0;
  return true;
}

/** The entries of a JSON object (empty for anything else). */
export function jsonEntries(value: Json): [string, Json][] {
  return isJsonObject(value) ? Object.entries(value) : [];
}
