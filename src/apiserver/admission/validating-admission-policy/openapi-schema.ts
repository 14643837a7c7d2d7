// The schema of a built-in kind for type checking (upstream's DefinitionsSchemaResolver): its
// OpenAPI definition with every `$ref` resolved into the structural form CEL types are built
// from; int-or-string fields become `x-kubernetes-int-or-string`, recursive references stop as
// untyped objects.
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { definitionNameForKind, getDefinition, refDefinitionName } from '../../openapi/definitions.js';
import type { SchemaObject } from '../../openapi/schema.js';

function convert(schema: SchemaObject, seen: readonly string[]): JSONSchemaProps | undefined {
  if (schema.$ref !== undefined) {
    const name = refDefinitionName(schema.$ref);
    const target = name === undefined ? undefined : getDefinition(name);
    if (name === undefined || target === undefined) return undefined;
    if (seen.includes(name)) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    return convert(target, [...seen, name]);
  }
  if (schema.format === 'int-or-string') return { 'x-kubernetes-int-or-string': true };
  const result: JSONSchemaProps = {};
  if (schema.type !== undefined) result.type = schema.type;
  if (schema.format !== undefined) result.format = schema.format;
  if (schema['x-kubernetes-list-type'] !== undefined)
    result['x-kubernetes-list-type'] = schema['x-kubernetes-list-type'];
  if (schema['x-kubernetes-list-map-keys'] !== undefined)
    result['x-kubernetes-list-map-keys'] = schema['x-kubernetes-list-map-keys'];
  if (schema['x-kubernetes-map-type'] !== undefined)
    result['x-kubernetes-map-type'] = schema['x-kubernetes-map-type'];
  if (schema.items !== undefined) {
    const items = convert(schema.items, seen);
    if (items !== undefined) result.items = items;
  }
  if (schema.properties !== undefined) {
    result.type ??= 'object';
    result.properties = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      const converted = convert(property, seen);
      if (converted !== undefined) result.properties[name] = converted;
    }
    if (schema.required !== undefined) result.required = schema.required;
  }
  if (schema.additionalProperties !== undefined) {
    const values = convert(schema.additionalProperties, seen);
    if (values !== undefined) {
      result.type ??= 'object';
      result.additionalProperties = values;
    }
  }
  return result;
}

const cache = new Map<string, JSONSchemaProps | undefined>();

/** The resolved schema of a built-in kind, or undefined when there is no definition for it. */
export function builtinKindSchema(group: string, version: string, kind: string): JSONSchemaProps | undefined {
  const key = `${group}/${version}/${kind}`;
  if (!cache.has(key)) {
    const name = definitionNameForKind(group, version, kind);
    const definition = name === undefined ? undefined : getDefinition(name);
    cache.set(key, definition === undefined ? undefined : convert(definition, [name!]));
  }
  return cache.get(key);
}
