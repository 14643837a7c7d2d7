// Scalar field values: from their wire form to what Go's JSON encoder prints for the Go type behind
// them (numbers, booleans, strings, and []byte as standard base64).
import { ProtobufDecodeError } from './errors.js';
import type { ScalarType } from './schema.js';
import {
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LENGTH_DELIMITED,
  WIRE_VARINT,
  WireReader,
  type WireValue,
} from './wire.js';

export type Scalar = string | number | boolean;

// Invalid UTF-8 becomes U+FFFD, as Go's JSON encoder writes it.
const utf8 = new TextDecoder('utf-8');

const WIRE_TYPE: Readonly<Record<ScalarType, number>> = {
  string: WIRE_LENGTH_DELIMITED,
  bytes: WIRE_LENGTH_DELIMITED,
  bool: WIRE_VARINT,
  int32: WIRE_VARINT,
  int64: WIRE_VARINT,
  uint32: WIRE_VARINT,
  uint64: WIRE_VARINT,
  double: WIRE_FIXED64,
  float: WIRE_FIXED32,
};

export function isScalarType(type: string): type is ScalarType {
  return Object.hasOwn(WIRE_TYPE, type);
}

/** What an absent non-pointer Go field of this type holds (bytes, a nil slice, is handled by callers). */
export function zeroScalar(type: ScalarType): Scalar {
  if (type === 'string' || type === 'bytes') return '';
  return type === 'bool' ? false : 0;
}

export function isZeroScalar(value: Scalar): boolean {
  return value === '' || value === 0 || value === false;
}

export function decodeString(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function scalarValue(type: ScalarType, wire: WireValue, field: string): Scalar {
  if (wire.wireType !== WIRE_TYPE[type]) {
    throw new ProtobufDecodeError(`proto: wrong wireType = ${wire.wireType} for field ${field}`);
  }
  if (wire.wireType === WIRE_VARINT) return varintValue(type, wire.value);
  if (type === 'string') return decodeString(wire.bytes);
  if (type === 'bytes') return encodeBase64(wire.bytes);
  return floatValue(type, wire.bytes, field);
}

/** The elements of a repeated scalar field; numbers may come one per occurrence or packed. */
export function repeatedScalarValues(
  type: ScalarType,
  occurrences: readonly WireValue[],
  field: string,
): Scalar[] {
  const values: Scalar[] = [];
  for (const wire of occurrences) {
    const packable = type !== 'string' && type !== 'bytes';
    if (!packable || wire.wireType !== WIRE_LENGTH_DELIMITED) {
      values.push(scalarValue(type, wire, field));
      continue;
    }
    const reader = new WireReader(wire.bytes);
    while (!reader.done) {
      if (WIRE_TYPE[type] === WIRE_VARINT) values.push(varintValue(type, reader.varint()));
      else values.push(floatValue(type, reader.take(type === 'double' ? 8 : 4), field));
    }
  }
  return values;
}

function varintValue(type: ScalarType, value: bigint): Scalar {
  switch (type) {
    case 'bool':
      return value !== 0n;
    case 'int32':
      return Number(BigInt.asIntN(32, value));
    case 'uint32':
      return Number(BigInt.asUintN(32, value));
    case 'uint64':
      return Number(value);
    default:
      return Number(BigInt.asIntN(64, value));
  }
}

function floatValue(type: ScalarType, bytes: Uint8Array, field: string): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const value = type === 'double' ? view.getFloat64(0, true) : view.getFloat32(0, true);
  // Go's JSON encoder refuses these rather than print invalid JSON.
  if (!Number.isFinite(value))
    throw new ProtobufDecodeError(`json: unsupported value: ${value} (field ${field})`);
  return value;
}
