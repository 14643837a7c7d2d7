// A custom-resource schema prepared once for validation, defaulting and pruning: upstream's
// Structural (pkg/apiserver/schema/structural.go) plus the value validations kube-openapi's
// SchemaValidator reads. Compiled forms are cached per schema object, so each request only walks.
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { supportedFormat } from './formats.js';
import { compileGoRegexp, GoRegexpError } from './go-regexp.js';
import { checkDepth, isJsonObject } from './json-value.js';

export interface CompiledSchema {
  /** Types the value may have; empty when unconstrained. int-or-string gives ['integer', 'string']. */
  readonly types: readonly string[];
  readonly nullable: boolean;
  /** The format as written when it is a supported one, else '' (upstream strips the others). */
  readonly format: string;
  /** The supported format's normalized name (`date-time` → `datetime`), for checking values. */
  readonly formatCheck: string;
  readonly properties: ReadonlyMap<string, CompiledSchema> | undefined;
  /** additionalProperties: false, true, a schema, or undefined when not given. */
  readonly additionalProperties: CompiledSchema | boolean | undefined;
  readonly items: CompiledSchema | undefined;
  /** `items` given as an array (not allowed in CRDs, validated positionally like kube-openapi). */
  readonly itemsTuple: readonly CompiledSchema[] | undefined;
  readonly allOf: readonly CompiledSchema[];
  readonly anyOf: readonly CompiledSchema[];
  readonly oneOf: readonly CompiledSchema[];
  readonly not: CompiledSchema | undefined;
  readonly required: readonly string[];
  readonly enum: readonly unknown[] | undefined;
  readonly pattern: string | undefined;
  /** The compiled pattern, or the Go error text when Go would not compile it. */
  readonly patternRegexp: RegExp | string | undefined;
  readonly minLength: number | undefined;
  readonly maxLength: number | undefined;
  readonly minimum: number | undefined;
  readonly maximum: number | undefined;
  readonly exclusiveMinimum: boolean;
  readonly exclusiveMaximum: boolean;
  readonly multipleOf: number | undefined;
  readonly minItems: number | undefined;
  readonly maxItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly minProperties: number | undefined;
  readonly maxProperties: number | undefined;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly listType: string | undefined;
  readonly listMapKeys: readonly string[];
  /** The default value (undefined when none; `null` is not a default, as in upstream). */
  readonly default: unknown;
  /** Whether this node or a structural descendant has a default (lets defaulting skip subtrees). */
  readonly hasDefaults: boolean;
  /** Whether this node needs a list-type or embedded-resource walk somewhere below. */
  readonly hasListOrEmbedded: boolean;
}

const cache = new WeakMap<JSONSchemaProps, CompiledSchema>();

function number(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** The single schema of `items`, or undefined (absent or an array of schemas). */
export function itemsSchema(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  return isJsonObject(schema.items) ? (schema.items as JSONSchemaProps) : undefined;
}

/** The schema of `additionalProperties` when it is one (not a boolean). */
export function additionalPropertiesSchema(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  return isJsonObject(schema.additionalProperties)
    ? (schema.additionalProperties as JSONSchemaProps)
    : undefined;
}

function compileNode(schema: JSONSchemaProps, depth: number): CompiledSchema {
  const cached = cache.get(schema);
  if (cached !== undefined) return cached;
  checkDepth(depth, '');
  const child = (sub: JSONSchemaProps) => compileNode(sub, depth + 1);
  const list = (subs: JSONSchemaProps[] | undefined) =>
    Array.isArray(subs) ? subs.filter(isJsonObject).map(child) : [];

  let properties: Map<string, CompiledSchema> | undefined;
  if (isJsonObject(schema.properties)) {
    properties = new Map();
    for (const [name, sub] of Object.entries(schema.properties)) {
      if (isJsonObject(sub)) properties.set(name, child(sub));
    }
  }
  let additionalProperties: CompiledSchema | boolean | undefined;
  if (typeof schema.additionalProperties === 'boolean') additionalProperties = schema.additionalProperties;
  else if (isJsonObject(schema.additionalProperties))
    additionalProperties = child(schema.additionalProperties as JSONSchemaProps);
  const items = itemsSchema(schema);
  const itemsTuple = Array.isArray(schema.items) ? list(schema.items as JSONSchemaProps[]) : undefined;

  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const types = intOrString
    ? ['integer', 'string']
    : typeof schema.type === 'string' && schema.type !== ''
      ? [schema.type]
      : [];
  let patternRegexp: RegExp | string | undefined;
  if (typeof schema.pattern === 'string' && schema.pattern !== '') {
    try {
      patternRegexp = compileGoRegexp(schema.pattern);
    } catch (error) {
      if (!(error instanceof GoRegexpError)) throw error;
      patternRegexp = error.message;
    }
  }

  const compiledItems = items === undefined ? undefined : child(items);
  const defaultValue = schema.default === null ? undefined : schema.default;
  const structuralChildren: CompiledSchema[] = [
    ...(properties?.values() ?? []),
    ...(typeof additionalProperties === 'object' ? [additionalProperties] : []),
    ...(compiledItems === undefined ? [] : [compiledItems]),
  ];
  const listType =
    typeof schema['x-kubernetes-list-type'] === 'string' ? schema['x-kubernetes-list-type'] : undefined;
  const embeddedResource = schema['x-kubernetes-embedded-resource'] === true;

  const compiled: CompiledSchema = {
    types,
    nullable: schema.nullable === true,
    format: supportedFormat(schema.format) === '' ? '' : String(schema.format),
    formatCheck: supportedFormat(schema.format),
    properties,
    additionalProperties,
    items: compiledItems,
    itemsTuple,
    allOf: list(schema.allOf),
    anyOf: list(schema.anyOf),
    oneOf: list(schema.oneOf),
    not: isJsonObject(schema.not) ? child(schema.not) : undefined,
    required: Array.isArray(schema.required)
      ? schema.required.filter((name) => typeof name === 'string')
      : [],
    enum: Array.isArray(schema.enum) && schema.enum.length > 0 ? schema.enum : undefined,
    pattern: typeof schema.pattern === 'string' && schema.pattern !== '' ? schema.pattern : undefined,
    patternRegexp,
    minLength: number(schema.minLength),
    maxLength: number(schema.maxLength),
    minimum: number(schema.minimum),
    maximum: number(schema.maximum),
    exclusiveMinimum: schema.exclusiveMinimum === true,
    exclusiveMaximum: schema.exclusiveMaximum === true,
    multipleOf: number(schema.multipleOf),
    minItems: number(schema.minItems),
    maxItems: number(schema.maxItems),
    uniqueItems: schema.uniqueItems === true,
    minProperties: number(schema.minProperties),
    maxProperties: number(schema.maxProperties),
    preserveUnknownFields: schema['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource,
    listType,
    listMapKeys: Array.isArray(schema['x-kubernetes-list-map-keys'])
      ? schema['x-kubernetes-list-map-keys']
      : [],
    default: defaultValue,
    hasDefaults: defaultValue !== undefined || structuralChildren.some((sub) => sub.hasDefaults),
    hasListOrEmbedded:
      listType === 'set' ||
      listType === 'map' ||
      embeddedResource ||
      structuralChildren.some((sub) => sub.hasListOrEmbedded),
  };
  cache.set(schema, compiled);
  return compiled;
}

/** The compiled form of a schema, built once per schema object. Throws NestingTooDeepError. */
export function compileSchema(schema: JSONSchemaProps): CompiledSchema {
  return compileNode(schema, 0);
}

/** The same schema marked as an embedded resource (upstream treats the resource root so). */
export function asResourceRoot(schema: CompiledSchema): CompiledSchema {
  if (schema.embeddedResource) return schema;
  const root = rootCache.get(schema);
  if (root !== undefined) return root;
  const marked: CompiledSchema = { ...schema, embeddedResource: true, hasListOrEmbedded: true };
  rootCache.set(schema, marked);
  return marked;
}

const rootCache = new WeakMap<CompiledSchema, CompiledSchema>();
