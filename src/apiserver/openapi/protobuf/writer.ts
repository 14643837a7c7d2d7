// A minimal protobuf (proto3) wire-format writer: varints, length-delimited strings and nested
// messages, 64-bit doubles. Scalars equal to their proto3 default are skipped, as Go's generated
// code does; nested messages and repeated elements are always written.

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;

function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    size++;
  }
  return size;
}

export class ProtoWriter {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private position = 0;

  private reserve(bytes: number): void {
    if (this.position + bytes <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.position + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.position);
    this.buffer = grown;
  }

  /** Unsigned varint for 0 <= value <= 2^53; negative int64 values take all ten bytes. */
  private varint(value: number): void {
    if (value < 0) {
      let wide = BigInt.asUintN(64, BigInt(value));
      this.reserve(10);
      while (wide >= 0x80n) {
        this.buffer[this.position++] = Number(wide & 0x7fn) | 0x80;
        wide >>= 7n;
      }
      this.buffer[this.position++] = Number(wide);
      return;
    }
    this.reserve(10);
    while (value >= 0x80) {
      this.buffer[this.position++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.buffer[this.position++] = value;
  }

  private tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  /** A `string` element, written even when empty (repeated fields and map-like names need that). */
  stringElement(field: number, value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.tag(field, LENGTH_DELIMITED);
    this.varint(length);
    this.reserve(length);
    this.position += this.buffer.write(value, this.position, 'utf8');
  }

  string(field: number, value: string): void {
    if (value !== '') this.stringElement(field, value);
  }

  /** A `bool` that is written even when false: a oneof member has presence. */
  boolElement(field: number, value: boolean): void {
    this.tag(field, VARINT);
    this.varint(value ? 1 : 0);
  }

  bool(field: number, value: boolean): void {
    if (value) this.boolElement(field, value);
  }

  int64(field: number, value: number): void {
    if (value === 0) return;
    this.tag(field, VARINT);
    this.varint(value);
  }

  double(field: number, value: number): void {
    if (Object.is(value, 0)) return;
    this.tag(field, FIXED64);
    this.reserve(8);
    this.position = this.buffer.writeDoubleLE(value, this.position);
  }

  /**
   * A nested message: `body` writes its fields into this writer, then the length prefix is put in
   * front. One byte is reserved for it; longer prefixes shift the body (a native memmove).
   */
  message(field: number, body: () => void): void {
    this.tag(field, LENGTH_DELIMITED);
    this.reserve(1);
    const lengthAt = this.position++;
    body();
    const length = this.position - lengthAt - 1;
    const extra = varintSize(length) - 1;
    if (extra > 0) {
      this.reserve(extra);
      this.buffer.copyWithin(lengthAt + 1 + extra, lengthAt + 1, this.position);
      this.position += extra;
    }
    let at = lengthAt;
    let rest = length;
    while (rest >= 0x80) {
      this.buffer[at++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[at] = rest;
  }

  /** The bytes written so far, copied out of the working buffer. */
  finish(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.position));
  }
}
