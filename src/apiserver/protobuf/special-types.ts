// Messages whose Go types print themselves (MarshalJSON): times, durations, quantities, int-or-string,
// embedded raw JSON and the apiextensions schema unions.
import { ProtobufDecodeError } from './errors.js';
import { formatGoDuration, formatRfc3339, formatRfc3339Micro, GO_ZERO_TIME_SECONDS } from './go-format.js';
import { decodeString, repeatedScalarValues, scalarValue } from './scalars.js';
import type { SpecialType } from './schema.js';
import { readFields, WIRE_LENGTH_DELIMITED, type WireFields, type WireValue } from './wire.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface NestedDecoders {
  /** A message of the schema, as JSON. */
  message(name: string, bytes: Uint8Array): JsonValue;
  /** A whole `k8s\0`-prefixed object, as RawExtension may hold one. */
  envelope(bytes: Uint8Array): JsonValue;
}

const JSON_SCHEMA_PROPS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
const PROTOBUF_PREFIX = [0x6b, 0x38, 0x73, 0x00];
const CBOR_SELF_DESCRIBED = [0xd9, 0xd9, 0xf7];
// resource.ErrFormatWrong: the shape every quantity string must have.
const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
const QUANTITY = new RegExp(QUANTITY_PATTERN);

/** The JSON of a special message; `bytes` is empty when a non-pointer field was absent (the zero value). */
export function specialToJson(
  special: SpecialType,
  bytes: Uint8Array,
  where: string,
  decoders: NestedDecoders,
): JsonValue {
  const fields = readFields(bytes);
  switch (special) {
    case 'time':
      return timeToJson(fields, bytes, where, false);
    case 'microTime':
      return timeToJson(fields, bytes, where, true);
    case 'duration':
      return formatGoDuration(varint(fields, 1, `${where}.duration`));
    case 'quantity':
      return quantityToJson(fields, where);
    case 'intOrString':
      return intOrStringToJson(fields, where);
    case 'rawExtension':
    case 'fieldsV1': {
      // Nil raw prints null; a present one is the embedded object itself.
      const raw = last(fields, 1);
      return raw ? embeddedToJson(lengthDelimited(raw, where), where, decoders) : null;
    }
    case 'json': {
      const raw = last(fields, 1);
      const data = raw ? lengthDelimited(raw, where) : new Uint8Array();
      return data.length > 0 ? embeddedToJson(data, where, decoders) : null;
    }
    case 'jsonSchemaPropsOrArray': {
      const schemas = fields.get(2);
      if (schemas)
        return schemas.map((wire) => decoders.message(JSON_SCHEMA_PROPS, lengthDelimited(wire, where)));
      return schemaOrNull(fields, 1, where, decoders);
    }
    case 'jsonSchemaPropsOrBool': {
      if (fields.has(2)) return schemaOrNull(fields, 2, where, decoders);
      const allows = last(fields, 1);
      return allows ? scalarValue('bool', allows, `${where}.allows`) : false;
    }
    case 'jsonSchemaPropsOrStringArray': {
      const property = fields.get(2);
      if (property) return repeatedScalarValues('string', property, `${where}.property`);
      return schemaOrNull(fields, 1, where, decoders);
    }
  }
}

function timeToJson(fields: WireFields, bytes: Uint8Array, where: string, micro: boolean): JsonValue {
  // Go writes nothing for the zero time and reads nothing back as it; Time keeps whole seconds only.
  if (bytes.length === 0) return null;
  // Timestamp.seconds is an int64: times before 1970 arrive as two's complement varints.
  const seconds = BigInt.asIntN(64, varint(fields, 1, `${where}.seconds`));
  const nanos = micro ? BigInt.asIntN(32, varint(fields, 2, `${where}.nanos`)) : 0n;
  if (seconds === GO_ZERO_TIME_SECONDS && nanos < 1000n) return null;
  return micro ? formatRfc3339Micro(seconds, nanos) : formatRfc3339(seconds);
}

function quantityToJson(fields: WireFields, where: string): JsonValue {
  const wire = last(fields, 1);
  // The zero Quantity (never set) prints as "0".
  if (!wire) return '0';
  const text = scalarValue('string', wire, `${where}.string`) as string;
  if (!QUANTITY.test(text)) {
    throw new ProtobufDecodeError(
      `${where}: quantities must match the regular expression '${QUANTITY_PATTERN}'`,
    );
  }
  return text;
}

function intOrStringToJson(fields: WireFields, where: string): JsonValue {
  const type = varint(fields, 1, `${where}.type`);
  if (type === 0n) {
    const intVal = last(fields, 2);
    return intVal ? scalarValue('int32', intVal, `${where}.intVal`) : 0;
  }
  if (type === 1n) {
    const strVal = last(fields, 3);
    return strVal ? scalarValue('string', strVal, `${where}.strVal`) : '';
  }
  throw new ProtobufDecodeError(`${where}: impossible IntOrString.Type`);
}

function embeddedToJson(raw: Uint8Array, where: string, decoders: NestedDecoders): JsonValue {
  if (startsWith(raw, PROTOBUF_PREFIX)) return decoders.envelope(raw);
  if (startsWith(raw, CBOR_SELF_DESCRIBED)) {
    throw new ProtobufDecodeError(`${where}: CBOR-encoded embedded objects are not supported`);
  }
  try {
    return JSON.parse(decodeString(raw)) as JsonValue;
  } catch (error) {
    throw new ProtobufDecodeError(`${where}: embedded JSON is invalid: ${(error as Error).message}`);
  }
}

function schemaOrNull(
  fields: WireFields,
  number: number,
  where: string,
  decoders: NestedDecoders,
): JsonValue {
  const occurrences = fields.get(number);
  if (!occurrences) return null;
  return decoders.message(JSON_SCHEMA_PROPS, concatBytes(occurrences, where));
}

function last(fields: WireFields, number: number): WireValue | undefined {
  const occurrences = fields.get(number);
  return occurrences?.[occurrences.length - 1];
}

function varint(fields: WireFields, number: number, where: string): bigint {
  const wire = last(fields, number);
  if (!wire) return 0n;
  if (wire.wireType !== 0)
    throw new ProtobufDecodeError(`proto: wrong wireType = ${wire.wireType} for field ${where}`);
  return wire.value;
}

export function lengthDelimited(wire: WireValue, where: string): Uint8Array {
  if (wire.wireType !== WIRE_LENGTH_DELIMITED) {
    throw new ProtobufDecodeError(`proto: wrong wireType = ${wire.wireType} for field ${where}`);
  }
  return wire.bytes;
}

/** Occurrences of one message field merge, which for the wire format is reading them back to back. */
export function concatBytes(occurrences: readonly WireValue[], where: string): Uint8Array {
  if (occurrences.length === 1) return lengthDelimited(occurrences[0], where);
  return Buffer.concat(occurrences.map((wire) => lengthDelimited(wire, where)));
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}
