// Defaulting of custom resources (apiextensions-apiserver pkg/apiserver/schema/defaulting/
// algorithm.go): absent fields, and nulls where the schema is not nullable, get a deep copy of
// their `default`; properties, additionalProperties and items are walked.
import type { CompiledSchema } from './compiled.js';
import { checkDepth, deepCopyJson, isJsonObject } from './json-value.js';

function isNonNullableNull(value: unknown, schema: CompiledSchema | undefined): boolean {
  return value === null && schema !== undefined && !schema.nullable;
}

/** Default(x, s): fills defaults in place. */
export function applySchemaDefaults(schema: CompiledSchema | undefined, value: unknown, depth = 0): void {
  if (schema === undefined || !schema.hasDefaults) return;
  checkDepth(depth, '');
  if (isJsonObject(value)) {
    if (schema.properties !== undefined) {
      for (const [name, property] of schema.properties) {
        if (property.default === undefined) continue;
        if (!Object.hasOwn(value, name) || isNonNullableNull(value[name], property)) {
          value[name] = deepCopyJson(property.default);
        }
      }
    }
    const additional =
      typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const key of Object.keys(value)) {
      const property = schema.properties?.get(key);
      if (property !== undefined) {
        applySchemaDefaults(property, value[key], depth + 1);
      } else if (additional !== undefined) {
        if (isNonNullableNull(value[key], additional) && additional.default !== undefined) {
          value[key] = deepCopyJson(additional.default);
        }
        applySchemaDefaults(additional, value[key], depth + 1);
      }
    }
  } else if (Array.isArray(value)) {
    const items = schema.items;
    if (items === undefined) return;
    for (let i = 0; i < value.length; i++) {
      if (isNonNullableNull(value[i], items) && items.default !== undefined)
        value[i] = deepCopyJson(items.default);
      applySchemaDefaults(items, value[i], depth + 1);
    }
  }
}
