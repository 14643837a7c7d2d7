// The OpenAPI definitions of custom resources (apiextensions-apiserver's controller/openapi/builder):
// each served version's schema under `<reversed group>.<version>.<Kind>`, with apiVersion, kind and
// metadata added, plus its List; built-in definitions stay as they are. What v2 cannot say (anyOf,
// oneOf, not, nullable) is left out, as the v2 conversion of upstream's builder does.
import type { ResourceInfo } from '../../api/resources/types.js';
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';
import { getDefinition } from '../openapi/definitions.js';
import { DEFINITION_REF_PREFIX, type SchemaObject } from '../openapi/schema.js';
import { BUILTIN_SCHEMAS, type SchemaSource } from '../openapi/schema-source.js';
import { isJsonObject } from '../registry/validation/json.js';

const DROPPED = new Set([
  'anyOf',
  'oneOf',
  'not',
  'allOf',
  'nullable',
  'x-kubernetes-validations',
  'default',
]);

/** `db.example.com`, `v1`, `Database` → `com.example.db.v1.Database`. */
export function definitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

function v2Compatible(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(v2Compatible);
  if (!isJsonObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    if (key === 'properties' && isJsonObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, v2Compatible(child)]),
      );
    } else out[key] = v2Compatible(value);
  }
  // An int-or-string has no single type.
  if (out['x-kubernetes-int-or-string'] === true) delete out.type;
  return out;
}

/** A built-in object's property (apiVersion, kind, metadata) with its standard description. */
function standardProperty(name: 'apiVersion' | 'kind' | 'metadata'): SchemaObject {
  return { ...(getDefinition('io.k8s.api.core.v1.ConfigMap')?.properties?.[name] ?? {}) };
}

function objectDefinition(info: ResourceInfo, schema: JSONSchemaProps | undefined): SchemaObject {
  const converted = (schema ? v2Compatible(schema) : { type: 'object' }) as SchemaObject &
    Record<string, unknown>;
  const properties = { ...(converted.properties ?? {}) };
  properties.apiVersion = standardProperty('apiVersion');
  properties.kind = standardProperty('kind');
  properties.metadata = standardProperty('metadata');
  return {
    ...converted,
    type: 'object',
    properties,
    'x-kubernetes-group-version-kind': [{ group: info.group, kind: info.kind, version: info.version }],
  };
}

function listDefinition(info: ResourceInfo, itemName: string): SchemaObject {
  return {
    description: `${info.kind}List is a list of ${info.kind}`,
    required: ['items'],
    properties: {
      apiVersion: standardProperty('apiVersion'),
      items: {
        description: `List of ${info.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        type: 'array',
        items: { $ref: `${DEFINITION_REF_PREFIX}${itemName}` },
      },
      kind: standardProperty('kind'),
      metadata: { ...(getDefinition('io.k8s.api.core.v1.ConfigMapList')?.properties?.metadata ?? {}) },
    },
    type: 'object',
    'x-kubernetes-group-version-kind': [
      { group: info.group, kind: `${info.kind}List`, version: info.version },
    ],
  };
}

/** The built-in definitions plus those of the given custom resource versions. */
export function customResourceSchemas(
  versions: readonly { readonly info: ResourceInfo; readonly schema: JSONSchemaProps | undefined }[],
): SchemaSource {
  const definitions = new Map<string, SchemaObject>();
  const byKind = new Map<string, string>();
  for (const { info, schema } of versions) {
    const name = definitionName(info.group, info.version, info.kind);
    definitions.set(name, objectDefinition(info, schema));
    definitions.set(`${name}List`, listDefinition(info, name));
    byKind.set(`${info.group}/${info.version}/${info.kind}`, name);
    byKind.set(`${info.group}/${info.version}/${info.kind}List`, `${name}List`);
  }
  return {
    definition: (name) => definitions.get(name) ?? BUILTIN_SCHEMAS.definition(name),
    definitionNameForKind: (group, version, kind) =>
      byKind.get(`${group}/${version}/${kind}`) ??
      BUILTIN_SCHEMAS.definitionNameForKind(group, version, kind),
  };
}
