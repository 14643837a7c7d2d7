// The apiserver's own WebSocket handshakes (the exec translator and the port-forward tunnel): the
// chosen subprotocol answered even when it is no RFC 7230 token, and a client that leaves during
// the handshake rejects the accept (the `ws` package loads on the first one).
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { acceptWebSocket } from '../../../../src/apiserver/streaming/websocket-accept.js';

let server: Server | undefined;

afterEach(() => {
  server?.close();
  server = undefined;
});

function serveUpgrades(onUpgrade: (req: IncomingMessage, socket: Duplex) => void): Promise<number> {
  server = createServer();
  server.on('upgrade', onUpgrade);
  return new Promise((resolve) =>
    server!.listen(0, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port)),
  );
}

describe('acceptWebSocket', () => {
  it('answers with the chosen subprotocol and carries messages', async () => {
    const port = await serveUpgrades((req, socket) => {
      void acceptWebSocket(req, socket, 'v5.channel.k8s.io').then((ws) => {
        ws.on('message', (data) => ws.send(`echo ${String(data)}`));
      });
    });
    const client = new WebSocket(`ws://127.0.0.1:${port}/`, ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
    await new Promise((resolve, reject) => {
      client.once('open', resolve);
      client.once('error', reject);
    });
    expect(client.protocol).toBe('v5.channel.k8s.io');
    const answer = new Promise<string>((resolve) => client.once('message', (data) => resolve(String(data))));
    client.send('hello');
    expect(await answer).toBe('echo hello');
    client.close();
  });

  it("answers with kubectl's tunnelling subprotocol, which is no RFC 7230 token", async () => {
    const port = await serveUpgrades(
      (req, socket) => void acceptWebSocket(req, socket, 'SPDY/3.1+portforward.k8s.io'),
    );
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port,
        headers: {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Protocol': 'SPDY/3.1+portforward.k8s.io',
        },
      });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve(res);
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.statusCode).toBe(101);
    expect(answer.headers['sec-websocket-protocol']).toBe('SPDY/3.1+portforward.k8s.io');
  });

  it('rejects when the client is gone before the handshake completes', async () => {
    let accepted: Promise<unknown> | undefined;
    const port = await serveUpgrades((req, socket) => {
      accepted = acceptWebSocket(req, socket, '');
      accepted.catch(() => {});
      socket.destroy();
    });
    const client = new WebSocket(`ws://127.0.0.1:${port}/`);
    client.on('error', () => {});
    await new Promise((resolve) => client.once('close', resolve));
    await expect(accepted).rejects.toThrow('the client went away during the WebSocket handshake');
  });
});
