// Building blocks for turning a JSON object into a gnostic message the way gnostic's compiler does:
// each JSON key has a field number and a type; `x-` keys become `repeated NamedAny` entries whose
// values are kept as YAML; maps become `repeated Named<Value>` entries in key order.

import type { ProtoWriter } from './writer.js';
import { toYaml } from './yaml.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Writes the fields of one message (not its tag or length) for a JSON value. */
export type MessageEncoder = (w: ProtoWriter, value: JsonValue) => void;

export type FieldType =
  | 'string'
  | 'bool'
  | 'int64'
  | 'double'
  | 'strings'
  | 'any'
  | 'anys'
  | MessageEncoder
  | { readonly repeated: MessageEncoder };

export type FieldTable = Readonly<Record<string, readonly [number, FieldType]>>;

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What gnostic takes as a string scalar: a string, an integer (its text) or null (""). */
function asString(value: JsonValue): string | undefined {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  return undefined;
}

/** The `Any` message: gnostic fills only `yaml` (field 2), never the `google.protobuf.Any`. */
export function writeAny(w: ProtoWriter, field: number, value: JsonValue): void {
  w.message(field, () => w.string(2, toYaml(value)));
}

/** A `NamedAny` entry (name 1, value 2). */
export function writeNamedAny(w: ProtoWriter, field: number, name: string, value: JsonValue): void {
  w.message(field, () => {
    w.string(1, name);
    writeAny(w, 2, value);
  });
}

/** Every `x-` key of `object` as a vendor extension in `field`. */
export function writeExtensions(w: ProtoWriter, field: number, object: JsonObject): void {
  for (const [key, value] of Object.entries(object)) {
    if (key.startsWith('x-')) writeNamedAny(w, field, key, value);
  }
}

function writeField(w: ProtoWriter, field: number, type: FieldType, value: JsonValue): void {
  switch (type) {
    case 'string': {
      const text = asString(value);
      if (text !== undefined) w.string(field, text);
      return;
    }
    case 'bool':
      if (typeof value === 'boolean') w.bool(field, value);
      return;
    case 'int64':
      if (typeof value === 'number' && Number.isInteger(value)) w.int64(field, value);
      return;
    case 'double':
      if (typeof value === 'number') w.double(field, value);
      return;
    case 'strings':
      if (!Array.isArray(value)) return;
      for (const item of value) {
        const text = asString(item);
        if (text !== undefined) w.stringElement(field, text);
      }
      return;
    case 'any':
      writeAny(w, field, value);
      return;
    case 'anys':
      if (Array.isArray(value)) for (const item of value) writeAny(w, field, item);
      return;
    default:
      if (typeof type === 'function') {
        w.message(field, () => type(w, value));
      } else if (Array.isArray(value)) {
        for (const item of value) w.message(field, () => type.repeated(w, item));
      }
  }
}

/**
 * A message with named fields and, when `extensions` is given, the field number of its
 * `repeated NamedAny vendor_extension`. Fields are written in field-number order, as Go does.
 */
export function fieldsMessage(fields: FieldTable, extensions?: number): MessageEncoder {
  const order: [string | undefined, number, FieldType | undefined][] = Object.entries(fields).map(
    ([key, [number, type]]) => [key, number, type],
  );
  if (extensions !== undefined) order.push([undefined, extensions, undefined]);
  order.sort((a, b) => a[1] - b[1]);
  return (w, value) => {
    if (!isObject(value)) return;
    for (const [key, number, type] of order) {
      if (key === undefined) writeExtensions(w, number, value);
      else if (type !== undefined && value[key] !== undefined) writeField(w, number, type, value[key]);
    }
  };
}

/**
 * A map message: `repeated Named<Value> additional_properties = 1`, one entry (name 1, value 2) per
 * key, in document order.
 */
export function namedMap(valueType: FieldType): MessageEncoder {
  return (w, value) => {
    if (!isObject(value)) return;
    for (const [key, item] of Object.entries(value)) {
      w.message(1, () => {
        w.string(1, key);
        writeField(w, 2, valueType, item);
      });
    }
  };
}
