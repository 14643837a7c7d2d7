// One direction of an upgraded connection (src/api/stream-copy.ts): the source pauses only at the
// high-water mark and resumes on drain, and reads into pooled buffers deliver every byte while
// reusing a bounded set of buffers.
import { createHash } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { Duplex, PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { copyStream, pooledCopyReads, ReadBuffers } from '../../../src/api/stream-copy.js';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A sink that records each write call's chunks and completes writes only when `release` is called. */
class RecordingSink extends Duplex {
  readonly calls: number[][] = [];
  private pending: (() => void)[] = [];
  constructor(private readonly hold = false) {
    super({ read() {} });
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.calls.push([chunk.length]);
    this.complete(callback);
  }
  override _writev(chunks: { chunk: Buffer }[], callback: () => void): void {
    this.calls.push(chunks.map(({ chunk }) => chunk.length));
    this.complete(callback);
  }
  release(): void {
    for (const callback of this.pending.splice(0)) callback();
  }
  private complete(callback: () => void): void {
    if (this.hold) this.pending.push(callback);
    else callback();
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('copyStream', () => {
  it('pauses the source only once the sink holds the high-water mark, and resumes it on drain', async () => {
    const source = new PassThrough();
    const sink = new RecordingSink(true);
    copyStream(source, sink, 64 * 1024);
    // Well over the sink's own 16 KiB mark, below the copy's: the source keeps flowing.
    source.write(Buffer.alloc(40 * 1024));
    await turn();
    expect(source.isPaused()).toBe(false);
    source.write(Buffer.alloc(40 * 1024));
    await turn();
    expect(source.isPaused()).toBe(true);
    sink.release();
    await turn();
    sink.release();
    await turn();
    expect(source.isPaused()).toBe(false);
    expect(sink.writableLength).toBe(0);
  });

  it('starts a source that was handed over paused, as pipe does', async () => {
    const source = new PassThrough();
    source.pause();
    const sink = new PassThrough();
    copyStream(source, sink);
    source.write('after the head');
    await turn();
    await turn();
    expect(sink.read()?.toString()).toBe('after the head');
  });

  it("ends the sink when the source ends, after the source's bytes", async () => {
    const source = new PassThrough();
    const sink = new PassThrough();
    copyStream(source, sink);
    source.end('last words');
    const chunks: Buffer[] = [];
    sink.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => sink.once('end', resolve));
    expect(Buffer.concat(chunks).toString()).toBe('last words');
  });
});

describe('pooledCopyReads', () => {
  it('moves 32 MiB through reused read buffers to a slow reader, every byte in order', async () => {
    const payload = Buffer.alloc(32 * 1024 * 1024);
    for (let i = 0; i < payload.length; i += 4) payload.writeUInt32LE((i * 2654435761) >>> 0, i);
    const sourceServer = createServer((socket) => socket.end(payload));
    servers.push(sourceServer);
    await new Promise<void>((resolve) => sourceServer.listen(0, '127.0.0.1', resolve));
    const buffers = new ReadBuffers(64 * 1024);
    const proxy = createServer((client: Socket) => {
      const reads = pooledCopyReads(client, buffers, 256 * 1024);
      const from = connect({
        port: (sourceServer.address() as AddressInfo).port,
        host: '127.0.0.1',
        onread: reads.onread,
      });
      reads.attach(from);
      from.resume();
    });
    servers.push(proxy);
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const reader = connect((proxy.address() as AddressInfo).port, '127.0.0.1');
    const chunks: Buffer[] = [];
    reader.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      reader.pause();
      setTimeout(() => reader.resume(), 1);
    });
    await new Promise((resolve) => reader.once('end', resolve));
    const all = Buffer.concat(chunks);
    expect(all.length).toBe(payload.length);
    expect(createHash('sha256').update(all).digest('hex')).toBe(
      createHash('sha256').update(payload).digest('hex'),
    );
    // 512 reads' worth of data; only what the high-water mark lets be in flight is ever allocated.
    expect(buffers.allocated).toBeLessThanOrEqual(256 / 64 + 4);
    // All came back but the one the ended socket was handed for its next read.
    expect(buffers.available).toBe(buffers.allocated - 1);
  }, 60_000);
});
