// One TCP connection carried through a tunnel, as a Duplex that HTTP clients and TLS accept as a
// socket. Flow control per stream, as HTTP/2's: the sender spends credit the receiver granted, and
// the receiver grants it back only once the data left its buffer, so a slow reader holds back
// only its own stream, never the tunnel.
import { Duplex } from 'node:stream';
import { MAX_DATA_PAYLOAD } from './frames.js';

/** Bytes each side may have in flight on a stream before its peer grants more. */
export const STREAM_WINDOW = 256 * 1024;

/** What a stream needs of its session. */
export interface StreamTransport {
  sendData(id: number, data: Buffer): void;
  sendWindow(id: number, increment: number): void;
  sendClose(id: number): void;
  sendReset(id: number): void;
  forget(id: number): void;
}

export class TunnelStream extends Duplex {
  /** What the peer still accepts on this stream. */
  private credit = STREAM_WINDOW;
  /** What the peer may still send before it runs out of credit. */
  private receiveRemaining = STREAM_WINDOW;
  /** Bytes consumed (left the readable buffer) and not yet granted back. */
  private consumed = 0;
  /** Bytes delivered while the reader was full: granted back on the next read. */
  private heldBack = 0;
  private pendingWrite?: { data: Buffer; callback: (error?: Error | null) => void };
  private remoteEnded = false;
  private localEnded = false;
  private idleTimer?: NodeJS.Timeout;
  private idleMs = 0;

  constructor(
    readonly id: number,
    private readonly transport: StreamTransport,
    /** `host:port` this stream reaches, as a socket's remote end. */
    readonly remoteAddress: string,
    readonly remotePort: number,
  ) {
    super({ allowHalfOpen: true });
  }

  /** A DATA frame from the peer. */
  receive(data: Buffer): void {
    if (this.remoteEnded || data.length > this.receiveRemaining) {
      // The peer wrote past its credit or its close: a broken peer, not a slow reader.
      this.destroy(Object.assign(new Error('tunnel stream flow-control violation'), { code: 'EPROTO' }));
      return;
    }
    this.receiveRemaining -= data.length;
    this.touch();
    if (this.push(data)) this.grant(data.length);
    else this.heldBack += data.length;
  }

  /** A WINDOW frame: the peer read what it had, more may go. */
  addCredit(increment: number): void {
    this.credit += increment;
    this.flushPending();
  }

  /** A CLOSE frame: the peer sends no more. */
  remoteClose(): void {
    if (this.remoteEnded) return;
    this.remoteEnded = true;
    this.push(null);
    this.finishIfDone();
  }

  /** A RESET frame, or the tunnel went away; without an error for a stream nobody holds yet. */
  abort(error?: Error): void {
    this.remoteEnded = true;
    this.localEnded = true;
    this.destroy(error);
  }

  override _read(): void {
    if (this.heldBack > 0) {
      const held = this.heldBack;
      this.heldBack = 0;
      this.grant(held);
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.touch();
    this.pendingWrite = { data: chunk, callback };
    this.flushPending();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.localEnded = true;
    this.transport.sendClose(this.id);
    callback();
    this.finishIfDone();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.idleTimer);
    if (!(this.localEnded && this.remoteEnded)) this.transport.sendReset(this.id);
    this.localEnded = this.remoteEnded = true;
    this.transport.forget(this.id);
    const pending = this.pendingWrite;
    this.pendingWrite = undefined;
    pending?.callback(error ?? new Error('tunnel stream closed'));
    callback(error);
  }

  // What http and tls ask of a socket.
  setTimeout(ms: number, listener?: () => void): this {
    this.idleMs = ms;
    if (listener) this.once('timeout', listener);
    this.touch();
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.idleMs > 0 && !this.destroyed) {
      this.idleTimer = setTimeout(() => this.emit('timeout'), this.idleMs);
      this.idleTimer.unref();
    }
  }

  private grant(bytes: number): void {
    this.consumed += bytes;
    // Credit goes back in batches: one WINDOW frame per quarter window read, not per chunk.
    if (this.consumed >= STREAM_WINDOW / 4 && !this.remoteEnded) {
      this.receiveRemaining += this.consumed;
      this.transport.sendWindow(this.id, this.consumed);
      this.consumed = 0;
    }
  }

  private flushPending(): void {
    const pending = this.pendingWrite;
    if (!pending) return;
    let { data } = pending;
    while (data.length > 0 && this.credit > 0) {
      const size = Math.min(data.length, this.credit, MAX_DATA_PAYLOAD);
      this.transport.sendData(this.id, data.subarray(0, size));
      this.credit -= size;
      data = data.subarray(size);
    }
    if (data.length > 0) {
      pending.data = data;
      return;
    }
    this.pendingWrite = undefined;
    pending.callback();
  }

  private finishIfDone(): void {
    if (this.localEnded && this.remoteEnded) this.transport.forget(this.id);
  }
}
