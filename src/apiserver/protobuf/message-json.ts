// A message of the schema to the JSON Kubernetes' Go code prints for it: decode into the Go struct
// (absent fields keep Go's zero values), then marshal it the way encoding/json does — fields in struct
// order, embedded structs inlined, nil pointers/slices/maps as null or left out under omitempty, zero
// scalars left out under omitempty, structs always printed, map keys sorted.
import { ProtobufDecodeError } from './errors.js';
import { protobufSchema } from './load-schema.js';
import { isScalarType, isZeroScalar, repeatedScalarValues, scalarValue, zeroScalar } from './scalars.js';
import {
  FIELD_INLINE,
  FIELD_MAP,
  FIELD_OMIT_EMPTY,
  FIELD_POINTER,
  FIELD_REPEATED,
  type FieldFacts,
  type MessageFacts,
} from './schema.js';
import {
  concatBytes,
  type JsonValue,
  lengthDelimited,
  type NestedDecoders,
  specialToJson,
} from './special-types.js';
import { readFields, type WireFields, type WireValue } from './wire.js';

const EMPTY = new Uint8Array();
/** A field the Go encoder leaves out. */
const OMIT = Symbol('omit');

export class MessageJsonDecoder implements NestedDecoders {
  /** @param envelope decodes a nested `k8s\0` object (RawExtension contents). */
  constructor(readonly envelope: (bytes: Uint8Array) => JsonValue) {}

  /** The JSON of message `name` read from `bytes` (empty bytes give the Go zero value). */
  message(name: string, bytes: Uint8Array): JsonValue {
    const facts = messageFacts(name);
    if ('special' in facts) return specialToJson(facts.special, bytes, shortName(name), this);
    if ('list' in facts) return this.list(facts.list, bytes, shortName(name));
    const object: { [key: string]: JsonValue } = {};
    this.writeStruct(facts.fields, readFields(bytes), shortName(name), object);
    return object;
  }

  private writeStruct(
    fields: readonly FieldFacts[],
    wire: WireFields,
    where: string,
    object: { [key: string]: JsonValue },
  ): void {
    for (const field of fields) {
      const [json, number, type, flags] = field;
      const occurrences = wire.get(number);
      if (flags & FIELD_INLINE) {
        const inline = messageFacts(type);
        if (!('fields' in inline)) throw new ProtobufDecodeError(`${where}: cannot inline ${type}`);
        const bytes = occurrences ? concatBytes(occurrences, `${where}.${shortName(type)}`) : EMPTY;
        this.writeStruct(inline.fields, readFields(bytes), where, object);
        continue;
      }
      const value = this.fieldValue(field, occurrences, `${where}.${json}`);
      if (value !== OMIT) object[json] = value;
    }
  }

  private fieldValue(
    [, , type, flags]: FieldFacts,
    occurrences: WireValue[] | undefined,
    where: string,
  ): JsonValue | typeof OMIT {
    const omitEmpty = (flags & FIELD_OMIT_EMPTY) !== 0;
    const nil = omitEmpty ? OMIT : null;
    if (flags & FIELD_MAP) return occurrences ? this.map(type, occurrences, where) : nil;
    if (flags & FIELD_REPEATED) {
      if (!occurrences) return nil;
      const values = isScalarType(type)
        ? repeatedScalarValues(type, occurrences, where)
        : occurrences.map((wire) => this.message(type, lengthDelimited(wire, where)));
      // An empty packed list leaves the Go slice nil.
      return values.length > 0 ? values : nil;
    }
    const pointer = (flags & FIELD_POINTER) !== 0;
    if (isScalarType(type)) {
      if (!occurrences) return pointer || type === 'bytes' ? nil : omitEmpty ? OMIT : zeroScalar(type);
      const value = scalarValue(type, occurrences[occurrences.length - 1], where);
      return omitEmpty && !pointer && isZeroScalar(value) ? OMIT : value;
    }
    const facts = messageFacts(type);
    if ('list' in facts) {
      // A named slice: nil unless present, and empty counts as empty for omitempty.
      if (!occurrences) return nil;
      const values = this.list(facts.list, concatBytes(occurrences, where), where);
      return omitEmpty && values.length === 0 ? OMIT : values;
    }
    if (!occurrences) return pointer ? nil : this.message(type, EMPTY);
    // Go's hand-written Unmarshal methods replace the value; generated ones merge occurrences.
    const bytes =
      'special' in facts
        ? lengthDelimited(occurrences[occurrences.length - 1], where)
        : concatBytes(occurrences, where);
    return this.message(type, bytes);
  }

  private list(itemType: string, bytes: Uint8Array, where: string): JsonValue[] {
    const items = readFields(bytes).get(1) ?? [];
    if (isScalarType(itemType)) return repeatedScalarValues(itemType, items, `${where}.items`);
    return items.map((wire) => this.message(itemType, lengthDelimited(wire, `${where}.items`)));
  }

  private map(valueType: string, entries: readonly WireValue[], where: string): { [key: string]: JsonValue } {
    const values = new Map<string, JsonValue>();
    for (const entry of entries) {
      const fields = readFields(lengthDelimited(entry, where));
      const keys = fields.get(1);
      const key = keys ? (scalarValue('string', keys[keys.length - 1], `${where}.key`) as string) : '';
      const occurrences = fields.get(2);
      let value: JsonValue;
      if (isScalarType(valueType)) {
        // Go starts each entry's value from the zero value ([]byte{} for bytes, printed as "").
        value = occurrences
          ? scalarValue(valueType, occurrences[occurrences.length - 1], `${where}[${key}]`)
          : zeroScalar(valueType);
      } else {
        value = this.message(valueType, occurrences ? concatBytes(occurrences, `${where}[${key}]`) : EMPTY);
      }
      values.set(key, value);
    }
    // encoding/json sorts map keys by their bytes.
    const sorted = [...values.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return Object.fromEntries(sorted.map((key) => [key, values.get(key) as JsonValue]));
  }
}

function messageFacts(name: string): MessageFacts {
  const { messages } = protobufSchema();
  const facts = Object.hasOwn(messages, name) ? messages[name] : undefined;
  if (!facts) throw new ProtobufDecodeError(`no protobuf schema for message ${name}`);
  return facts;
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}
