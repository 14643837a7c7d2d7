// One end of a tunnel: many TCP streams multiplexed over one byte stream (konnectivity's role;
// tkube's framing, frames.ts). The control plane's end opens streams to addresses in a node's
// network; the node's end accepts them by dialing. When the carrier goes away every stream on it
// is aborted, so nothing outlives the tunnel.
import type { Duplex } from 'node:stream';
import { encodeFrame, encodeWindow, type Frame, FrameReader, FrameType } from './frames.js';
import { type StreamTransport, TunnelStream } from './tunnel-stream.js';

export interface TunnelTarget {
  readonly host: string;
  readonly port: number;
}

/** Why a dial failed on the far side: its errno code (ECONNREFUSED …) and message. */
export interface DialFailure {
  readonly code?: string;
  readonly message: string;
}

export interface TunnelSessionOptions {
  /** The node's end: connects a stream the peer opened; absent, OPENs are refused. */
  readonly accept?: (target: TunnelTarget) => Promise<Duplex>;
  /** How long an OPEN may wait for its answer. */
  readonly openTimeoutMs?: number;
}

interface PendingOpen {
  readonly target: TunnelTarget;
  resolve(stream: TunnelStream): void;
  reject(error: Error): void;
  readonly timer: NodeJS.Timeout;
}

function dialError(failure: DialFailure): Error {
  return Object.assign(new Error(failure.message), failure.code ? { code: failure.code } : {});
}

export class TunnelSession implements StreamTransport {
  private readonly streams = new Map<number, TunnelStream>();
  private readonly pending = new Map<number, PendingOpen>();
  private readonly reader = new FrameReader();
  private nextId = 1;
  private closedWith?: Error;
  private readonly closeListeners: Array<(error: Error) => void> = [];

  constructor(
    private readonly carrier: Duplex,
    private readonly options: TunnelSessionOptions = {},
  ) {
    carrier.on('data', (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = this.reader.push(chunk);
      } catch (error) {
        this.close(error as Error);
        return;
      }
      for (const frame of frames) this.dispatch(frame);
    });
    carrier.on('error', (error) => this.close(error));
    carrier.on('end', () => this.close(new Error('tunnel closed by peer')));
    carrier.on('close', () => this.close(new Error('tunnel closed')));
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Streams open now (tests check that none leak). */
  get openStreams(): number {
    return this.streams.size + this.pending.size;
  }

  onClose(listener: (error: Error) => void): void {
    if (this.closedWith) listener(this.closedWith);
    else this.closeListeners.push(listener);
  }

  /** Opens a stream to `target` in the peer's network; rejects with the peer's dial error. */
  open(target: TunnelTarget): Promise<TunnelStream> {
    if (this.closedWith) {
      return Promise.reject(Object.assign(new Error('tunnel closed'), { code: 'ECONNRESET' }));
    }
    const id = this.nextId;
    this.nextId = this.nextId >= 0x7fffffff ? 1 : this.nextId + 1;
    return new Promise<TunnelStream>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        this.sendReset(id);
        reject(Object.assign(new Error('i/o timeout'), { code: 'ETIMEDOUT' }));
      }, this.options.openTimeoutMs ?? 30_000);
      timer.unref();
      this.pending.set(id, { target, resolve, reject, timer });
      this.write(encodeFrame(FrameType.Open, id, Buffer.from(JSON.stringify(target))));
    });
  }

  /** Ends the tunnel and aborts every stream on it. */
  close(error: Error = new Error('tunnel closed')): void {
    if (this.closedWith) return;
    this.closedWith = error;
    const reset = Object.assign(new Error(`tunnel closed: ${error.message}`), { code: 'ECONNRESET' });
    for (const open of this.pending.values()) {
      clearTimeout(open.timer);
      open.reject(reset);
    }
    this.pending.clear();
    for (const stream of [...this.streams.values()]) stream.abort(reset);
    this.streams.clear();
    this.carrier.destroy();
    for (const listener of this.closeListeners.splice(0)) listener(error);
  }

  sendData(id: number, data: Buffer): void {
    this.write(encodeFrame(FrameType.Data, id, data));
  }
  sendWindow(id: number, increment: number): void {
    this.write(encodeWindow(id, increment));
  }
  sendClose(id: number): void {
    this.write(encodeFrame(FrameType.Close, id));
  }
  sendReset(id: number): void {
    this.write(encodeFrame(FrameType.Reset, id));
  }
  forget(id: number): void {
    this.streams.delete(id);
  }

  private write(frame: Buffer): void {
    if (!this.closedWith && this.carrier.writable) this.carrier.write(frame);
  }

  private dispatch(frame: Frame): void {
    const { id, payload } = frame;
    switch (frame.type) {
      case FrameType.Open:
        this.accept(id, payload);
        return;
      case FrameType.OpenOk:
      case FrameType.OpenFail: {
        const open = this.pending.get(id);
        if (!open) return;
        this.pending.delete(id);
        clearTimeout(open.timer);
        if (frame.type === FrameType.OpenFail) {
          open.reject(dialError(parseFailure(payload)));
          return;
        }
        const stream = new TunnelStream(id, this, open.target.host, open.target.port);
        this.streams.set(id, stream);
        open.resolve(stream);
        return;
      }
      case FrameType.Data:
        this.streams.get(id)?.receive(payload);
        return;
      case FrameType.Window:
        if (payload.length === 4) this.streams.get(id)?.addCredit(payload.readUInt32BE(0));
        return;
      case FrameType.Close:
        this.streams.get(id)?.remoteClose();
        return;
      case FrameType.Reset: {
        const stream = this.streams.get(id);
        this.streams.delete(id);
        stream?.abort(Object.assign(new Error('connection reset by peer'), { code: 'ECONNRESET' }));
        return;
      }
    }
  }

  /** The node's end: dials the target and joins the stream and the connection both ways. */
  private accept(id: number, payload: Buffer): void {
    const fail = (failure: DialFailure) =>
      this.write(encodeFrame(FrameType.OpenFail, id, Buffer.from(JSON.stringify(failure))));
    let target: TunnelTarget;
    try {
      target = JSON.parse(payload.toString('utf8')) as TunnelTarget;
      if (typeof target.host !== 'string' || !Number.isInteger(target.port)) throw new Error('bad target');
    } catch {
      fail({ message: 'malformed tunnel open request' });
      return;
    }
    if (!this.options.accept) {
      fail({ message: 'this end of the tunnel accepts no connections' });
      return;
    }
    // Registered before the dial, so that a RESET (the opener gave up) finds it.
    const stream = new TunnelStream(id, this, target.host, target.port);
    this.streams.set(id, stream);
    this.options.accept(target).then(
      (connection) => {
        if (stream.destroyed || this.closedWith) {
          connection.destroy();
          return;
        }
        this.write(encodeFrame(FrameType.OpenOk, id));
        joinStreams(stream, connection);
      },
      (error: NodeJS.ErrnoException) => {
        this.streams.delete(id);
        if (stream.destroyed) return;
        fail({ code: error.code, message: error.message });
        // The opener never saw this stream: no RESET for it, and nobody to tell.
        stream.abort();
      },
    );
  }
}

function parseFailure(payload: Buffer): DialFailure {
  try {
    const parsed = JSON.parse(payload.toString('utf8')) as Partial<DialFailure>;
    return { message: String(parsed.message ?? 'dial failed'), code: parsed.code };
  } catch {
    return { message: 'dial failed' };
  }
}

/**
 * Pipes two connections into each other: ends travel as half-closes (pipe ends the other side
 * once all was written), errors and abrupt closes abort both.
 */
export function joinStreams(a: Duplex, b: Duplex): void {
  a.pipe(b);
  b.pipe(a);
  const abortOther = (closed: Duplex, other: Duplex) => () => {
    if (!(closed.readableEnded && closed.writableFinished) && !other.destroyed) other.destroy();
  };
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.on('close', abortOther(a, b));
  b.on('close', abortOther(b, a));
}
