// The structured-merge-diff type of a custom resource version: its structural schema with
// apiVersion, kind and ObjectMeta added, as apiextensions-apiserver's OpenAPI builder adds them
// before the CRD handler builds its type converter.
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { DEFINITION_REF_PREFIX } from '../../openapi/schema.js';
import { builtinConverter, OBJECT_META_DEFINITION } from './builtin-types.js';
import type { OpenApiSchema } from './from-openapi.js';
import { type SchemaType, UNTYPED_DEDUCED } from './schema.js';

/** The type of a custom resource's objects; a version without a schema takes any field. */
export function customResourceType(schema: JSONSchemaProps | undefined): SchemaType {
  if (!schema) return UNTYPED_DEDUCED;
  const root: OpenApiSchema = {
    ...(schema as OpenApiSchema),
    type: 'object',
    properties: {
      ...((schema.properties ?? {}) as Record<string, OpenApiSchema>),
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: `${DEFINITION_REF_PREFIX}${OBJECT_META_DEFINITION}` },
    },
  };
  return builtinConverter().convert(root, false);
}
