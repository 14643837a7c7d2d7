// Accepting a WebSocket on an upgrade request the apiserver serves itself (the translator and the
// tunnel), with the `ws` package; the handshake checks and their texts are gorilla/websocket's
// Upgrader's, which upstream's translating handlers use.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { badRequest, StatusError } from '../status.js';

/** The subprotocol chosen for each request being accepted. */
const chosen = new WeakMap<IncomingMessage, string>();

let server: Promise<WebSocketServer> | undefined;

/** The package loads with the first WebSocket: most control planes never serve one. */
function webSocketServer(): Promise<WebSocketServer> {
  server ??= import('ws').then(
    ({ WebSocketServer }) =>
      new WebSocketServer({
        noServer: true,
        perMessageDeflate: false,
        // A channel message may be as large as a client writes it; kubectl writes 32 KiB at most.
        maxPayload: 64 * 1024 * 1024,
        handleProtocols: (_offered, req) => chosen.get(req) ?? false,
      }),
  );
  return server;
}

/** Throws the Status for a request that is no valid WebSocket handshake. */
export function checkWebSocketHandshake(method: string, headers: IncomingHttpHeaders): void {
  if (method !== 'GET') {
    throw new StatusError(
      405,
      'MethodNotAllowed',
      'websocket: the client is not using the websocket protocol: request method is not GET',
    );
  }
  const version = String(headers['sec-websocket-version'] ?? '');
  if (version !== '13') {
    throw badRequest("websocket: unsupported version: 13 not found in 'Sec-Websocket-Version' header");
  }
  const key = String(headers['sec-websocket-key'] ?? '');
  if (!/^[A-Za-z0-9+/]{22}==$/.test(key)) {
    throw badRequest(
      "websocket: not a websocket handshake: 'Sec-WebSocket-Key' header must be Base64 encoded value of 16-byte in length",
    );
  }
}

/** Completes the handshake on `socket` with `protocol` ('' for none); rejects if the socket ends first. */
export function acceptWebSocket(req: IncomingMessage, socket: Duplex, protocol: string): Promise<WebSocket> {
  // ws accepts only RFC 7230 tokens as offered subprotocols, and kubectl's tunnelling one has a
  // '/': the choice is made already, so ws sees one plain token and answers with `protocol`
  // ('' answers with none).
  if (protocol === '') {
    delete req.headers['sec-websocket-protocol'];
  } else {
    chosen.set(req, protocol);
    req.headers['sec-websocket-protocol'] = 'chosen';
  }
  return new Promise((resolve, reject) => {
    let closed = false;
    const gone = () => {
      closed = true;
      reject(new Error('the client went away during the WebSocket handshake'));
    };
    socket.once('close', gone);
    webSocketServer().then(
      (accepting) => {
        if (closed) return;
        accepting.handleUpgrade(req, socket, Buffer.alloc(0), (ws) => {
          socket.off('close', gone);
          resolve(ws);
        });
      },
      (error: unknown) => {
        socket.off('close', gone);
        reject(error);
      },
    );
  });
}
