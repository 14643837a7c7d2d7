// keepAlive over a real HTTP/2 connection through a relay that can go silent without closing
// anything: the fault TCP alone never reports.
import { once } from 'node:events';
import { createServer as createHttp2Server, connect as http2Connect } from 'node:http2';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { keepAlive } from '../../../../src/client/tunnel/keepalive.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A TCP relay to `port` that forwards until `silence()`, then drops every byte but keeps the sockets. */
async function relay(port: number): Promise<{ port: number; silence(): void }> {
  let silent = false;
  const sockets: Socket[] = [];
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.push(client, upstream);
    client.on('data', (data: Buffer) => {
      if (!silent) upstream.write(data);
    });
    upstream.on('data', (data: Buffer) => {
      if (!silent) client.write(data);
    });
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return {
    port: (server.address() as AddressInfo).port,
    silence: () => {
      silent = true;
    },
  };
}

describe('keepAlive', () => {
  it('keeps a live connection, and declares a silent one dead within two intervals', async () => {
    const server = createHttp2Server();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => server.close());
    const path = await relay((server.address() as AddressInfo).port);
    const session = http2Connect(`http://127.0.0.1:${path.port}`);
    cleanups.push(() => session.destroy());
    await once(session, 'connect');
    let deadAt = 0;
    let reason = '';
    const stop = keepAlive(session, 300, (error) => {
      deadAt = Date.now();
      reason = error.message;
    });
    cleanups.push(stop);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(deadAt).toBe(0);
    const silencedAt = Date.now();
    path.silence();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(reason).toBe('no answer to a ping within 300 ms');
    // The ping in flight, then the next one due: two intervals, and some slack for a busy machine.
    expect(deadAt - silencedAt).toBeLessThanOrEqual(1_000);
  });
});
