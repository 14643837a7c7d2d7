// Test-only protobuf reader: splits a message into its fields so tests can check what was encoded
// without trusting the writer's own bookkeeping.

export interface ProtoField {
  readonly field: number;
  readonly wireType: number;
  /** Varint fields. */
  readonly varint?: bigint;
  /** Length-delimited (2) and 64-bit (1) fields. */
  readonly bytes?: Buffer;
}

function readVarint(bytes: Buffer, at: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    if (at >= bytes.length) throw new Error('truncated varint');
    const byte = bytes[at++]!;
    value |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return [value, at];
    shift += 7n;
  }
}

export class ProtoMessage {
  constructor(readonly fields: readonly ProtoField[]) {}

  static decode(bytes: Buffer): ProtoMessage {
    const fields: ProtoField[] = [];
    let at = 0;
    while (at < bytes.length) {
      const [key, next] = readVarint(bytes, at);
      at = next;
      const field = Number(key >> 3n);
      const wireType = Number(key & 7n);
      if (wireType === 0) {
        const [varint, after] = readVarint(bytes, at);
        fields.push({ field, wireType, varint });
        at = after;
      } else if (wireType === 1) {
        fields.push({ field, wireType, bytes: bytes.subarray(at, at + 8) });
        at += 8;
      } else if (wireType === 2) {
        const [length, after] = readVarint(bytes, at);
        const end = after + Number(length);
        if (end > bytes.length) throw new Error(`field ${field} overruns the message`);
        fields.push({ field, wireType, bytes: bytes.subarray(after, end) });
        at = end;
      } else {
        throw new Error(`unexpected wire type ${wireType}`);
      }
    }
    return new ProtoMessage(fields);
  }

  all(field: number): ProtoField[] {
    return this.fields.filter((f) => f.field === field);
  }

  has(field: number): boolean {
    return this.all(field).length > 0;
  }

  strings(field: number): string[] {
    return this.all(field).map((f) => f.bytes!.toString('utf8'));
  }

  string(field: number): string | undefined {
    return this.strings(field).at(-1);
  }

  varint(field: number): bigint | undefined {
    return this.all(field).at(-1)?.varint;
  }

  double(field: number): number | undefined {
    return this.all(field).at(-1)?.bytes?.readDoubleLE(0);
  }

  messages(field: number): ProtoMessage[] {
    return this.all(field).map((f) => ProtoMessage.decode(f.bytes!));
  }

  message(field: number): ProtoMessage {
    const found = this.messages(field).at(-1);
    if (!found) throw new Error(`no field ${field}`);
    return found;
  }

  /** The value (field 2) of the `Named*` entry in `field` whose name (field 1) is `name`. */
  named(field: number, name: string): ProtoMessage {
    const entry = this.messages(field).find((m) => m.string(1) === name);
    if (!entry) throw new Error(`no entry ${name} in field ${field}`);
    return entry.message(2);
  }

  /** Names (field 1) of the `Named*` entries in `field`, in order. */
  names(field: number): string[] {
    return this.messages(field).map((m) => m.string(1) ?? '');
  }
}
