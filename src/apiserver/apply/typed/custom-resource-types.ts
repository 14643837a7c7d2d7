// The structured-merge-diff type of a custom resource version: its structural schema with
// apiVersion, kind and ObjectMeta added, as apiextensions-apiserver's OpenAPI builder adds them
// before the CRD handler builds its type converter.
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { DEFINITION_REF_PREFIX } from '../../openapi/schema.js';
import { builtinConverter, OBJECT_META_DEFINITION } from './builtin-types.js';
import { isSchema, type OpenApiSchema } from './from-openapi.js';
import { type SchemaType, UNTYPED_DEDUCED } from './schema.js';

const OBJECT_META_REF: OpenApiSchema = { $ref: `${DEFINITION_REF_PREFIX}${OBJECT_META_DEFINITION}` };

/**
 * A copy of `schema` where every `x-kubernetes-embedded-resource` node also declares apiVersion,
 * kind and metadata (ObjectMeta) when it does not itself, as the OpenAPI builder adds them.
 */
function withEmbeddedResourceFields(schema: OpenApiSchema): OpenApiSchema {
  const out: OpenApiSchema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, child]) => [name, withEmbeddedResourceFields(child)]),
    );
  }
  if (isSchema(schema.items)) out.items = withEmbeddedResourceFields(schema.items);
  if (isSchema(schema.additionalProperties)) {
    out.additionalProperties = withEmbeddedResourceFields(schema.additionalProperties);
  }
  if (schema['x-kubernetes-embedded-resource'] === true) {
    out.properties = {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: OBJECT_META_REF,
      ...out.properties,
    };
  }
  return out;
}

/** The type of a custom resource's objects; a version without a schema takes any field. */
export function customResourceType(schema: JSONSchemaProps | undefined): SchemaType {
  if (!schema) return UNTYPED_DEDUCED;
  const withEmbedded = withEmbeddedResourceFields(schema as OpenApiSchema);
  const root: OpenApiSchema = {
    ...withEmbedded,
    type: 'object',
    properties: {
      ...(withEmbedded.properties ?? {}),
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: OBJECT_META_REF,
    },
  };
  return builtinConverter().convert(root, false);
}
