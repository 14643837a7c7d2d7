// kube-openapi's SchemaValidator (pkg/validation/validate: schema.go, type.go, schema_props.go,
// validator.go, slice_validator.go, object_validator.go) over a compiled CRD schema: the same
// validators in the same order, the same paths (`spec.items[0].name`) and messages.
import type { CompiledSchema } from './compiled.js';
import { matchesFormat } from './formats.js';
import { checkDepth, isJsonObject, jsonEqual, jsonTypeOf } from './json-value.js';
import {
  composite,
  duplicateItems,
  enumFail,
  exceedsMaximum,
  exceedsMinimum,
  failedPattern,
  invalidType,
  notMultipleOf,
  type OpenApiError,
  propertyNotAllowed,
  required,
  tooFewItems,
  tooFewProperties,
  tooLong,
  tooManyItems,
  tooManyProperties,
  tooShort,
} from './openapi-errors.js';

/** Go's format name of a decoded number: apimachinery decodes integers as int64, others as float64. */
function numberFormat(value: unknown): string {
  if (typeof value !== 'number') return '';
  return Number.isInteger(value) ? 'int64' : 'float64';
}

/** The old value correlated with the one being validated, or NO_OLD (creates, new fields). */
export type Old = { readonly value: unknown } | typeof NO_OLD;
export const NO_OLD = Symbol('no old value');

/** The old value of a field: present when the old object had that field. */
function correlateField(old: Old, key: string): Old {
  if (old === NO_OLD || !isJsonObject(old.value) || !Object.hasOwn(old.value, key)) return NO_OLD;
  return { value: old.value[key] };
}

/** Whether two list-map items have the same key values. */
function sameMapKeys(keys: readonly string[], a: unknown, b: unknown): boolean {
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  return keys.every((key) => Object.hasOwn(a, key) === Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}

/** The old item for item `index`: by key in list-maps, by index in plain lists, none in sets. */
function correlateItem(schema: CompiledSchema, items: readonly unknown[], index: number, old: Old): Old {
  if (old === NO_OLD || !Array.isArray(old.value)) return NO_OLD;
  const oldItems: readonly unknown[] = old.value;
  switch (schema.listType) {
    case 'map': {
      const match = oldItems.find((item) => sameMapKeys(schema.listMapKeys, items[index], item));
      return match === undefined ? NO_OLD : { value: match };
    }
    case 'set':
    case 'atomic':
      return NO_OLD;
    default:
      return index < oldItems.length ? { value: oldItems[index] } : NO_OLD;
  }
}

/**
 * The ratcheting validator's CachedDeepEqual: equal, and every part of it correlated through the
 * schema (a map with keys the schema does not describe, or a set, never counts as unchanged).
 */
function unchanged(schema: CompiledSchema, value: unknown, old: unknown, depth: number): boolean {
  checkDepth(depth, '');
  if ((value === null || value === undefined) && (old === null || old === undefined)) return true;
  if (value === null || value === undefined || old === null || old === undefined) return false;
  if (Array.isArray(value) || Array.isArray(old)) {
    if (!Array.isArray(value) || !Array.isArray(old) || value.length !== old.length) return false;
    const items = schema.items;
    if (items === undefined) return value.length === 0;
    return value.every((item, index) => {
      const correlated = correlateItem(schema, value, index, { value: old });
      return correlated !== NO_OLD && unchanged(items, item, correlated.value, depth + 1);
    });
  }
  if (isJsonObject(value) || isJsonObject(old)) {
    if (!isJsonObject(value) || !isJsonObject(old)) return false;
    const keys = Object.keys(old);
    if (keys.length !== Object.keys(value).length) return false;
    return keys.every((key) => {
      const property =
        schema.properties?.get(key) ??
        (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      return (
        property !== undefined &&
        Object.hasOwn(value, key) &&
        unchanged(property, value[key], old[key], depth + 1)
      );
    });
  }
  return value === old;
}

function validateType(schema: CompiledSchema, data: unknown, name: string, out: OpenApiError[]): void {
  const { types, format } = schema;
  if (types.length === 0 && format === '') return;
  if (data === null || data === undefined) {
    if (types.length > 0 && !types.includes('null') && !schema.nullable)
      out.push(invalidType(name, types.join(','), 'null'));
    return;
  }
  const dataType = jsonTypeOf(data);
  const textual = dataType === 'string' || dataType === 'array';
  const intAsNumber = dataType === 'integer' && types.includes('number');
  if (!textual && format !== '' && !(types.includes(dataType) || intAsNumber)) {
    out.push(invalidType(name, format, numberFormat(data)));
    return;
  }
  if (!(types.includes('number') || types.includes('integer')) && format !== '' && textual) return;
  if (!(types.includes(dataType) || intAsNumber)) out.push(invalidType(name, types.join(','), dataType));
}

function validateComposition(
  schema: CompiledSchema,
  data: unknown,
  name: string,
  depth: number,
  out: OpenApiError[],
  old: Old,
) {
  if (schema.anyOf.length > 0) {
    let best: OpenApiError[] | undefined;
    let succeeded = false;
    for (const option of schema.anyOf) {
      const result: OpenApiError[] = [];
      validateValue(option, data, name, depth + 1, result, old);
      if (result.length === 0) {
        succeeded = true;
        best = undefined;
        break;
      }
      // kube-openapi keeps the alternative that matched most; the one with fewest errors stands in.
      if (best === undefined || result.length < best.length) best = result;
    }
    if (!succeeded) out.push(composite(`"${name}" must validate at least one schema (anyOf)`));
    if (best !== undefined) out.push(...best);
  }
  if (schema.oneOf.length > 0) {
    let best: OpenApiError[] | undefined;
    let validated = 0;
    for (const option of schema.oneOf) {
      const result: OpenApiError[] = [];
      validateValue(option, data, name, depth + 1, result, old);
      if (result.length === 0) {
        validated++;
        best = undefined;
      } else if (validated === 0 && (best === undefined || result.length < best.length)) {
        best = result;
      }
    }
    if (validated !== 1) {
      const detail = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      out.push(composite(`"${name}" must validate one and only one schema (oneOf). ${detail}`));
      if (best !== undefined) out.push(...best);
    }
  }
  if (schema.allOf.length > 0) {
    let validated = 0;
    for (const part of schema.allOf) {
      const before = out.length;
      validateValue(part, data, name, depth + 1, out, old);
      if (out.length === before) validated++;
    }
    if (validated !== schema.allOf.length) {
      out.push(
        composite(
          `"${name}" must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`,
        ),
      );
    }
  }
  if (schema.not !== undefined) {
    const result: OpenApiError[] = [];
    validateValue(schema.not, data, name, depth + 1, result, old);
    if (result.length === 0) out.push(composite(`"${name}" must not validate the schema (not)`));
  }
}

function validateString(schema: CompiledSchema, data: string, name: string, out: OpenApiError[]): void {
  // Lengths count characters (runes), not bytes or UTF-16 units.
  if (schema.maxLength !== undefined || schema.minLength !== undefined) {
    const length = countRunes(data);
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      out.push(tooLong(name, schema.maxLength, data));
      return;
    }
    if (schema.minLength !== undefined && length < schema.minLength) {
      out.push(tooShort(name, schema.minLength, data));
      return;
    }
  }
  if (schema.pattern !== undefined) {
    const regexp = schema.patternRegexp;
    if (typeof regexp === 'string')
      out.push(failedPattern(name, `${schema.pattern}, but pattern is invalid: ${regexp}`, data));
    else if (regexp !== undefined && !regexp.test(data)) out.push(failedPattern(name, schema.pattern, data));
  }
}

function countRunes(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** swag.IsFloat64AJSONInteger, as kube-openapi checks multipleOf on floats. */
function isJsonInteger(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (Number.isInteger(value)) return true;
  const truncated = Math.trunc(value);
  const difference = Math.abs(value - truncated);
  return difference / Math.min(Math.abs(value) + Math.abs(truncated), Number.MAX_VALUE) < 1e-9;
}

function validateNumber(schema: CompiledSchema, data: number, name: string, out: OpenApiError[]): void {
  if (schema.multipleOf !== undefined && schema.multipleOf !== 0) {
    const factor = schema.multipleOf;
    const ok =
      Number.isInteger(data) && Number.isInteger(factor) ? data % factor === 0 : isJsonInteger(data / factor);
    if (!ok) out.push(notMultipleOf(name, factor, data));
  }
  if (schema.minimum !== undefined) {
    const min = schema.minimum;
    if (schema.exclusiveMinimum ? data <= min : data < min)
      out.push(exceedsMinimum(name, min, schema.exclusiveMinimum, data));
  }
  if (schema.maximum !== undefined) {
    const max = schema.maximum;
    if (schema.exclusiveMaximum ? data >= max : data > max)
      out.push(exceedsMaximum(name, max, schema.exclusiveMaximum, data));
  }
}

function validateArray(
  schema: CompiledSchema,
  data: unknown[],
  name: string,
  depth: number,
  out: OpenApiError[],
  old: Old,
) {
  if (schema.items !== undefined) {
    for (let i = 0; i < data.length; i++)
      validateValue(
        schema.items,
        data[i],
        `${name}[${i}]`,
        depth + 1,
        out,
        correlateItem(schema, data, i, old),
      );
  } else if (schema.itemsTuple !== undefined) {
    const count = Math.min(schema.itemsTuple.length, data.length);
    for (let i = 0; i < count; i++)
      validateValue(
        schema.itemsTuple[i]!,
        data[i],
        `${name}[${i}]`,
        depth + 1,
        out,
        correlateItem(schema, data, i, old),
      );
  }
  if (schema.minItems !== undefined && data.length < schema.minItems)
    out.push(tooFewItems(name, schema.minItems, data.length));
  if (schema.maxItems !== undefined && data.length > schema.maxItems)
    out.push(tooManyItems(name, schema.maxItems, data.length));
  if (schema.uniqueItems) {
    outer: for (let i = 1; i < data.length; i++) {
      for (let j = 0; j < i; j++) {
        if (jsonEqual(data[i], data[j])) {
          out.push(duplicateItems(name));
          break outer;
        }
      }
    }
  }
}

function validateEnum(schema: CompiledSchema, data: unknown, name: string, out: OpenApiError[]): void {
  if (schema.enum === undefined) return;
  // A null value matches no enum entry (kube-openapi finds no type to compare it as).
  if (
    data !== null &&
    data !== undefined &&
    schema.enum.some((allowed) => allowed !== null && jsonEqual(data, allowed))
  )
    return;
  out.push(enumFail(name, data ?? null, schema.enum));
}

function validateObject(
  schema: CompiledSchema,
  data: Record<string, unknown>,
  name: string,
  depth: number,
  out: OpenApiError[],
  old: Old,
): void {
  const keys = Object.keys(data);
  if (schema.minProperties !== undefined && keys.length < schema.minProperties) {
    out.push(tooFewProperties(name, schema.minProperties, keys.length));
  }
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
    out.push(tooManyProperties(name, schema.maxProperties, keys.length));
  }
  const properties = schema.properties;
  const additional = schema.additionalProperties;
  if (additional === false) {
    for (const key of keys) if (properties?.has(key) !== true) out.push(propertyNotAllowed(name, key));
  } else if (typeof additional === 'object') {
    for (const key of keys) {
      if (properties?.has(key) !== true)
        validateValue(additional, data[key], `${name}.${key}`, depth + 1, out, correlateField(old, key));
    }
  }
  if (properties !== undefined) {
    for (const key of keys) {
      const property = properties.get(key);
      if (property !== undefined)
        validateValue(
          property,
          data[key],
          name === '' ? key : `${name}.${key}`,
          depth + 1,
          out,
          correlateField(old, key),
        );
    }
  }
  for (const key of schema.required) if (!Object.hasOwn(data, key)) out.push(required(`${name}.${key}`));
}

/**
 * SchemaValidator.Validate: appends kube-openapi's errors for `data` at `name` to `out`. With the
 * correlated `old` value (updates), errors of a value left as it was are dropped: upstream's
 * validation ratcheting (CRDValidationRatcheting, on in 1.33).
 */
export function validateValue(
  schema: CompiledSchema,
  data: unknown,
  name: string,
  depth: number,
  out: OpenApiError[],
  old: Old = NO_OLD,
): void {
  checkDepth(depth, name);
  const before = out.length;
  validateNode(schema, data, name, depth, out, old);
  if (old !== NO_OLD && out.length > before && unchanged(schema, data, old.value, depth)) out.length = before;
}

function validateNode(
  schema: CompiledSchema,
  data: unknown,
  name: string,
  depth: number,
  out: OpenApiError[],
  old: Old,
): void {
  validateType(schema, data, name, out);
  if (data === null || data === undefined) {
    validateEnum(schema, data, name, out);
    return;
  }
  if (
    schema.anyOf.length > 0 ||
    schema.oneOf.length > 0 ||
    schema.allOf.length > 0 ||
    schema.not !== undefined
  ) {
    validateComposition(schema, data, name, depth, out, old);
  }
  if (typeof data === 'string') {
    validateString(schema, data, name, out);
    if (schema.formatCheck !== '' && !matchesFormat(schema.formatCheck, data))
      out.push(invalidType(name, schema.format, data));
  } else if (typeof data === 'number') {
    validateNumber(schema, data, name, out);
  } else if (Array.isArray(data)) {
    validateArray(schema, data, name, depth, out, old);
  }
  validateEnum(schema, data, name, out);
  if (isJsonObject(data)) validateObject(schema, data, name, depth, out, old);
}
