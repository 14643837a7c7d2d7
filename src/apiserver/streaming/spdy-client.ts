// The client end of an SPDY/3.1 connection (moby/spdystream's Connection as client-go's SPDY
// executor uses it): streams opened with SYN_STREAM and a header block, data both ways, a
// half-close as an empty FIN data frame, PINGs echoed, a reset or GOAWAY ending streams. Like
// spdystream it leaves flow control to TCP: it never waits for, nor sends, WINDOW_UPDATEs.
import type { Duplex } from 'node:stream';
import {
  ControlType,
  controlFrame,
  dataFrame,
  FLAG_FIN,
  FrameReader,
  HeaderCompressor,
  headerBlock,
  RstStatus,
  rstStreamFrame,
  synStreamPayload,
} from './spdy-frames.js';

/** Largest data frame written (spdystream writes at most this much per frame too). */
const MAX_DATA_FRAME = 64 * 1024;

export interface SpdyStreamHandlers {
  /** Data the server sent on the stream. */
  readonly onData?: (data: Buffer) => void;
  /** The server's half-close (FIN) or a reset: nothing more comes. */
  readonly onEnd?: () => void;
}

export class SpdyClientStream {
  private ended = false;

  constructor(
    private readonly connection: SpdyClientConnection,
    readonly id: number,
  ) {}

  /** Writes data; false when the connection's socket asks the writer to wait for 'drain'. */
  write(data: Buffer): boolean {
    if (this.ended) return true;
    let ok = true;
    for (let offset = 0; offset < data.length; offset += MAX_DATA_FRAME) {
      ok = this.connection.writeRaw(dataFrame(this.id, 0, data.subarray(offset, offset + MAX_DATA_FRAME)));
    }
    return ok;
  }

  /** Half-closes the stream (the server reads EOF). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.connection.writeRaw(dataFrame(this.id, FLAG_FIN, Buffer.alloc(0)));
  }
}

export class SpdyClientConnection {
  private readonly reader = new FrameReader();
  private readonly compressor = new HeaderCompressor();
  private readonly handlers = new Map<number, SpdyStreamHandlers>();
  private nextId = 1;
  private closed = false;

  constructor(
    readonly socket: Duplex,
    leftover: Buffer = Buffer.alloc(0),
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.close());
    socket.on('error', () => this.close());
    if (leftover.length > 0) this.receive(leftover);
  }

  /** Opens a stream with `headers` (e.g. `streamType`); data for it goes to `handlers`. */
  open(headers: Readonly<Record<string, string>>, handlers: SpdyStreamHandlers): SpdyClientStream {
    const id = this.nextId;
    this.nextId += 2;
    this.handlers.set(id, handlers);
    const compressed = this.compressor.compress(headerBlock(headers));
    this.writeRaw(controlFrame(ControlType.synStream, 0, synStreamPayload(id, compressed)));
    return new SpdyClientStream(this, id);
  }

  writeRaw(frame: Buffer): boolean {
    if (this.closed || this.socket.destroyed) return true;
    return this.socket.write(frame);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    for (const handlers of this.handlers.values()) handlers.onEnd?.();
    this.handlers.clear();
  }

  private receive(chunk: Buffer): void {
    for (const frame of this.reader.push(chunk)) {
      if (!frame.control) {
        const handlers = this.handlers.get(frame.streamId);
        if (!handlers) {
          this.writeRaw(rstStreamFrame(frame.streamId, RstStatus.protocolError));
          continue;
        }
        if (frame.data.length > 0) handlers.onData?.(frame.data);
        if (frame.flags & FLAG_FIN) this.endStream(frame.streamId);
        continue;
      }
      switch (frame.type) {
        case ControlType.synReply:
        case ControlType.headers:
          // The reply's headers are not used; a FIN on them still ends the server's side.
          if (frame.flags & FLAG_FIN && frame.data.length >= 4) {
            this.endStream(frame.data.readUInt32BE(0) & 0x7fffffff);
          }
          break;
        case ControlType.rstStream:
          if (frame.data.length >= 4) this.endStream(frame.data.readUInt32BE(0) & 0x7fffffff);
          break;
        case ControlType.ping:
          this.writeRaw(controlFrame(ControlType.ping, 0, frame.data));
          break;
        case ControlType.goAway:
          this.close();
          return;
        case ControlType.synStream:
          // The kubelet opens no streams towards its client.
          if (frame.data.length >= 4) {
            this.writeRaw(rstStreamFrame(frame.data.readUInt32BE(0) & 0x7fffffff, RstStatus.protocolError));
          }
          break;
        default:
          // SETTINGS and WINDOW_UPDATE: nothing to do (flow control is TCP's).
          break;
      }
    }
  }

  private endStream(id: number): void {
    const handlers = this.handlers.get(id);
    if (!handlers) return;
    this.handlers.delete(id);
    handlers.onEnd?.();
  }
}
