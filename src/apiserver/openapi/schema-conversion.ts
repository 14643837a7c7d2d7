// Schema plumbing shared by both document versions: key order as kube-openapi's Go structs write it,
// the definitions a set of schemas reaches, and the Swagger 2.0 → OpenAPI 3.0 rewrite (references under
// #/components/schemas/, a reference with siblings wrapped in allOf, IntOrString and Quantity as oneOf).

import { DEFINITION_REF_PREFIX, type SchemaObject } from './schema.js';
import type { SchemaSource } from './schema-source.js';

/** A JSON schema node: SchemaObject's fields and whatever else a definition carries. */
export type SchemaNode = { readonly [key: string]: unknown };

export const COMPONENT_REF_PREFIX = '#/components/schemas/';

// spec.Schema's fields in declaration order; anything else (x-kubernetes-*) follows, sorted.
const SCHEMA_KEY_ORDER = [
  'id',
  'description',
  'type',
  'nullable',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'patternProperties',
  'dependencies',
  'additionalItems',
  'definitions',
  'discriminator',
  'readOnly',
  'externalDocs',
  'example',
  '$schema',
  '$ref',
];
const SCHEMA_KEY_RANK = new Map(SCHEMA_KEY_ORDER.map((key, index) => [key, index]));
const SINGLE_SCHEMA_KEYS = new Set(['items', 'not', 'additionalProperties', 'additionalItems']);
const SCHEMA_LIST_KEYS = new Set(['allOf', 'oneOf', 'anyOf']);
const SCHEMA_MAP_KEYS = new Set(['properties', 'patternProperties', 'definitions']);

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compareKeys(a: string, b: string): number {
  const ra = SCHEMA_KEY_RANK.get(a) ?? SCHEMA_KEY_ORDER.length;
  const rb = SCHEMA_KEY_RANK.get(b) ?? SCHEMA_KEY_ORDER.length;
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Maps inside extensions are Go maps: written with sorted keys. */
function sortedValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedValue);
  if (!isNode(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedValue(value[key]);
  return out;
}

function sortedMap(map: SchemaNode, each: (value: unknown) => unknown): SchemaNode {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(map).sort()) out[key] = each(map[key]);
  return out;
}

/**
 * Rewrites a schema tree bottom-up: `visit` sees every node after its children were rewritten and
 * may replace it; keys come out in kube-openapi's order.
 */
function rewrite(node: SchemaNode, visit: (node: SchemaNode) => SchemaNode): SchemaNode {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node).sort(compareKeys)) {
    const value = node[key];
    if (SINGLE_SCHEMA_KEYS.has(key) && isNode(value)) out[key] = rewrite(value, visit);
    else if (SCHEMA_LIST_KEYS.has(key) && Array.isArray(value))
      out[key] = value.map((item) => (isNode(item) ? rewrite(item, visit) : item));
    else if (SCHEMA_MAP_KEYS.has(key) && isNode(value))
      out[key] = sortedMap(value, (item) => (isNode(item) ? rewrite(item, visit) : item));
    else out[key] = sortedValue(value);
  }
  return visit(out);
}

/** A Swagger 2.0 definition with its keys in the order kube-apiserver writes them. */
export function orderedV2Schema(schema: SchemaObject | SchemaNode): SchemaNode {
  return rewrite(schema as SchemaNode, (node) => node);
}

// kube-openapi serves these two with a v3-only shape: a oneOf of what the JSON may hold.
const V3_SHAPES: Readonly<Record<string, (description: unknown) => SchemaNode>> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': (description) => ({
    ...(description === undefined ? {} : { description }),
    format: 'int-or-string',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
  }),
  'io.k8s.apimachinery.pkg.api.resource.Quantity': (description) => ({
    ...(description === undefined ? {} : { description }),
    oneOf: [{ type: 'string' }, { type: 'number' }],
  }),
};

function wrapReference(node: SchemaNode): SchemaNode {
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  const target = ref.startsWith(DEFINITION_REF_PREFIX)
    ? COMPONENT_REF_PREFIX + ref.slice(DEFINITION_REF_PREFIX.length)
    : ref;
  const { $ref: _ref, ...siblings } = node;
  if (Object.keys(siblings).length === 0) return { $ref: target };
  return rewrite({ ...siblings, allOf: [{ $ref: target }] }, (inner) => inner);
}

/** The OpenAPI v3 form of the definition `name`. */
export function v3Schema(name: string, schema: SchemaObject | SchemaNode): SchemaNode {
  const shape = V3_SHAPES[name];
  if (shape) return shape((schema as SchemaNode).description);
  return rewrite(schema as SchemaNode, wrapReference);
}

function collectRefs(node: SchemaNode, out: Set<string>): void {
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith(DEFINITION_REF_PREFIX)) {
    out.add(ref.slice(DEFINITION_REF_PREFIX.length));
  }
  for (const [key, value] of Object.entries(node)) {
    if (SINGLE_SCHEMA_KEYS.has(key) && isNode(value)) collectRefs(value, out);
    else if (SCHEMA_LIST_KEYS.has(key) && Array.isArray(value)) {
      for (const item of value) if (isNode(item)) collectRefs(item, out);
    } else if (SCHEMA_MAP_KEYS.has(key) && isNode(value)) {
      for (const item of Object.values(value)) if (isNode(item)) collectRefs(item, out);
    }
  }
}

/** `roots` and every definition they reach through `$ref`s, sorted by name. */
export function definitionClosure(roots: Iterable<string>, schemas: SchemaSource): string[] {
  const seen = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name)) continue;
    const definition = schemas.definition(name);
    if (!definition) throw new Error(`OpenAPI definition ${name} is missing`);
    seen.add(name);
    const refs = new Set<string>();
    collectRefs(definition as SchemaNode, refs);
    for (const ref of refs) if (!seen.has(ref)) pending.push(ref);
  }
  return [...seen].sort();
}
