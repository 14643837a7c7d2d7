// The byte-level join of an upgraded connection (src/api/upgrade-proxy.ts): a side that ends
// cleanly has its bytes delivered in full even to a slow reader, as `kubectl cp` of a large file
// from a container needs; an abrupt close ends the other side too.
import { createHash } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { joinStreams } from '../../../src/api/upgrade-proxy.js';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A listening server whose connections go to `onConnection`; resolves to its port. */
async function listen(onConnection: (socket: Socket) => void, allowHalfOpen = false): Promise<number> {
  const server = createServer({ allowHalfOpen }, onConnection);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

describe('joinStreams', () => {
  it('delivers everything a backend sent before it closed, to a slow reader that keeps writing', async () => {
    const payload = Buffer.alloc(24 * 1024 * 1024);
    for (let i = 0; i < payload.length; i += 4) payload.writeUInt32LE((i * 2654435761) >>> 0, i);
    // The backend writes the whole payload at once and closes.
    const backendPort = await listen((socket) => {
      socket.resume();
      socket.end(payload);
    });
    let joined: Promise<void> | undefined;
    const proxyPort = await listen((client) => {
      joined = joinStreams(client, connect(backendPort, '127.0.0.1'));
    }, true);
    // As kubectl reading an SPDY stream: it reads slowly and sends window updates as it goes, so
    // the proxy's side always has input waiting when the backend closes.
    const reader = connect(proxyPort, '127.0.0.1');
    const updates = setInterval(() => reader.write(Buffer.alloc(16)), 1);
    const chunks: Buffer[] = [];
    let failure: string | undefined;
    reader.on('error', (error: NodeJS.ErrnoException) => {
      failure = error.code;
    });
    reader.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      reader.pause();
      setTimeout(() => reader.resume(), 1);
    });
    reader.on('end', () => {
      clearInterval(updates);
      reader.end();
    });
    await new Promise((resolve) => reader.once('close', resolve));
    clearInterval(updates);
    await joined;
    const all = Buffer.concat(chunks);
    expect(failure).toBeUndefined();
    expect(all.length).toBe(payload.length);
    expect(sha256(all)).toBe(sha256(payload));
  }, 60_000);

  it('still delivers the tail when a write to the backend fails after the backend ended', async () => {
    // The race behind a flaky run: the backend's FIN arrives, Node ends the proxy's socket to it
    // (not half-open), and a window update from the reader is written to that socket just then:
    // EPIPE. Everything the backend sent is in, so the reader must still get all of it, without a
    // reset from the proxy closing its side with the reader's bytes unread.
    const payload = Buffer.alloc(256 * 1024);
    for (let i = 0; i < payload.length; i += 4) payload.writeUInt32LE((i * 2246822519) >>> 0, i);
    // The backend reads nothing and answers after a while, so the reader's bytes stay queued.
    const backendPort = await listen((socket) => {
      setTimeout(() => socket.end(payload), 300);
    });
    let joined: Promise<void> | undefined;
    let backendError: string | undefined;
    const proxyPort = await listen((client) => {
      const backend = connect(backendPort, '127.0.0.1');
      // Node ends the socket a tick after 'end': the late write comes just after that.
      backend.once('end', () =>
        process.nextTick(() => process.nextTick(() => backend.write(Buffer.alloc(16)))),
      );
      backend.once('error', (error: NodeJS.ErrnoException) => {
        backendError = error.code;
      });
      joined = joinStreams(client, backend);
    }, true);
    const reader = connect(proxyPort, '127.0.0.1');
    let failure: string | undefined;
    reader.on('error', (error: NodeJS.ErrnoException) => {
      failure = error.code;
    });
    // More than the kernel's buffers on the way hold: the proxy has the reader's bytes unread.
    reader.write(Buffer.alloc(16 * 1024 * 1024));
    reader.pause();
    const chunks: Buffer[] = [];
    setTimeout(() => {
      reader.on('data', (chunk: Buffer) => chunks.push(chunk));
      reader.resume();
    }, 600);
    reader.on('end', () => reader.end());
    await new Promise((resolve) => reader.once('close', resolve));
    await joined;
    expect(backendError).toBe('EPIPE');
    expect(failure).toBeUndefined();
    expect(Buffer.concat(chunks).length).toBe(payload.length);
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(payload));
  }, 60_000);

  it('closes a side whose peer never closes after the linger time', async () => {
    const backendPort = await listen((socket) => socket.end('answer'));
    let joined: Promise<void> | undefined;
    const proxyPort = await listen((client) => {
      joined = joinStreams(client, connect(backendPort, '127.0.0.1'), 200);
    }, true);
    const reader = connect({ port: proxyPort, host: '127.0.0.1', allowHalfOpen: true });
    const chunks: Buffer[] = [];
    reader.on('data', (chunk: Buffer) => chunks.push(chunk));
    const started = Date.now();
    await new Promise((resolve) => reader.once('end', resolve));
    // The reader keeps its side open; the proxy lets go of it after the linger time.
    await joined;
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(Buffer.concat(chunks).toString()).toBe('answer');
    reader.destroy();
  });

  it('passes a client half-close on and still returns the backend answer', async () => {
    const backendPort = await listen((socket) => {
      const got: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => got.push(chunk));
      socket.on('end', () => socket.end(`got ${Buffer.concat(got).toString()}`));
    }, true);
    const proxyPort = await listen((client) => {
      void joinStreams(client, connect({ port: backendPort, host: '127.0.0.1', allowHalfOpen: true }));
    }, true);
    const reader = connect({ port: proxyPort, host: '127.0.0.1', allowHalfOpen: true });
    reader.end('stdin');
    const chunks: Buffer[] = [];
    reader.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => reader.once('close', resolve));
    expect(Buffer.concat(chunks).toString()).toBe('got stdin');
  });

  it('closes the client when the backend is reset', async () => {
    const backendPort = await listen((socket) => {
      socket.write('partial');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    let joined: Promise<void> | undefined;
    const proxyPort = await listen((client) => {
      joined = joinStreams(client, connect(backendPort, '127.0.0.1'));
    }, true);
    const reader = connect(proxyPort, '127.0.0.1');
    reader.on('error', () => {});
    reader.resume();
    await new Promise((resolve) => reader.once('close', resolve));
    await expect(joined).resolves.toBeUndefined();
  });
});
