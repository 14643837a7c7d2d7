import type { FieldSchema, PatchSchema, PatchStrategy } from '../patch/schema.js';
import { definitionNameForKind, getDefinition, refDefinitionName } from './definitions.js';
import type { SchemaObject } from './schema.js';

/**
 * Strategic-merge-patch schemas derived from the OpenAPI definitions: each definition's
 * fields with their `x-kubernetes-patch-strategy` and `-merge-key`. Built lazily and
 * memoized per definition, so recursive types (JSONSchemaProps) cost nothing up front.
 */
const memo = new Map<string, PatchSchema>();

export function patchSchemaForKind(group: string, version: string, kind: string): PatchSchema | undefined {
  const name = definitionNameForKind(group, version, kind);
  return name === undefined ? undefined : patchSchemaForDefinition(name);
}

function patchSchemaForDefinition(name: string): PatchSchema {
  const known = memo.get(name);
  if (known) return known;
  let fields: Record<string, FieldSchema> | undefined;
  const schema: PatchSchema = {
    get fields() {
      fields ??= buildFields(getDefinition(name));
      return fields;
    },
  };
  memo.set(name, schema);
  return schema;
}

function buildFields(definition: SchemaObject | undefined): Record<string, FieldSchema> {
  const fields: Record<string, FieldSchema> = {};
  for (const [field, property] of Object.entries(definition?.properties ?? {})) {
    fields[field] = fieldSchema(property);
  }
  return fields;
}

function strategyOf(schema: SchemaObject): PatchStrategy | undefined {
  const value = schema['x-kubernetes-patch-strategy'];
  return value === 'merge' || value === 'replace' || value === 'retainKeys' || value === 'merge,retainKeys'
    ? value
    : undefined;
}

/** A referenced definition that is an object with properties, else undefined (Quantity, Time ...). */
function objectDefinition(schema: SchemaObject): string | undefined {
  const name = schema.$ref ? refDefinitionName(schema.$ref) : undefined;
  if (!name) return undefined;
  const definition = getDefinition(name);
  return definition?.properties ? name : undefined;
}

function fieldSchema(property: SchemaObject): FieldSchema {
  const patchStrategy = strategyOf(property);
  const objectName = objectDefinition(property);
  if (objectName) return { kind: 'object', schema: patchSchemaForDefinition(objectName), patchStrategy };
  if (property.type === 'array' && property.items) {
    const itemName = objectDefinition(property.items);
    if (itemName) {
      return {
        kind: 'objectList',
        items: patchSchemaForDefinition(itemName),
        patchStrategy,
        patchMergeKey: property['x-kubernetes-patch-merge-key'],
      };
    }
    return { kind: 'primitiveList', patchStrategy };
  }
  if (property.type === 'object' && property.additionalProperties) {
    return { kind: 'map', values: fieldSchema(property.additionalProperties), patchStrategy };
  }
  return { kind: 'primitive', patchStrategy };
}
