// x-kubernetes-list-type set/map uniqueness of custom resources (apiextensions-apiserver
// pkg/apiserver/schema/listtype/validation.go): Duplicate errors at the repeated item's index.
import { type FieldError, fieldInvalid, indexPath } from '../../../api/selectors/index.js';
import { fieldDuplicate } from '../../registry/validation/object-meta.js';
import type { CompiledSchema } from './compiled.js';
import { canonicalJson, checkDepth, goBadValue, isJsonObject, type JsonObject } from './json-value.js';

function childPath(path: string | undefined, name: string): string {
  return path === undefined ? name : `${path}.${name}`;
}

function keyPath(path: string | undefined, key: string): string {
  return `${path ?? ''}[${key}]`;
}

/** Indexes of the items equal to an earlier one, each reported once per value (as upstream). */
function repeatedIndexes(values: readonly unknown[]): number[] {
  const seen = new Map<string, number>();
  const repeated: number[] = [];
  values.forEach((value, index) => {
    const key =
      isJsonObject(value) || Array.isArray(value)
        ? `c${canonicalJson(value)}`
        : `s${typeof value}:${String(value)}`;
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) repeated.push(index);
  });
  return repeated;
}

function validateListMap(schema: CompiledSchema, items: readonly unknown[], path: string): FieldError[] {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item !== null && !isJsonObject(item)) {
      return [fieldInvalid(indexPath(path, i), item, 'must be an object for an array of list-type map')];
    }
  }
  if (items.length <= 1) return [];
  const keyFields = schema.listMapKeys;
  const keys = items.map((item) => {
    const key: JsonObject = {};
    if (isJsonObject(item))
      for (const field of keyFields) if (Object.hasOwn(item, field)) key[field] = item[field];
    return key;
  });
  if (keyFields.length === 1) {
    // One key: compare the key values themselves (an absent key is its own value).
    const field = keyFields[0]!;
    const values = keys.map((key) => (Object.hasOwn(key, field) ? key[field] : UNSPECIFIED));
    return repeatedIndexes(
      values.map((value) => (value === UNSPECIFIED ? { [UNSPECIFIED_KEY]: true } : value)),
    ).map((index) =>
      fieldDuplicate(
        indexPath(path, index),
        goBadValue(values[index] === UNSPECIFIED ? {} : { [field]: values[index] }),
      ),
    );
  }
  return repeatedIndexes(keys).map((index) =>
    fieldDuplicate(indexPath(path, index), goBadValue(keys[index])),
  );
}

const UNSPECIFIED = Symbol('unspecified key');
const UNSPECIFIED_KEY = '\u0000unspecified';

function validateArray(
  schema: CompiledSchema,
  items: readonly unknown[],
  path: string,
  depth: number,
): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.listType === 'set') {
    for (const index of repeatedIndexes(items))
      errors.push(fieldDuplicate(indexPath(path, index), goBadValue(items[index])));
  } else if (schema.listType === 'map') {
    errors.push(...validateListMap(schema, items, path));
  }
  const itemSchema = schema.items;
  if (itemSchema?.hasListOrEmbedded === true) {
    items.forEach((item, index) => {
      errors.push(...validateValue(itemSchema, item, indexPath(path, index), depth + 1));
    });
  }
  return errors;
}

function validateValue(schema: CompiledSchema, value: unknown, path: string, depth: number): FieldError[] {
  if (Array.isArray(value)) return validateArray(schema, value, path, depth);
  if (isJsonObject(value)) return validateObject(schema, value, path, depth);
  return [];
}

function validateObject(
  schema: CompiledSchema,
  object: JsonObject,
  path: string | undefined,
  depth: number,
): FieldError[] {
  checkDepth(depth, path ?? '');
  const errors: FieldError[] = [];
  const additional = schema.additionalProperties;
  for (const [key, value] of Object.entries(object)) {
    if (typeof additional === 'object' && additional.hasListOrEmbedded) {
      errors.push(...validateValue(additional, value, keyPath(path, key), depth + 1));
    }
    const property = schema.properties?.get(key);
    if (property?.hasListOrEmbedded === true)
      errors.push(...validateValue(property, value, childPath(path, key), depth + 1));
  }
  return errors;
}

/** ValidateListSetsAndMaps over a custom resource (paths from the object root). */
export function validateListSetsAndMaps(schema: CompiledSchema, object: JsonObject): FieldError[] {
  if (!schema.hasListOrEmbedded) return [];
  return validateObject(schema, object, undefined, 0);
}
