// Upstream: the gogo-generated Size() methods of k8s.io/api's generated.pb.go. How many bytes
// kube-apiserver's protobuf storage encoding of an object takes, computed from its JSON form with
// the schema, without encoding it: what etcd's request size limit is measured against.
import { protobufSchema } from './load-schema.js';
import {
  FIELD_INLINE,
  FIELD_MAP,
  FIELD_POINTER,
  FIELD_REPEATED,
  type FieldFacts,
  type ScalarType,
} from './schema.js';

/** `k8s\0`, then runtime.Unknown's typeMeta (apiVersion, kind) and raw fields. */
const ENVELOPE_BYTES = 4;

/** The storage encoding's size, or undefined for kinds without a protobuf message (custom resources). */
export function protobufEncodedSize(apiVersion: string, kind: string, object: unknown): number | undefined {
  const schema = protobufSchema();
  const name = schema.kinds[apiVersion]?.[kind];
  if (!name) return undefined;
  const raw = messageSize(name, object);
  const typeMeta = stringField(1, apiVersion) + stringField(2, kind);
  return ENVELOPE_BYTES + lengthField(1, typeMeta) + lengthField(2, raw);
}

/**
 * The storage encoding's size of an object given as its stored JSON text: the protobuf size for
 * built-in kinds, else the text's own length (custom resources are stored as JSON).
 */
export function storedTextEncodedSize(text: string): number {
  const stored = JSON.parse(text) as { apiVersion?: string; kind?: string };
  return protobufEncodedSize(stored.apiVersion ?? '', stored.kind ?? '', stored) ?? Buffer.byteLength(text);
}

function varintSize(value: number): number {
  let size = 1;
  let rest = Math.floor(Math.abs(value));
  // Negative int32/int64 values take ten bytes on the wire.
  if (value < 0) return 10;
  while (rest >= 128) {
    rest = Math.floor(rest / 128);
    size++;
  }
  return size;
}

const tagSize = (number: number) => varintSize(number * 8);
const lengthField = (number: number, length: number) => tagSize(number) + varintSize(length) + length;
const stringField = (number: number, value: string) => lengthField(number, Buffer.byteLength(value));

function scalarSize(type: ScalarType, value: unknown): number {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? varintSize(Buffer.byteLength(value)) + Buffer.byteLength(value) : 1;
    case 'bytes': {
      // JSON carries bytes as base64.
      const length = typeof value === 'string' ? Math.floor((value.length * 3) / 4) : 0;
      return varintSize(length) + length;
    }
    case 'bool':
      return 1;
    case 'double':
      return 8;
    case 'float':
      return 4;
    default:
      return varintSize(typeof value === 'number' ? value : Number(value) || 0);
  }
}

const SCALARS = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'double', 'float']);

/** A value's size without its field tag: length-prefixed for messages and strings. */
function valueSize(type: string, value: unknown): number {
  if (SCALARS.has(type)) return scalarSize(type as ScalarType, value);
  const length = messageSize(type, value);
  return varintSize(length) + length;
}

function messageSize(name: string, value: unknown): number {
  const facts = protobufSchema().messages[name];
  if (!facts) return jsonLength(value);
  if ('special' in facts) return specialSize(facts.special, value);
  if ('list' in facts) {
    const items = Array.isArray(value) ? value : [];
    return items.reduce<number>((sum, item) => sum + tagSize(1) + valueSize(facts.list, item), 0);
  }
  return fieldsSize(facts.fields, value);
}

function fieldsSize(fields: readonly FieldFacts[], value: unknown): number {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 0;
  const object = value as Record<string, unknown>;
  let size = 0;
  for (const [json, number, type, flags] of fields) {
    if (flags & FIELD_INLINE) {
      const inline = fieldsSize(inlineFields(type), object);
      size += tagSize(number) + varintSize(inline) + inline;
      continue;
    }
    const field = object[json];
    if (field === undefined || field === null) {
      // Go writes a struct's non-pointer fields whatever their value: zero ones too.
      if (!(flags & (FIELD_POINTER | FIELD_REPEATED | FIELD_MAP))) size += tagSize(number) + zeroSize(type);
      continue;
    }
    if (flags & FIELD_MAP) {
      if (typeof field !== 'object') continue;
      for (const [key, entry] of Object.entries(field as Record<string, unknown>)) {
        const entrySize = stringField(1, key) + tagSize(2) + valueSize(type, entry);
        size += tagSize(number) + varintSize(entrySize) + entrySize;
      }
      continue;
    }
    if (flags & FIELD_REPEATED) {
      if (!Array.isArray(field)) continue;
      for (const item of field) size += tagSize(number) + valueSize(type, item);
      continue;
    }
    size += tagSize(number) + valueSize(type, field);
  }
  return size;
}

const zeroSizes = new Map<string, number>();

/** A zero value's size without its tag. */
function zeroSize(type: string): number {
  if (SCALARS.has(type)) return type === 'double' ? 8 : type === 'float' ? 4 : 1;
  const known = zeroSizes.get(type);
  if (known !== undefined) return known;
  // Recursive types only recurse through pointers, which zero values leave out.
  zeroSizes.set(type, 0);
  const facts = protobufSchema().messages[type];
  let length = 0;
  if (facts && 'special' in facts)
    length = facts.special === 'time' || facts.special === 'microTime' ? 13 : 0;
  else if (facts && 'fields' in facts) length = fieldsSize(facts.fields, {});
  const size = varintSize(length) + length;
  zeroSizes.set(type, size);
  return size;
}

function inlineFields(type: string): readonly FieldFacts[] {
  const facts = protobufSchema().messages[type];
  return facts && 'fields' in facts ? facts.fields : [];
}

/** Types Go marshals by hand: their wire form, from their JSON form. */
function specialSize(special: string, value: unknown): number {
  switch (special) {
    case 'time':
    case 'microTime':
      // Timestamp{seconds, nanos}: a current time's seconds take five bytes.
      return tagSize(1) + 5 + (special === 'microTime' ? tagSize(2) + 4 : 0);
    case 'duration':
      return tagSize(1) + 5;
    case 'quantity':
      return stringField(1, String(value));
    case 'intOrString':
      return typeof value === 'number'
        ? tagSize(1) + 1 + tagSize(2) + varintSize(value)
        : tagSize(1) + 1 + stringField(3, String(value));
    default:
      // RawExtension, FieldsV1 and JSON: their JSON text, length-prefixed.
      return lengthField(1, jsonLength(value));
  }
}

function jsonLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}
