// DNS name compression (RFC 1035 §4.1.4), as CoreDNS's miekg/dns writes it: dns-packet encodes
// every name in full, so a response is rewritten here with each owner name, and the names inside
// the RDATA of the types RFC 3597 §4 lets a server compress (NS, CNAME, PTR, MX, SOA), pointing
// at an earlier occurrence of its longest known suffix. SRV targets stay whole (RFC 2782).

const HEADER_LENGTH = 12;
/** A pointer's offset has 14 bits: names written later than this cannot be pointed at. */
const MAX_POINTER_OFFSET = 0x3fff;
const POINTER = 0xc0;

const TYPE_NS = 2;
const TYPE_CNAME = 5;
const TYPE_SOA = 6;
const TYPE_PTR = 12;
const TYPE_MX = 15;

/** Thrown on input the walker does not expect (a pointer already, or a record running past the end). */
class Uncompressible extends Error {}

class Writer {
  readonly out: Buffer;
  length = 0;
  /**
   * Name suffix, byte for byte, → where it was written. Matched with case kept: a pointer to a
   * differently cased name would change the owner name the client sees (0x20 randomisation).
   */
  private readonly suffixes = new Map<string, number>();

  constructor(capacity: number) {
    this.out = Buffer.allocUnsafe(capacity);
  }

  copy(source: Buffer, start: number, end: number): void {
    if (end > source.length) throw new Uncompressible();
    source.copy(this.out, this.length, start, end);
    this.length += end - start;
  }

  /** Writes the name at `source[offset]` compressed; returns the offset after it in `source`. */
  name(source: Buffer, offset: number): number {
    // Label starts first, then each suffix looked up (longest first) until one is known: an
    // owner name repeated from the question costs one lookup and no copies.
    const starts: number[] = [];
    let at = offset;
    for (;;) {
      if (at >= source.length) throw new Uncompressible();
      const length = source[at]!;
      if (length === 0) break;
      if ((length & POINTER) !== 0) throw new Uncompressible();
      starts.push(at);
      at += 1 + length;
    }
    const end = at + 1;
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i]!;
      const key = source.toString('latin1', start, end);
      const known = this.suffixes.get(key);
      if (known !== undefined) {
        this.out.writeUInt16BE((POINTER << 8) | known, this.length);
        this.length += 2;
        return end;
      }
      if (this.length <= MAX_POINTER_OFFSET) this.suffixes.set(key, this.length);
      this.copy(source, start, starts[i + 1] ?? at);
    }
    this.out[this.length++] = 0;
    return end;
  }
}

/** The RDATA at `source[start..end)` of a record of `type`, its names compressed where allowed. */
function writeRdata(writer: Writer, source: Buffer, type: number, start: number, end: number): void {
  switch (type) {
    case TYPE_NS:
    case TYPE_CNAME:
    case TYPE_PTR:
      if (writer.name(source, start) !== end) throw new Uncompressible();
      return;
    case TYPE_MX:
      writer.copy(source, start, start + 2);
      if (writer.name(source, start + 2) !== end) throw new Uncompressible();
      return;
    case TYPE_SOA: {
      const afterNames = writer.name(source, writer.name(source, start));
      if (afterNames + 20 !== end) throw new Uncompressible();
      writer.copy(source, afterNames, end);
      return;
    }
    default:
      writer.copy(source, start, end);
  }
}

/**
 * `message` (a whole DNS message whose names are written in full) with its names compressed. A
 * message the walker cannot follow is returned as it is: it is valid uncompressed.
 */
export function compressNames(message: Buffer): Buffer {
  if (message.length < HEADER_LENGTH) return message;
  const writer = new Writer(message.length);
  try {
    writer.copy(message, 0, HEADER_LENGTH);
    let at = HEADER_LENGTH;
    for (let i = message.readUInt16BE(4); i > 0; i--) {
      at = writer.name(message, at);
      writer.copy(message, at, at + 4);
      at += 4;
    }
    const records = message.readUInt16BE(6) + message.readUInt16BE(8) + message.readUInt16BE(10);
    for (let i = 0; i < records; i++) {
      at = writer.name(message, at);
      if (at + 10 > message.length) throw new Uncompressible();
      const type = message.readUInt16BE(at);
      const rdataLength = message.readUInt16BE(at + 8);
      // Type, class, TTL; the RDATA length is written once the RDATA's own length is known.
      writer.copy(message, at, at + 8);
      const lengthAt = writer.length;
      writer.length += 2;
      const rdataStart = at + 10;
      writeRdata(writer, message, type, rdataStart, rdataStart + rdataLength);
      writer.out.writeUInt16BE(writer.length - lengthAt - 2, lengthAt);
      at = rdataStart + rdataLength;
    }
    if (at !== message.length) return message;
  } catch (error) {
    if (error instanceof Uncompressible) return message;
    throw error;
  }
  return writer.out.subarray(0, writer.length);
}
