// The structured-merge-diff type of a built-in kind, converted from the OpenAPI definitions tkube
// serves (kube-apiserver's field manager builds its type converter from the same definitions).
import { definitionNameForKind, getDefinition, refDefinitionName } from '../../openapi/definitions.js';
import { type OpenApiSchema, SchemaConverter } from './from-openapi.js';
import type { SchemaType } from './schema.js';

let converter: SchemaConverter | undefined;

/** One converter over the built-in definitions, shared by every kind (and by CRDs' ObjectMeta). */
export function builtinConverter(): SchemaConverter {
  converter ??= new SchemaConverter((ref) => {
    const name = refDefinitionName(ref) ?? ref;
    const schema = getDefinition(name);
    return schema ? { name, schema: schema as OpenApiSchema } : undefined;
  });
  return converter;
}

/** The type of a built-in kind, or undefined when no definition names it. */
export function builtinType(group: string, version: string, kind: string): SchemaType | undefined {
  const name = definitionNameForKind(group, version, kind);
  return name === undefined ? undefined : builtinConverter().namedType(name);
}

export const OBJECT_META_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
