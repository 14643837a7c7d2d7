// The protobuf wire format, read side: a message is a sequence of (field number, wire type, value).
// Kubernetes uses proto2 varints (int32, int64, bool), 64-bit doubles, and length-delimited strings,
// bytes, messages, maps and packed lists; 32-bit values are read for completeness.
import { ProtobufDecodeError } from './errors.js';

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
export const WIRE_FIXED32 = 5;

export type WireValue =
  | { readonly wireType: typeof WIRE_VARINT; readonly value: bigint }
  | {
      readonly wireType: typeof WIRE_FIXED64 | typeof WIRE_FIXED32 | typeof WIRE_LENGTH_DELIMITED;
      readonly bytes: Uint8Array;
    };

/** The occurrences of each field of one message, in wire order. */
export type WireFields = Map<number, WireValue[]>;

export class WireReader {
  private offset = 0;
  private readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    // A plain view: Buffer's subarray is several times slower than Uint8Array's.
    this.bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get done(): boolean {
    return this.offset >= this.bytes.length;
  }

  /** A base-128 varint of up to 64 bits, as an unsigned BigInt. */
  varint(): bigint {
    const small = this.smallVarint();
    return small === undefined ? this.bigVarint() : BigInt(small);
  }

  /** A varint as a number: keys and lengths, which are far below 2^53. */
  varintNumber(): number {
    const small = this.smallVarint();
    return small === undefined ? Number(this.bigVarint()) : small;
  }

  /** A varint that ends within 7 bytes (49 bits, exact as a number); undefined leaves the offset alone. */
  private smallVarint(): number | undefined {
    let value = 0;
    for (let index = 0; index < 7 && this.offset + index < this.bytes.length; index++) {
      const byte = this.bytes[this.offset + index];
      value += (byte & 0x7f) * 2 ** (7 * index);
      if (byte < 0x80) {
        this.offset += index + 1;
        return value;
      }
    }
    return undefined;
  }

  private bigVarint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.offset >= this.bytes.length) throw new ProtobufDecodeError('unexpected EOF');
      const byte = this.bytes[this.offset++];
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asUintN(64, result);
    }
    throw new ProtobufDecodeError('proto: integer overflow');
  }

  take(length: number): Uint8Array {
    if (length < 0 || this.offset + length > this.bytes.length)
      throw new ProtobufDecodeError('unexpected EOF');
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  lengthDelimited(): Uint8Array {
    return this.take(this.varintNumber());
  }
}

/** Splits a message into its fields. Groups (wire types 3 and 4) are refused, as Kubernetes' code does. */
export function readFields(bytes: Uint8Array): WireFields {
  const fields: WireFields = new Map();
  const reader = new WireReader(bytes);
  while (!reader.done) {
    const key = reader.varintNumber();
    const fieldNumber = Math.floor(key / 8);
    const wireType = key % 8;
    if (fieldNumber <= 0 || fieldNumber >= 2 ** 29) {
      throw new ProtobufDecodeError(`proto: illegal tag ${fieldNumber} (wire type ${wireType})`);
    }
    let value: WireValue;
    switch (wireType) {
      case WIRE_VARINT:
        value = { wireType, value: reader.varint() };
        break;
      case WIRE_FIXED64:
        value = { wireType, bytes: reader.take(8) };
        break;
      case WIRE_LENGTH_DELIMITED:
        value = { wireType, bytes: reader.lengthDelimited() };
        break;
      case WIRE_FIXED32:
        value = { wireType, bytes: reader.take(4) };
        break;
      default:
        throw new ProtobufDecodeError(`proto: illegal wireType ${wireType}`);
    }
    const occurrences = fields.get(fieldNumber);
    if (occurrences) occurrences.push(value);
    else fields.set(fieldNumber, [value]);
  }
  return fields;
}
