// kube-openapi's schemaconv (ToSchemaFromOpenAPI): the structured-merge-diff type of an OpenAPI
// schema. Lists follow `x-kubernetes-list-type` (atomic, set, map with `x-kubernetes-list-map-keys`),
// else a `merge` patch strategy (associative by `x-kubernetes-patch-merge-key`, a set without one),
// else atomic; maps follow `x-kubernetes-map-type` (also beside a `$ref`); an object without
// properties, and everything below `x-kubernetes-preserve-unknown-fields`, takes undeclared keys as
// deduced values; a schema without a type is deduced from the value.
import type { JsonValue } from '../../patch/json-value.js';
import {
  type ListType,
  type MapType,
  SCALAR,
  type SchemaType,
  TypedValueError,
  UNTYPED_ATOMIC,
  UNTYPED_DEDUCED,
} from './schema.js';

/** The OpenAPI shape both built-in definitions and CRD schemas (JSONSchemaProps) share. */
export interface OpenApiSchema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema | boolean | unknown;
  items?: OpenApiSchema | unknown;
  allOf?: OpenApiSchema[];
  default?: unknown;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
}

export function isSchema(value: unknown): value is OpenApiSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function mapRelationship(schema: OpenApiSchema): 'atomic' | 'granular' | undefined {
  const value = schema['x-kubernetes-map-type'];
  if (value === undefined) return undefined;
  if (value === 'atomic') return 'atomic';
  if (value === 'granular') return 'granular';
  throw new TypedValueError(`unknown map type ${value}`);
}

function listRelationship(schema: OpenApiSchema): { relationship: 'atomic' | 'associative'; keys: string[] } {
  const listType = schema['x-kubernetes-list-type'];
  if (listType !== undefined) {
    if (listType === 'atomic') return { relationship: 'atomic', keys: [] };
    if (listType === 'set') return { relationship: 'associative', keys: [] };
    if (listType === 'map') {
      const keys = schema['x-kubernetes-list-map-keys'];
      if (!keys) throw new TypedValueError('missing map keys');
      return { relationship: 'associative', keys: [...keys] };
    }
    throw new TypedValueError(`unknown list type ${listType}`);
  }
  const strategy = schema['x-kubernetes-patch-strategy'];
  if (strategy === 'merge' || strategy === 'merge,retainKeys') {
    const key = schema['x-kubernetes-patch-merge-key'];
    return { relationship: 'associative', keys: key === undefined ? [] : [key] };
  }
  return { relationship: 'atomic', keys: [] };
}

/**
 * Converts schemas whose `$ref`s name definitions `resolveRef` finds. Named types are converted once
 * and shared, so recursive definitions (JSONSchemaProps) terminate.
 */
export class SchemaConverter {
  private readonly named = new Map<string, SchemaType>();

  constructor(
    private readonly resolveRef: (ref: string) => { name: string; schema: OpenApiSchema } | undefined,
  ) {}

  /** The type of a named definition (converted without inherited preserve-unknown-fields). */
  namedType(ref: string): SchemaType {
    const target = this.resolveRef(ref);
    if (!target) throw new TypedValueError(`schema error: no type found matching: ${ref}`);
    const known = this.named.get(target.name);
    if (known) return known;
    return this.convert(target.schema, false, target.name);
  }

  /** parseSchema / visitSpec. `registerAs` caches the type before its fields are filled. */
  convert(schema: OpenApiSchema, inheritedPreserve: boolean, registerAs?: string): SchemaType {
    const preserve = inheritedPreserve || schema['x-kubernetes-preserve-unknown-fields'] === true;
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    let result: SchemaType;
    switch (type) {
      case undefined:
      case '':
        result = UNTYPED_DEDUCED;
        break;
      case 'object': {
        const map: MapType = {
          kind: 'map',
          fields: new Map(),
          defaults: new Map(),
          element: undefined,
          relationship: mapRelationship(schema) ?? 'granular',
        };
        if (registerAs) this.named.set(registerAs, map);
        this.fillObject(map, schema, preserve);
        return map;
      }
      case 'array': {
        const { relationship, keys } = listRelationship(schema);
        const list: ListType = { kind: 'list', element: UNTYPED_ATOMIC, relationship, keys };
        if (registerAs) this.named.set(registerAs, list);
        if (isSchema(schema.items)) list.element = this.reference(schema.items, preserve);
        return list;
      }
      default:
        result = SCALAR;
    }
    if (registerAs) this.named.set(registerAs, result);
    return result;
  }

  // parseObject: declared fields, their defaults, and the element type of undeclared keys.
  private fillObject(map: MapType, schema: OpenApiSchema, preserve: boolean): void {
    const properties = schema.properties ?? {};
    for (const [name, member] of Object.entries(properties)) {
      map.fields.set(name, this.reference(member, preserve));
      if (member.default !== undefined) map.defaults.set(name, member.default as JsonValue);
    }
    const additional = schema.additionalProperties;
    if (additional === undefined || additional === null || additional === false) {
      map.element = preserve || Object.keys(properties).length === 0 ? UNTYPED_DEDUCED : undefined;
      if (additional === false) map.element = undefined;
    } else if (isSchema(additional)) {
      map.element = this.reference(additional, preserve);
    } else {
      map.element = UNTYPED_DEDUCED;
    }
  }

  // makeOpenAPIRef: a `$ref` (or a lone `allOf` ref) names a shared type, its map type overridable
  // beside the ref; anything else is converted inline, inheriting preserve-unknown-fields.
  private reference(schema: OpenApiSchema, preserve: boolean): SchemaType {
    let ref = schema.$ref;
    if (!ref && schema.allOf?.length === 1 && schema.allOf[0]?.$ref) ref = schema.allOf[0].$ref;
    if (!ref) return this.convert(schema, preserve);
    const target = this.namedType(ref);
    const override = mapRelationship(schema);
    if (override && target.kind === 'map' && target.relationship !== override) {
      return { ...target, relationship: override };
    }
    return target;
  }
}
