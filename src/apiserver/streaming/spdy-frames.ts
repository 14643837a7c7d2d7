// SPDY/3.1 framing as moby/spdystream's framer writes and reads it (the draft-mbelshe-spdy-3.1
// frame layout): what the apiserver needs to open remotecommand streams on a kubelet as a client.
// Header blocks go out as one zlib stream per connection (of stored blocks); incoming header
// blocks are not read (the kubelet's replies carry nothing the client uses), so no inflate context
// is kept.

export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;

export const ControlType = {
  synStream: 1,
  synReply: 2,
  rstStream: 3,
  settings: 4,
  ping: 6,
  goAway: 7,
  headers: 8,
  windowUpdate: 9,
} as const;

/** RST_STREAM status codes. */
export const RstStatus = { protocolError: 1, cancel: 5 } as const;

export type SpdyFrame =
  | { readonly control: true; readonly type: number; readonly flags: number; readonly data: Buffer }
  | { readonly control: false; readonly streamId: number; readonly flags: number; readonly data: Buffer };

/** A control frame: version, type, flags, 24-bit length, payload. */
export function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(payload.length, 4);
  head.writeUInt8(flags, 4);
  return Buffer.concat([head, payload]);
}

/** A data frame on `streamId`. */
export function dataFrame(streamId: number, flags: number, data: Buffer): Buffer {
  if (data.length > 0xffffff) throw new RangeError('SPDY data frame too long');
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(data.length, 4);
  head.writeUInt8(flags, 4);
  return Buffer.concat([head, data]);
}

export function rstStreamFrame(streamId: number, status: number): Buffer {
  const payload = Buffer.alloc(8);
  payload.writeUInt32BE(streamId & 0x7fffffff, 0);
  payload.writeUInt32BE(status, 4);
  return controlFrame(ControlType.rstStream, 0, payload);
}

/** The uncompressed name/value block: a count, then length-prefixed names and values. */
export function headerBlock(headers: Readonly<Record<string, string>>): Buffer {
  const parts: Buffer[] = [];
  const count = Buffer.alloc(4);
  count.writeUInt32BE(Object.keys(headers).length);
  parts.push(count);
  for (const [name, value] of Object.entries(headers)) {
    for (const text of [name.toLowerCase(), value]) {
      const bytes = Buffer.from(text);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      parts.push(length, bytes);
    }
  }
  return Buffer.concat(parts);
}

/** A zlib stream's two-byte header: deflate, 32 KiB window, no preset dictionary, check bits set. */
const ZLIB_HEADER = Buffer.of(0x78, 0x01);
/** The most bytes one stored deflate block holds. */
const STORED_BLOCK_MAX = 0xffff;
const EMPTY_STORED_BLOCK = Buffer.of(0x00, 0x00, 0x00, 0xff, 0xff);

/**
 * The sending side's header "compression": one zlib stream per connection, as SPDY requires,
 * whose blocks are stored (deflate's uncompressed block type) rather than compressed. Any zlib
 * reader decodes them in turn (spdystream's reader among them); building them takes no zlib
 * context and no trip to the thread pool, which under load costs an exec milliseconds per stream.
 * Header blocks are a hundred bytes or so: compressing them would save little.
 */
export class HeaderCompressor {
  private started = false;

  compress(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      parts.push(ZLIB_HEADER);
      this.started = true;
    }
    // A stored block starts byte-aligned: one byte (BFINAL 0, BTYPE 00, padding), LEN, NLEN.
    for (let offset = 0; offset < block.length; offset += STORED_BLOCK_MAX) {
      const piece = block.subarray(offset, offset + STORED_BLOCK_MAX);
      const head = Buffer.alloc(5);
      head.writeUInt16LE(piece.length, 1);
      head.writeUInt16LE(~piece.length & 0xffff, 3);
      parts.push(head, piece);
    }
    // An empty stored block ends each header block, as a sync flush does: Go's flate reader
    // hands a stored block's bytes over only when it reaches the next block, and a reader
    // limited to the frame would otherwise hit the frame's end looking for it and fail for good.
    parts.push(EMPTY_STORED_BLOCK);
    return Buffer.concat(parts);
  }
}

/** SYN_STREAM's payload: stream id, associated stream (none), priority 0, slot 0, header block. */
export function synStreamPayload(streamId: number, compressedHeaders: Buffer): Buffer {
  const head = Buffer.alloc(10);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  return Buffer.concat([head, compressedHeaders]);
}

/** Splits a byte stream into frames; `push` returns the frames completed so far. */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): SpdyFrame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: SpdyFrame[] = [];
    while (this.buffered.length >= 8) {
      const length = this.buffered.readUInt32BE(4) & 0xffffff;
      if (this.buffered.length < 8 + length) break;
      const flags = this.buffered.readUInt8(4);
      const data = this.buffered.subarray(8, 8 + length);
      if (this.buffered[0]! & 0x80) {
        frames.push({ control: true, type: this.buffered.readUInt16BE(2), flags, data });
      } else {
        frames.push({ control: false, streamId: this.buffered.readUInt32BE(0) & 0x7fffffff, flags, data });
      }
      this.buffered = this.buffered.subarray(8 + length);
    }
    return frames;
  }
}
