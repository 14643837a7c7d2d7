import { definitionNameForKind, getDefinition, refDefinitionName } from '../openapi/definitions.js';
import type { SchemaObject } from '../openapi/schema.js';

// kube-apiserver finds unknown and duplicate fields while Go decodes JSON into the typed object, so what
// counts is the Go type at each position. A Shape is that type as the strict decoder sees it, derived from
// the OpenAPI definitions (which are generated from the same Go types).

/** A Go struct: a fixed set of field names; any other key is an unknown field. */
export interface StructShape {
  readonly kind: 'struct';
  /** A declared field, or undefined when the struct has no such field. */
  field(name: string): StructField | undefined;
}

/** A struct field: its shape, and a number telling it apart from the struct's other fields. */
export interface StructField {
  readonly shape: Shape;
  readonly ordinal: number;
}

/** A Go map: any key is allowed, each value has the same shape. */
export interface MapShape {
  readonly kind: 'map';
  readonly values: Shape;
}

/** A Go slice. */
export interface ListShape {
  readonly kind: 'list';
  readonly items: Shape;
}

/** A Go interface{}: any content; duplicate keys inside are still reported. */
export interface AnyShape {
  readonly kind: 'any';
}

/** A scalar, or a type with its own JSON decoder (Quantity, Time, RawExtension...): nothing inside is checked. */
export interface OpaqueShape {
  readonly kind: 'opaque';
}

export type Shape = StructShape | MapShape | ListShape | AnyShape | OpaqueShape;

export const ANY_SHAPE: AnyShape = { kind: 'any' };
export const OPAQUE_SHAPE: OpaqueShape = { kind: 'opaque' };

/** Definitions whose Go types implement json.Unmarshaler: the strict decoder hands them the raw bytes. */
const CUSTOM_DECODERS: ReadonlySet<string> = new Set([
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray',
]);

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** Structural-schema extensions that built-in definitions lack but custom resource schemas carry. */
interface ExtendedSchema extends SchemaObject {
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
}

const byDefinition = new Map<string, Shape>();

/**
 * The shape of a kind's top-level object. Kinds without a built-in definition (custom resources) decode
 * into a map in kube-apiserver, so only duplicate fields are found in them.
 */
export function shapeForKind(group: string, version: string, kind: string): Shape {
  const name = definitionNameForKind(group, version, kind);
  return name === undefined ? ANY_SHAPE : definitionShape(name);
}

/** The shape of a named definition (`io.k8s.api.core.v1.Pod`); unknown names give ANY_SHAPE. */
export function definitionShape(name: string): Shape {
  const cached = byDefinition.get(name);
  if (cached) return cached;
  const definition = getDefinition(name);
  let shape: Shape;
  if (CUSTOM_DECODERS.has(name) || !definition) shape = definition ? OPAQUE_SHAPE : ANY_SHAPE;
  // An object definition without properties is an empty Go struct (StorageVersionSpec): every key is unknown.
  else if (definition.type === 'object' && !definition.properties && !definition.additionalProperties)
    shape = structShape({}, false);
  else shape = schemaShape(definition);
  byDefinition.set(name, shape);
  return shape;
}

/** The shape of a schema found in place (a property, items, additionalProperties). */
export function schemaShape(schema: SchemaObject): Shape {
  const extended = schema as ExtendedSchema;
  const preserve = extended['x-kubernetes-preserve-unknown-fields'] === true;
  if (schema.$ref !== undefined) {
    const name = refDefinitionName(schema.$ref);
    return name === undefined ? ANY_SHAPE : definitionShape(name);
  }
  if (extended['x-kubernetes-embedded-resource'] === true) {
    return structShape(schema.properties ?? {}, preserve, true);
  }
  if (schema.properties) return structShape(schema.properties, preserve);
  if (schema.additionalProperties) return { kind: 'map', values: schemaShape(schema.additionalProperties) };
  if (preserve) return ANY_SHAPE;
  if (schema.type === 'array')
    return { kind: 'list', items: schema.items ? schemaShape(schema.items) : ANY_SHAPE };
  if (schema.type === 'object') return ANY_SHAPE;
  return OPAQUE_SHAPE;
}

/**
 * A struct over `properties`. `open` (x-kubernetes-preserve-unknown-fields) lets other keys through;
 * `embedded` adds apiVersion, kind and metadata as an embedded resource has them.
 */
function structShape(
  properties: Readonly<Record<string, SchemaObject>>,
  open: boolean,
  embedded = false,
): StructShape {
  // Field shapes are derived on first use: definitions refer to themselves (JSONSchemaProps).
  const fields = new Map<string, StructField>();
  return {
    kind: 'struct',
    field(name) {
      const known = fields.get(name);
      if (known) return known;
      let shape: Shape | undefined;
      if (Object.hasOwn(properties, name)) shape = schemaShape(properties[name]!);
      else if (embedded && (name === 'apiVersion' || name === 'kind')) shape = OPAQUE_SHAPE;
      else if (embedded && name === 'metadata') shape = definitionShape(OBJECT_META);
      else if (open) shape = ANY_SHAPE;
      if (!shape) return undefined;
      const field = { shape, ordinal: fields.size };
      fields.set(name, field);
      return field;
    },
  };
}
