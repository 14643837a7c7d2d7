// JSON values as CEL values (k8s.io/apiserver/pkg/cel/common/values.go, UnstructuredToVal): objects
// become instances of their schema's CEL type, integers bigint, date-time strings timestamps,
// duration strings durations, byte strings bytes, int-or-string and unknown parts dynamic values.
import type { DeclType } from './decl-types.js';

/** The JSON an object value was made from, kept for equality (`self == oldSelf`). */
export const RAW_JSON: unique symbol = Symbol('rawJson');

/** Base of the classes that stand for a schema's object types at runtime. */
export class CelObject {
  [RAW_JSON]: unknown;
}

export type CelObjectClass = new () => CelObject;

/** Turns duration text into the CEL library's duration value (it parses Go's duration syntax). */
export type DurationParser = (text: string) => unknown;

export class ValueConverter {
  constructor(
    private readonly classes: ReadonlyMap<DeclType, CelObjectClass>,
    private readonly parseDuration: DurationParser,
  ) {}

  /** The CEL value of `value` declared as `type`; values of the wrong JSON type stay dynamic. */
  convert(value: unknown, type: DeclType): unknown {
    if (value === null || value === undefined) return null;
    switch (type.kind) {
      case 'object': {
        if (typeof value !== 'object' || Array.isArray(value)) return dynValue(value);
        const Class = this.classes.get(type)!;
        const result = new Class();
        result[RAW_JSON] = value;
        const json = value as Record<string, unknown>;
        const target = result as unknown as Record<string, unknown>;
        for (const [celName, field] of type.fields) {
          const fieldValue = json[field.jsonName];
          // A null (nullable) field reads as absent: the CEL library cannot hold null in a typed field.
          if (fieldValue !== undefined && fieldValue !== null)
            target[celName] = this.convert(fieldValue, field.type);
        }
        return result;
      }
      case 'list':
        if (!Array.isArray(value)) return dynValue(value);
        return value.map((item) => this.convert(item, type.elem));
      case 'map': {
        if (typeof value !== 'object' || Array.isArray(value)) return dynValue(value);
        const map = new Map<string, unknown>();
        for (const [key, item] of Object.entries(value)) map.set(key, this.convert(item, type.elem));
        return map;
      }
      case 'scalar':
        return this.convertScalar(value, type.name);
    }
  }

  private convertScalar(value: unknown, name: string): unknown {
    switch (name) {
      case 'int':
        return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : dynValue(value);
      case 'timestamp':
        return typeof value === 'string' ? new Date(value) : dynValue(value);
      case 'duration':
        return typeof value === 'string' ? this.parseDuration(value) : dynValue(value);
      case 'bytes':
        return typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'base64')) : dynValue(value);
      default:
        return dynValue(value);
    }
  }
}

/** A JSON value without a schema: integers as int, other numbers double, objects maps. */
export function dynValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(dynValue);
  if (typeof value === 'object') {
    const map = new Map<string, unknown>();
    for (const [key, item] of Object.entries(value)) map.set(key, dynValue(item));
    return map;
  }
  return value;
}

/**
 * Equality of two JSON values of a declared type as CEL sees it: objects with the same fields
 * and equal values; lists of list-type `set` regardless of order, of list-type `map` matched by
 * their keys (as upstream's unstructured list values compare).
 */
export function schemaEqual(a: unknown, b: unknown, type: DeclType | undefined): boolean {
  if (type === undefined || a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
    return jsonEqual(a, b);
  if (type.kind === 'list') {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return jsonEqual(a, b);
    const listType = type.schema['x-kubernetes-list-type'];
    if (listType === 'set') return a.every((item) => b.some((other) => schemaEqual(item, other, type.elem)));
    if (listType === 'map') {
      const keys = type.schema['x-kubernetes-list-map-keys'] ?? [];
      return a.every((item) => {
        const match = b.find((other) =>
          keys.every((key) =>
            jsonEqual((item as Record<string, unknown>)?.[key], (other as Record<string, unknown>)?.[key]),
          ),
        );
        return match !== undefined && schemaEqual(item, match, type.elem);
      });
    }
    return a.every((item, i) => schemaEqual(item, b[i], type.elem));
  }
  if (Array.isArray(a) || Array.isArray(b)) return false;
  const aRecord = a as Record<string, unknown>;
  const bRecord = b as Record<string, unknown>;
  const keys = Object.keys(aRecord);
  if (keys.length !== Object.keys(bRecord).length) return false;
  const fieldType = (key: string): DeclType | undefined => {
    if (type.kind === 'map') return type.elem;
    if (type.kind !== 'object') return undefined;
    for (const field of type.fields.values()) if (field.jsonName === key) return field.type;
    return undefined;
  };
  return keys.every((key) => key in bRecord && schemaEqual(aRecord[key], bRecord[key], fieldType(key)));
}

/** Equality of two JSON values as CEL sees equal objects (same fields, equal values). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (Array.isArray(b)) return false;
  const aRecord = a as Record<string, unknown>;
  const bRecord = b as Record<string, unknown>;
  const keys = Object.keys(aRecord);
  if (keys.length !== Object.keys(bRecord).length) return false;
  return keys.every((key) => key in bRecord && jsonEqual(aRecord[key], bRecord[key]));
}
