import { Duplex } from 'node:stream';

/**
 * Two connected in-memory streams, like the ends of a socket: what one writes the other reads.
 * Node 20 has no `stream.duplexPair`. A write completes only once the other end has room, so
 * a slow reader holds the writer back as a socket would.
 */
export function duplexPair(): [Duplex, Duplex] {
  const a = new DuplexEnd();
  const b = new DuplexEnd();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

class DuplexEnd extends Duplex {
  peer!: DuplexEnd;
  /** The callback of a write waiting for the peer to read. */
  private blockedWrite: (() => void) | undefined;

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.peer.push(chunk)) callback();
    else this.blockedWrite = callback;
  }

  override _read(): void {
    const resume = this.peer.blockedWrite;
    this.peer.blockedWrite = undefined;
    resume?.();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peer.push(null);
    callback();
  }

  /** Closing one end resets the other, as a closed socket does. */
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.blockedWrite = undefined;
    if (!this.peer.destroyed) this.peer.destroy();
    callback(error);
  }
}
