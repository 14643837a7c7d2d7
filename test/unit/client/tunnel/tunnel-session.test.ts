// The tunnel multiplexer over a real TCP carrier, dialing real local TCP servers: data both ways,
// dial errors, half-closes, per-stream backpressure, and no stream outliving its tunnel.
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader, FrameType } from '../../../../src/client/tunnel/frames.js';
import { TunnelSession } from '../../../../src/client/tunnel/tunnel-session.js';
import { STREAM_WINDOW } from '../../../../src/client/tunnel/tunnel-stream.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function listen(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  // Half-open as real servers may be: a client's end does not end the answer.
  const server = createServer({ allowHalfOpen: true }, onConnection);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => server.close());
  return { server, port: (server.address() as AddressInfo).port };
}

/** A control-plane end and a node end joined by a TCP connection; the node end dials for real. */
async function tunnelPair(): Promise<{ control: TunnelSession; node: TunnelSession; nodeSocket: Socket }> {
  let nodeSide!: Socket;
  const { port } = await listen((socket) => {
    nodeSide = socket;
  });
  const controlSide = connect(port, '127.0.0.1');
  await once(controlSide, 'connect');
  while (!nodeSide) await new Promise((resolve) => setImmediate(resolve));
  const node = new TunnelSession(nodeSide, {
    accept: ({ host, port: targetPort }) =>
      new Promise((resolve, reject) => {
        const socket = connect({ port: targetPort, host, allowHalfOpen: true });
        socket.once('connect', () => resolve(socket));
        socket.once('error', reject);
      }),
  });
  const control = new TunnelSession(controlSide);
  cleanups.push(() => {
    control.close();
    node.close();
  });
  return { control, node, nodeSocket: nodeSide };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('TunnelSession', () => {
  it('carries megabytes both ways intact, and forgets the stream once both halves closed', async () => {
    const { port } = await listen((socket) => socket.pipe(socket));
    const { control, node } = await tunnelPair();
    const stream = await control.open({ host: '127.0.0.1', port });
    const payload = randomBytes(5 * 1024 * 1024 + 17);
    const echoed = readAll(stream);
    stream.end(payload);
    const back = await echoed;
    expect(back.length).toBe(payload.length);
    expect(sha(back)).toBe(sha(payload));
    await settle();
    expect(control.openStreams).toBe(0);
    expect(node.openStreams).toBe(0);
  });

  it('carries many streams at once without mixing them', async () => {
    const { port } = await listen((socket) => socket.pipe(socket));
    const { control } = await tunnelPair();
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const stream = await control.open({ host: '127.0.0.1', port });
        const data = Buffer.alloc(100_000 + index, index);
        const echoed = readAll(stream);
        stream.end(data);
        return sha(await echoed) === sha(data);
      }),
    );
    expect(results.every(Boolean)).toBe(true);
  });

  it('reports the far side dial error with its errno code', async () => {
    const { server, port } = await listen(() => undefined);
    server.close();
    await once(server, 'close');
    const { control, node } = await tunnelPair();
    const failure = await control.open({ host: '127.0.0.1', port }).catch((error: unknown) => error);
    expect((failure as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    await settle();
    expect(node.openStreams).toBe(0);
    expect(control.openStreams).toBe(0);
  });

  it('refuses opens on an end that accepts none', async () => {
    const { control, node } = await tunnelPair();
    const failure = await node.open({ host: '127.0.0.1', port: 1 }).catch((error: unknown) => error);
    expect((failure as Error).message).toBe('this end of the tunnel accepts no connections');
    expect(control.openStreams).toBe(0);
  });

  it('keeps half-closes: the client ends, the server still answers after reading everything', async () => {
    const { port } = await listen((socket) => {
      let received = 0;
      socket.on('data', (data: Buffer) => {
        received += data.length;
      });
      socket.on('end', () => socket.end(`got ${received} bytes`));
    });
    const { control } = await tunnelPair();
    const stream = await control.open({ host: '127.0.0.1', port });
    const answer = readAll(stream);
    stream.end(Buffer.alloc(300_000));
    expect((await answer).toString()).toBe('got 300000 bytes');
  });

  it('holds a writer back at the window while the far reader does not read, then resumes', async () => {
    let serverSocket!: Socket;
    const { port } = await listen((socket) => {
      serverSocket = socket;
      socket.pause();
    });
    const { control, node } = await tunnelPair();
    const stream = await control.open({ host: '127.0.0.1', port });
    const chunk = Buffer.alloc(64 * 1024);
    const limit = 256 * 1024 * 1024;
    let written = 0;
    // Write while the stream drains; the far socket's kernel buffers fill first, then the window.
    while (written < limit) {
      written += chunk.length;
      if (stream.write(chunk)) continue;
      const drained = await Promise.race([
        once(stream, 'drain').then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 300)),
      ]);
      if (!drained) break;
    }
    // Held back: the stream keeps what it may not send yet, far below what the loop would write.
    expect(written).toBeLessThan(limit);
    expect(stream.writableLength).toBeGreaterThan(0);
    // Another stream on the same tunnel is not blocked by it.
    const { port: echoPort } = await listen((socket) => socket.pipe(socket));
    const other = await control.open({ host: '127.0.0.1', port: echoPort });
    const echoed = readAll(other);
    other.end('still flowing');
    expect((await echoed).toString()).toBe('still flowing');
    // The reader catches up: everything arrives.
    let received = 0;
    serverSocket.on('data', (data: Buffer) => {
      received += data.length;
    });
    serverSocket.resume();
    stream.end();
    await once(serverSocket, 'end');
    expect(received).toBe(written);
    expect(node.openStreams).toBeLessThanOrEqual(1);
  });

  it('aborts every stream when the carrier goes away, and refuses new opens', async () => {
    const { port } = await listen(() => undefined);
    const { control, nodeSocket } = await tunnelPair();
    const streams = await Promise.all([1, 2, 3].map(() => control.open({ host: '127.0.0.1', port })));
    const errors = streams.map((stream) =>
      once(stream, 'error').then(([error]) => error as NodeJS.ErrnoException),
    );
    nodeSocket.destroy();
    for (const error of await Promise.all(errors)) expect(error.code).toBe('ECONNRESET');
    expect(control.closed).toBe(true);
    expect(control.openStreams).toBe(0);
    await expect(control.open({ host: '127.0.0.1', port })).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('passes a reset through: destroying one end closes the far connection', async () => {
    let serverSocket!: Socket;
    const { port } = await listen((socket) => {
      serverSocket = socket;
    });
    const { control, node } = await tunnelPair();
    const stream = await control.open({ host: '127.0.0.1', port });
    while (!serverSocket) await settle();
    const closed = once(serverSocket, 'end');
    stream.destroy();
    await closed;
    await settle();
    expect(node.openStreams).toBe(0);
    expect(control.openStreams).toBe(0);
  });

  it('breaks the tunnel on a malformed frame and on data past the granted window', async () => {
    const { control, nodeSocket } = await tunnelPair();
    const closed = new Promise<Error>((resolve) => control.onClose(resolve));
    nodeSocket.write(Buffer.from([99, 0, 0, 0, 1, 0, 0, 0, 0]));
    expect((await closed).message).toBe('tunnel: unknown frame type 99');

    const { port } = await listen(() => undefined);
    const pair = await tunnelPair();
    const stream = await pair.control.open({ host: '127.0.0.1', port });
    const error = once(stream, 'error').then(([e]) => e as NodeJS.ErrnoException);
    // A peer that ignores flow control: more than a window on one stream.
    for (let sent = 0; sent <= STREAM_WINDOW; sent += 16 * 1024) {
      pair.nodeSocket.write(encodeFrame(FrameType.Data, stream.id, Buffer.alloc(16 * 1024)));
    }
    expect((await error).code).toBe('EPROTO');
  });
});

describe('FrameReader', () => {
  it('reassembles frames split at any byte', () => {
    const frames = Buffer.concat([
      encodeFrame(FrameType.Data, 7, Buffer.from('hello')),
      encodeFrame(FrameType.Close, 7),
    ]);
    const reader = new FrameReader();
    const seen = [...frames].flatMap((byte) => reader.push(Buffer.from([byte])));
    expect(seen.map((f) => [f.type, f.id, f.payload.toString()])).toEqual([
      [FrameType.Data, 7, 'hello'],
      [FrameType.Close, 7, ''],
    ]);
  });
});
