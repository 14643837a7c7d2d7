// The OpenAPI definitions of custom resources (apiextensions-apiserver's controller/openapi/builder):
// each served version's schema under `<reversed group>.<version>.<Kind>`, with apiVersion, kind and
// metadata added, plus its List; built-in definitions stay as they are. /openapi/v3 carries the
// schema as written; /openapi/v2 the form ToStructuralOpenAPIV2 gives it (no anyOf/oneOf/allOf/not,
// nothing below nullable or x-kubernetes-preserve-unknown-fields), and a bare object where the root
// preserves unknown fields, so that kubectl's client-side validation accepts them.
import type { ResourceInfo } from '../../api/resources/types.js';
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';
import { getDefinition } from '../openapi/definitions.js';
import { DEFINITION_REF_PREFIX, type SchemaObject } from '../openapi/schema.js';
import { BUILTIN_SCHEMAS, type SchemaSource } from '../openapi/schema-source.js';
import { isJsonObject } from '../registry/validation/json.js';

type Node = Record<string, unknown>;

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
/** The descriptions the builder gives a custom resource's and its list's metadata (swaggerPartialObjectMetadataDescriptions, ListMeta's). */
const OBJECT_METADATA_DESCRIPTION =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA_DESCRIPTION =
  'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** `db.example.com`, `v1`, `Database` → `com.example.db.v1.Database`. */
export function definitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** ToStructuralOpenAPIV2, over every schema node (properties, items, additionalProperties). */
function toV2(schema: unknown): unknown {
  if (!isJsonObject(schema)) return schema;
  const s: Node = { ...schema };
  for (const key of ['allOf', 'oneOf', 'anyOf', 'not']) delete s[key];
  if (s.nullable === true) {
    for (const key of ['type', 'nullable', 'items', 'properties']) delete s[key];
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === true) {
    delete s.items;
    delete s.properties;
    if (s.type === 'object') delete s.type;
  }
  if (s.type === 'array' && s.items === undefined) delete s.type;
  if (isJsonObject(s.properties)) {
    const properties = s.properties;
    s.properties = Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, toV2(child)]));
    const nullable = Object.entries(properties)
      .filter(([, child]) => isJsonObject(child) && child.nullable === true)
      .map(([name]) => name);
    if (Array.isArray(s.required) && nullable.length > 0) {
      s.required = (s.required as string[]).filter((name) => !nullable.includes(name));
      if ((s.required as string[]).length === 0) delete s.required;
    }
  }
  if (s.items !== undefined) s.items = toV2(s.items);
  if (isJsonObject(s.additionalProperties)) {
    if (s.additionalProperties.nullable === true) delete s.required;
    s.additionalProperties = toV2(s.additionalProperties);
  }
  return s;
}

/** A built-in object's property (apiVersion, kind) with its standard description. */
function standardProperty(name: 'apiVersion' | 'kind'): SchemaObject {
  return { ...(getDefinition('io.k8s.api.core.v1.ConfigMap')?.properties?.[name] ?? {}) };
}

function gvk(info: ResourceInfo, kind = info.kind): Pick<SchemaObject, 'x-kubernetes-group-version-kind'> {
  return { 'x-kubernetes-group-version-kind': [{ group: info.group, kind, version: info.version }] };
}

/** buildKubeNative: the schema with TypeMeta and ObjectMeta, or a bare object without a schema. */
function objectDefinition(
  info: ResourceInfo,
  schema: JSONSchemaProps | undefined,
  v2: boolean,
): SchemaObject {
  if (!schema || (v2 && schema['x-kubernetes-preserve-unknown-fields'] === true))
    return { type: 'object', ...gvk(info) };
  const converted = (v2 ? toV2(schema) : structuredClone(schema)) as SchemaObject;
  return {
    ...converted,
    properties: {
      ...(converted.properties ?? {}),
      apiVersion: standardProperty('apiVersion'),
      kind: standardProperty('kind'),
      metadata: {
        $ref: `${DEFINITION_REF_PREFIX}${META}.ObjectMeta`,
        description: OBJECT_METADATA_DESCRIPTION,
      },
    },
    ...gvk(info),
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
      metadata: { $ref: `${DEFINITION_REF_PREFIX}${META}.ListMeta`, description: LIST_METADATA_DESCRIPTION },
    },
    type: 'object',
    ...gvk(info, `${info.kind}List`),
  };
}

/** The built-in definitions plus those of the given custom resource versions. */
export function customResourceSchemas(
  versions: readonly { readonly info: ResourceInfo; readonly schema: JSONSchemaProps | undefined }[],
): SchemaSource {
  const v3 = new Map<string, SchemaObject>();
  const v2 = new Map<string, SchemaObject>();
  const byKind = new Map<string, string>();
  for (const { info, schema } of versions) {
    const name = definitionName(info.group, info.version, info.kind);
    v3.set(name, objectDefinition(info, schema, false));
    v2.set(name, objectDefinition(info, schema, true));
    v3.set(`${name}List`, listDefinition(info, name));
    byKind.set(`${info.group}/${info.version}/${info.kind}`, name);
    byKind.set(`${info.group}/${info.version}/${info.kind}List`, `${name}List`);
  }
  return {
    definition: (name) => v3.get(name) ?? BUILTIN_SCHEMAS.definition(name),
    v2Definition: (name) => v2.get(name) ?? v3.get(name) ?? BUILTIN_SCHEMAS.definition(name),
    definitionNameForKind: (group, version, kind) =>
      byKind.get(`${group}/${version}/${kind}`) ??
      BUILTIN_SCHEMAS.definitionNameForKind(group, version, kind),
  };
}
