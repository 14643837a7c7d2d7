// One direction of an upgraded connection (upstream's io.Copy in pkg/util/proxy/upgradeaware.go).
// `pipe` paused the source after every chunk over the sink's 16 KiB mark (a readStop/readStart
// pair per 16 KiB a TLS socket decrypts); here the source pauses only when the sink holds
// COPY_HIGH_WATER bytes unsent, as a kernel socket buffer lets io.Copy run ahead. Each chunk is
// counted for the control plane's scavenge pacing (streamed-bytes-gc.ts), and a source may read
// into reused buffers (pooledCopyReads). Corking a turn's writes into one writev was measured
// too and left out: no gain in CPU per GiB (TLS then copies the pieces into one buffer).
import type { Duplex } from 'node:stream';
import { noteStreamedBytes } from './streamed-bytes-gc.js';

/** Bytes the sink may hold unsent before the source pauses. */
export const COPY_HIGH_WATER = 1024 * 1024;

/** Copies `from`'s bytes to `to` until `from` ends (then ends `to`) or `to` closes. */
export function copyStream(from: Duplex, to: Duplex, highWater = COPY_HIGH_WATER): void {
  const write = streamCopier(from, to, highWater);
  const onData = (chunk: Buffer) => write(chunk);
  from.on('data', onData);
  to.once('close', () => from.off('data', onData));
  // As pipe does: a source paused by whoever handed it over (a proxy that read a request head) flows now.
  if (!from.readableFlowing) from.resume();
}

/**
 * The writing half of copyStream for a source whose chunks come some other way (net's `onread`):
 * writes a chunk to `to` (`done` once `to` is finished with it, or at once if it takes no more),
 * pausing `from` while `to` holds `highWater` bytes unsent; ends `to` when `from` ends.
 */
export function streamCopier(
  from: Duplex,
  to: Duplex,
  highWater = COPY_HIGH_WATER,
): (chunk: Buffer, done?: () => void) => void {
  let waiting = false;
  const onDrain = () => {
    waiting = false;
    from.resume();
  };
  const onEnd = () => {
    if (!to.destroyed && !to.writableEnded) to.end();
  };
  // As pipe does: a closed sink takes no more, and its source is no longer held paused for it.
  to.once('close', () => {
    from.off('end', onEnd);
    to.off('drain', onDrain);
  });
  from.once('end', onEnd);
  return (chunk, done) => {
    if (to.destroyed || to.writableEnded) return done?.();
    noteStreamedBytes(chunk.length);
    // A failed write still calls back: the chunk is no longer held either way.
    to.write(chunk, done && (() => done()));
    if (!waiting && to.writableLength >= highWater) {
      waiting = true;
      from.pause();
      to.once('drain', onDrain);
    }
  };
}

/**
 * Read buffers for net's `onread`, reused once what was read into them has been written: a
 * socket's own reads allocate a Buffer each, and at hundreds of MB/s that external memory makes
 * V8 run a full collection every few tens of MB (seen in the node agent: about seven per 128 MiB
 * forwarded). `take` hands out a free buffer or a new one; at most `keep` are kept for reuse.
 */
export class ReadBuffers {
  private readonly free: Buffer[] = [];
  /** Buffers allocated so far (reuse keeps this near what is in flight at once). */
  allocated = 0;

  constructor(
    readonly size = 64 * 1024,
    private readonly keep = 64,
  ) {}

  take(): Buffer {
    const reused = this.free.pop();
    if (reused) return reused;
    this.allocated++;
    return Buffer.allocUnsafeSlow(this.size);
  }

  give(buffer: Buffer): void {
    if (this.free.length < this.keep) this.free.push(buffer);
  }

  /** Buffers waiting for reuse. */
  get available(): number {
    return this.free.length;
  }
}

/**
 * net.connect's `onread` for a connection whose bytes all go to `to`: each read lands in a buffer
 * of `buffers` and is written to `to` (as copyStream would), and the buffer returns to `buffers`
 * once written. `attach(from)` must be called with the socket before it reads (right after
 * connect returns), so backpressure and the end reach it.
 */
export function pooledCopyReads(
  to: Duplex,
  buffers: ReadBuffers,
  highWater = COPY_HIGH_WATER,
): {
  onread: { buffer: () => Buffer; callback: (bytes: number, buffer: Buffer) => boolean };
  attach: (from: Duplex) => void;
} {
  let write: ReturnType<typeof streamCopier> | undefined;
  return {
    onread: {
      buffer: () => buffers.take(),
      callback: (bytes, buffer) => {
        if (!write) throw new Error('pooledCopyReads: attach() was not called');
        write(buffer.subarray(0, bytes), () => buffers.give(buffer));
        return true;
      },
    },
    attach: (from) => {
      write = streamCopier(from, to, highWater);
    },
  };
}
