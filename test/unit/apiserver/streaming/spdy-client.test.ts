// The SPDY/3.1 client the exec translator speaks to the kubelet: frames as spdystream reads them
// (header blocks inflated with a persistent zlib context), data routed per stream, FIN, RST,
// PING echoed; checked against a small server end written here over a real socket pair.
import { connect, createServer, type Socket } from 'node:net';
import { constants, createInflate } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { SpdyClientConnection } from '../../../../src/apiserver/streaming/spdy-client.js';
import {
  ControlType,
  controlFrame,
  dataFrame,
  FLAG_FIN,
  FrameReader,
  HeaderCompressor,
  headerBlock,
  rstStreamFrame,
  type SpdyFrame,
} from '../../../../src/apiserver/streaming/spdy-frames.js';

/** Decodes name/value blocks as spdystream's framer does: one inflate context per connection. */
function headerReader() {
  const inflate = createInflate();
  const chunks: Buffer[] = [];
  inflate.on('data', (c: Buffer) => chunks.push(c));
  return (block: Buffer): Promise<Record<string, string>> =>
    new Promise((resolve) => {
      inflate.write(block);
      inflate.flush(constants.Z_SYNC_FLUSH, () => {
        const raw = Buffer.concat(chunks.splice(0));
        const headers: Record<string, string> = {};
        let offset = 4;
        for (let i = 0; i < raw.readUInt32BE(0); i++) {
          const nameLength = raw.readUInt32BE(offset);
          const name = raw.subarray(offset + 4, offset + 4 + nameLength).toString();
          offset += 4 + nameLength;
          const valueLength = raw.readUInt32BE(offset);
          headers[name] = raw.subarray(offset + 4, offset + 4 + valueLength).toString();
          offset += 4 + valueLength;
        }
        resolve(headers);
      });
    });
}

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

async function socketPair(): Promise<{ client: Socket; server: Socket }> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as { port: number }).port;
  const accepted = new Promise<Socket>((resolve) => listener.once('connection', resolve));
  const client = connect(port, '127.0.0.1');
  const server = await accepted;
  listener.close();
  sockets.push(client, server);
  return { client, server };
}

/** The server end: every frame it reads, in order. */
function serverFrames(server: Socket): { frames: SpdyFrame[]; next: () => Promise<SpdyFrame> } {
  const reader = new FrameReader();
  const frames: SpdyFrame[] = [];
  const waiting: ((frame: SpdyFrame) => void)[] = [];
  const queued: SpdyFrame[] = [];
  server.on('data', (chunk: Buffer) => {
    for (const frame of reader.push(chunk)) {
      frames.push(frame);
      const waiter = waiting.shift();
      if (waiter) waiter(frame);
      else queued.push(frame);
    }
  });
  return {
    frames,
    next: () => {
      const frame = queued.shift();
      return frame ? Promise.resolve(frame) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

describe('SpdyClientConnection', () => {
  it('opens streams with compressed headers that a zlib reader decodes in turn', async () => {
    const { client, server } = await socketPair();
    const { next } = serverFrames(server);
    const spdy = new SpdyClientConnection(client);
    const decode = headerReader();
    const error = spdy.open({ streamType: 'error' }, {});
    const stdin = spdy.open({ streamType: 'stdin' }, {});
    expect([error.id, stdin.id]).toEqual([1, 3]);
    for (const [id, type] of [
      [1, 'error'],
      [3, 'stdin'],
    ] as const) {
      const frame = await next();
      expect(frame).toMatchObject({ control: true, type: ControlType.synStream });
      expect(frame.data.readUInt32BE(0)).toBe(id);
      expect(await decode(frame.data.subarray(10))).toEqual({ streamtype: type });
    }
    stdin.write(Buffer.from('hello'));
    stdin.end();
    expect(await next()).toMatchObject({ control: false, streamId: 3, flags: 0, data: Buffer.from('hello') });
    expect(await next()).toMatchObject({
      control: false,
      streamId: 3,
      flags: FLAG_FIN,
      data: Buffer.alloc(0),
    });
    spdy.close();
  });

  it('writes header blocks a zlib reader decodes in turn, one larger than a stored block among them', async () => {
    const compressor = new HeaderCompressor();
    const big = 'x'.repeat(70_000);
    const decoded: Buffer[] = [];
    const inflate = createInflate();
    inflate.on('data', (c: Buffer) => decoded.push(c));
    const blocks: Record<string, string>[] = [{ streamType: 'error' }, { streamType: 'stdin', big }, {}];
    for (const headers of blocks) {
      const compressed = compressor.compress(headerBlock(headers));
      // Each block ends as a sync flush ends, so a reader limited to the frame (Go's) never reads past it.
      expect(compressed.subarray(-5)).toEqual(Buffer.of(0, 0, 0, 0xff, 0xff));
      await new Promise<void>((resolve) => {
        inflate.write(compressed);
        inflate.flush(constants.Z_SYNC_FLUSH, () => resolve());
      });
      expect(Buffer.concat(decoded.splice(0))).toEqual(headerBlock(headers));
    }
  });

  it("routes the server's data per stream, ends a stream on FIN or RST, echoes PING", async () => {
    const { client, server } = await socketPair();
    const { next } = serverFrames(server);
    const spdy = new SpdyClientConnection(client);
    const seen: string[] = [];
    spdy.open(
      { streamType: 'stdout' },
      { onData: (d) => seen.push(`out:${d}`), onEnd: () => seen.push('out:end') },
    );
    spdy.open(
      { streamType: 'stderr' },
      { onData: (d) => seen.push(`err:${d}`), onEnd: () => seen.push('err:end') },
    );
    await next();
    await next();
    const ping = Buffer.alloc(4);
    ping.writeUInt32BE(7);
    server.write(
      Buffer.concat([
        dataFrame(1, 0, Buffer.from('a')),
        dataFrame(3, 0, Buffer.from('b')),
        dataFrame(1, FLAG_FIN, Buffer.from('c')),
        rstStreamFrame(3, 5),
        controlFrame(ControlType.ping, 0, ping),
      ]),
    );
    const echoed = await next();
    expect(echoed).toMatchObject({ control: true, type: ControlType.ping });
    expect(echoed.data.readUInt32BE(0)).toBe(7);
    expect(seen).toEqual(['out:a', 'err:b', 'out:c', 'out:end', 'err:end']);
    spdy.close();
  });

  it('ends every stream when the connection closes', async () => {
    const { client, server } = await socketPair();
    const spdy = new SpdyClientConnection(client);
    const ended = new Promise<void>((resolve) => {
      spdy.open({ streamType: 'error' }, { onEnd: resolve });
    });
    server.destroy();
    await ended;
  });

  it('splits a frame stream read in pieces', () => {
    const reader = new FrameReader();
    const bytes = Buffer.concat([dataFrame(5, 0, Buffer.from('xyz')), rstStreamFrame(5, 1)]);
    const frames = [
      ...reader.push(bytes.subarray(0, 5)),
      ...reader.push(bytes.subarray(5, 13)),
      ...reader.push(bytes.subarray(13)),
    ];
    expect(frames).toHaveLength(2);
    expect(frames[0]).toMatchObject({ control: false, streamId: 5, data: Buffer.from('xyz') });
    expect(frames[1]).toMatchObject({ control: true, type: ControlType.rstStream });
  });
});
