// Where an HTTP/1.1 message body ends (RFC 9112 6.3 and 7.1; llhttp's body states in Node.js):
// a Content-Length counted down, a chunked body followed through its chunk sizes, data, CRLFs
// and trailer section, or a body that runs until the connection closes. The ingress proxy's
// HTTP/1.1 path forwards bodies as the bytes they are and needs only this: when a message is
// over, so the connection can carry the next one.

const CR = 13;
const LF = 10;
const SEMICOLON = 59;
/** More hex digits than this would pass 2^53: no honest chunk is that large. */
const MAX_SIZE_DIGITS = 13;

type ChunkedState = 'size' | 'extension' | 'data' | 'data-end' | 'trailer';

export class BodyFraming {
  private remaining: number;
  private state: ChunkedState = 'size';
  private size = 0;
  private digits = 0;
  private lineLength = 0;
  /** The body is over; bytes after it belong to the next message. */
  done: boolean;
  /** The chunked encoding was broken; the connection cannot be trusted any further. */
  failed = false;

  private constructor(
    private readonly kind: 'length' | 'chunked' | 'close',
    length: number,
  ) {
    this.remaining = length;
    this.done = kind === 'length' && length === 0;
  }

  static length(bytes: number): BodyFraming {
    return new BodyFraming('length', bytes);
  }

  static chunked(): BodyFraming {
    return new BodyFraming('chunked', 0);
  }

  /** A body delimited by the connection's close (a response without length or chunking). */
  static untilClose(): BodyFraming {
    return new BodyFraming('close', 0);
  }

  get closeDelimited(): boolean {
    return this.kind === 'close';
  }

  /** How many bytes of `chunk` from `offset` on belong to the body (all of them until it is done). */
  consume(chunk: Buffer, offset: number): number {
    if (this.done || this.failed) return 0;
    const available = chunk.length - offset;
    if (this.kind === 'close') return available;
    if (this.kind === 'length') {
      const taken = Math.min(available, this.remaining);
      this.remaining -= taken;
      this.done = this.remaining === 0;
      return taken;
    }
    let at = offset;
    while (at < chunk.length && !this.done && !this.failed) {
      if (this.state === 'data') {
        const taken = Math.min(chunk.length - at, this.remaining);
        this.remaining -= taken;
        at += taken;
        if (this.remaining === 0) this.state = 'data-end';
        continue;
      }
      this.step(chunk[at]!);
      at++;
    }
    return at - offset;
  }

  /** One byte outside chunk data. */
  private step(byte: number): void {
    switch (this.state) {
      case 'size': {
        const digit = hexValue(byte);
        if (digit >= 0 && this.digits < MAX_SIZE_DIGITS) {
          this.size = this.size * 16 + digit;
          this.digits++;
        } else if (byte === SEMICOLON && this.digits > 0) this.state = 'extension';
        else if (byte === LF && this.digits > 0) this.endSizeLine();
        else if (byte !== CR || this.digits === 0) this.failed = true;
        return;
      }
      case 'extension':
        if (byte === LF) this.endSizeLine();
        return;
      case 'data-end':
        if (byte === LF) this.state = 'size';
        else if (byte !== CR) this.failed = true;
        return;
      case 'trailer':
        if (byte === LF) {
          if (this.lineLength === 0) this.done = true;
          this.lineLength = 0;
        } else if (byte !== CR) this.lineLength++;
        return;
      default:
        return;
    }
  }

  private endSizeLine(): void {
    this.remaining = this.size;
    this.state = this.size === 0 ? 'trailer' : 'data';
    this.size = 0;
    this.digits = 0;
    this.lineLength = 0;
  }
}

function hexValue(byte: number): number {
  if (byte >= 48 && byte <= 57) return byte - 48;
  const lower = byte | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}
