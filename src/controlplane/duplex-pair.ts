import { Duplex } from 'node:stream';

/**
 * Two connected in-memory streams, like the ends of a socket: what one writes the other reads.
 * Node 20 has no `stream.duplexPair`. A write completes at once, as a write into a socket's
 * kernel buffer does: an HTTP/2 session stops reading while a write of its own is pending, so
 * ends whose writes waited for the peer to read would deadlock once both had a write pending
 * (seen as a loopback client hanging under hundreds of concurrent requests). HTTP/2 flow
 * control bounds what can pile up unread.
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

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.peer.push(chunk);
    callback();
  }

  override _read(): void {
    // Data arrives by the peer's writes.
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peer.push(null);
    callback();
  }

  /** Closing one end resets the other, as a closed socket does. */
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.peer.destroyed) this.peer.destroy();
    callback(error);
  }
}
