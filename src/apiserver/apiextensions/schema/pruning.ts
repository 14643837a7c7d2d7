// Pruning of unknown fields (apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go,
// with objectmeta/coerce.go for metadata and defaulting/prunenulls.go): what the schema does not
// declare is dropped unless x-kubernetes-preserve-unknown-fields keeps it; the dropped paths are
// returned (sorted, as upstream) for fieldValidation Warn/Strict.
import { asResourceRoot, type CompiledSchema } from './compiled.js';
import { checkDepth, isJsonObject, type JsonObject } from './json-value.js';
import { coerceObjectMeta } from './object-meta.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function appendKey(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Drops everything below a value no schema describes; iterative, since such values may nest deep. */
function pruneWithoutSchema(value: unknown, path: string, removed: string[]): void {
  const stack: Array<[unknown, string]> = [[value, path]];
  while (stack.length > 0) {
    const [current, at] = stack.pop()!;
    if (isJsonObject(current)) {
      for (const key of Object.keys(current)) {
        removed.push(appendKey(at, key));
        delete current[key];
      }
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => {
        stack.push([item, `${at}[${index}]`]);
      });
    }
  }
}

/** The metadata, apiVersion and kind of an embedded (non-root) resource, coerced as upstream. */
function coerceEmbedded(object: JsonObject, path: string, removed: string[]): void {
  for (const key of ['apiVersion', 'kind']) {
    if (Object.hasOwn(object, key) && typeof object[key] !== 'string') delete object[key];
  }
  if (Object.hasOwn(object, 'metadata')) {
    if (isJsonObject(object.metadata))
      coerceObjectMeta(object.metadata, appendKey(path, 'metadata'), removed);
    else if (object.metadata !== null) delete object.metadata;
  }
}

function pruneChild(
  schema: CompiledSchema | undefined,
  value: unknown,
  path: string,
  removed: string[],
  depth: number,
) {
  if (schema === undefined) pruneWithoutSchema(value, path, removed);
  else prune(schema, value, path, removed, depth + 1);
}

/**
 * prune and skipPrune in one: `skipping` is upstream's skipPrune (below a node with
 * x-kubernetes-preserve-unknown-fields, which also reaches into array items).
 */
function prune(
  schema: CompiledSchema,
  value: unknown,
  path: string,
  removed: string[],
  depth: number,
  skipping = false,
): void {
  checkDepth(depth, path);
  const preserve = skipping || schema.preserveUnknownFields;
  if (isJsonObject(value)) {
    if (schema.embeddedResource && depth > 0) coerceEmbedded(value, path, removed);
    const additional = schema.additionalProperties;
    for (const key of Object.keys(value)) {
      if (schema.embeddedResource && META_FIELDS.has(key)) continue;
      const property = schema.properties?.get(key);
      if (property !== undefined) {
        prune(property, value[key], appendKey(path, key), removed, depth + 1);
      } else if (additional !== undefined) {
        // additionalProperties without a schema (true or false) describes nothing below it.
        pruneChild(
          typeof additional === 'object' ? additional : undefined,
          value[key],
          appendKey(path, key),
          removed,
          depth,
        );
      } else if (!preserve) {
        if (!META_FIELDS.has(key) || path !== '') removed.push(appendKey(path, key));
        delete value[key];
      }
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      const at = `${path}[${index}]`;
      if (schema.items !== undefined) prune(schema.items, item, at, removed, depth + 1, preserve);
      else if (!preserve) pruneWithoutSchema(item, at, removed);
    });
  }
}

/** Removes nulls where the schema neither allows them (nullable) nor defaults them. */
function pruneNonNullableNulls(schema: CompiledSchema | undefined, value: unknown, depth: number): void {
  if (schema === undefined) return;
  checkDepth(depth, '');
  if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const property =
        schema.properties?.get(key) ??
        (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (property === undefined) continue;
      const item = value[key];
      if (item === null && !property.nullable && property.default === undefined) delete value[key];
      else pruneNonNullableNulls(property, item, depth + 1);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) pruneNonNullableNulls(schema.items, item, depth + 1);
  }
}

/**
 * Prunes a custom resource in place (the root is treated as an embedded resource, so apiVersion,
 * kind and metadata stay; metadata keeps only ObjectMeta's fields). Returns the removed paths.
 */
export function pruneResource(schema: CompiledSchema, object: JsonObject): string[] {
  const metadataRemoved: string[] = [];
  if (isJsonObject(object.metadata)) coerceObjectMeta(object.metadata, 'metadata', metadataRemoved);
  const removed: string[] = [];
  prune(asResourceRoot(schema), object, '', removed, 0);
  pruneNonNullableNulls(schema, object, 0);
  removed.sort();
  return [...metadataRemoved, ...removed];
}

/** Prunes a value (e.g. a default) against its schema, without resource-root treatment. */
export function pruneValue(schema: CompiledSchema, value: unknown, isResourceRoot: boolean): void {
  prune(isResourceRoot ? asResourceRoot(schema) : schema, value, '', [], 0);
}
