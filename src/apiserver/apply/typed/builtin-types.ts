// The structured-merge-diff type of a built-in kind, converted from the OpenAPI definitions tkube
// serves (kube-apiserver's field manager builds its type converter from the same definitions).
import { definitionNameForKind, getDefinition, refDefinitionName } from '../../openapi/definitions.js';
import type { JsonValue } from '../../patch/json-value.js';
import { type OpenApiSchema, SchemaConverter } from './from-openapi.js';
import type { SchemaType } from './schema.js';

let converter: SchemaConverter | undefined;

// The OpenAPI `default`s of list-map key fields that upstream's definitions carry and tkube's
// generated definitions (built from client models, which have no defaults) lack: an apply that
// omits `protocol` on a port must still key the item as `protocol: TCP`.
const KEY_DEFAULTS: Readonly<Record<string, Readonly<Record<string, JsonValue>>>> = {
  'io.k8s.api.core.v1.ContainerPort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.ServicePort': { protocol: 'TCP' },
};

function withKeyDefaults(name: string, schema: OpenApiSchema): OpenApiSchema {
  const defaults = KEY_DEFAULTS[name];
  if (!defaults || !schema.properties) return schema;
  const properties = { ...schema.properties };
  for (const [field, value] of Object.entries(defaults)) {
    const member = properties[field];
    if (member && member.default === undefined) properties[field] = { ...member, default: value };
  }
  return { ...schema, properties };
}

/** One converter over the built-in definitions, shared by every kind (and by CRDs' ObjectMeta). */
export function builtinConverter(): SchemaConverter {
  converter ??= new SchemaConverter((ref) => {
    const name = refDefinitionName(ref) ?? ref;
    const schema = getDefinition(name);
    return schema ? { name, schema: withKeyDefaults(name, schema as OpenApiSchema) } : undefined;
  });
  return converter;
}

/** The type of a built-in kind, or undefined when no definition names it. */
export function builtinType(group: string, version: string, kind: string): SchemaType | undefined {
  const name = definitionNameForKind(group, version, kind);
  return name === undefined ? undefined : builtinConverter().namedType(name);
}

export const OBJECT_META_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
