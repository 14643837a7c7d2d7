// apimachinery's UpgradeAwareHandler at the byte level (pkg/util/proxy/upgradeaware.go): after
// the request line and headers go to the backend, the two connections are joined as they are,
// so the backend's answer (101 Switching Protocols and the stream, or an error) reaches the
// client unchanged. The apiserver uses it towards the kubelet, the kubelet towards the runtime's
// streaming server.
import type { Duplex } from 'node:stream';
import { type ConnectionOptions, type TLSSocket, connect as tlsConnect } from 'node:tls';
import { copyStream } from './stream-copy.js';

/** Header names that describe this hop's connection and are set again for the next. */
const HOP_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'keep-alive']);

/** An HTTP/1.1 request head; `headers` keep their order, header names repeat for repeated values. */
export function requestHead(
  method: string,
  target: string,
  host: string,
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
): string {
  const lines = [`${method} ${target} HTTP/1.1`, `Host: ${host}`];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_HEADERS.has(name.toLowerCase())) continue;
    for (const one of typeof value === 'string' ? [value] : value) {
      // A header value never carries a line break into the next hop.
      if (!/[\r\n]/.test(one)) lines.push(`${name}: ${one}`);
    }
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Sends `head` and what the client already sent, then joins the connections until both are done. */
export function joinUpgraded(client: Duplex, backend: Duplex, head: string, buffered: Buffer): Promise<void> {
  backend.write(head);
  if (buffered.length > 0) backend.write(buffered);
  return joinStreams(client, backend);
}

/** How long a side whose partner closed cleanly is kept open for its peer to read the rest and close. */
export const LINGER_MS = 30_000;

/**
 * Copies each side's bytes to the other (copyStream), as upstream's two io.Copy calls. When one side ends
 * cleanly, the other is ended (its peer gets the rest, then EOF) and still read until its peer
 * closes too: closing a socket with unread input (a kubectl's SPDY window updates) makes the
 * kernel reset the connection and drop what it still holds for the peer, the tail of a large
 * `kubectl cp`. An error before a side's end, or an abrupt close, ends both at once.
 */
export function joinStreams(a: Duplex, b: Duplex, lingerMs = LINGER_MS): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    let linger: NodeJS.Timeout | undefined;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(linger);
      a.destroy();
      b.destroy();
      resolve();
    };
    const onClose = (closed: Duplex, other: Duplex) => () => {
      if (!closed.readableEnded || other.destroyed || linger) return finish();
      other.once('close', finish);
      other.on('data', () => {});
      other.resume();
      if (!other.writableEnded) other.end();
      linger = setTimeout(finish, lingerMs);
    };
    // A side whose peer's bytes all came in can still fail a late write (Node ends a socket that
    // is not half-open when its FIN arrives, and a window update piped to it then is an EPIPE):
    // its 'close' follows and lets the other side finish delivering, as a clean close does.
    const onError = (failed: Duplex) => () => {
      if (!failed.readableEnded) finish();
    };
    a.on('error', onError(a));
    b.on('error', onError(b));
    a.on('close', onClose(a, b));
    b.on('close', onClose(b, a));
    copyStream(a, b);
    copyStream(b, a);
  });
}

/**
 * Starts TLS over `raw` (or a socket of its own when `options` names no socket) and resolves once
 * the handshake is done; on failure the raw connection is closed too.
 */
export async function secureConnection(options: ConnectionOptions, raw?: Duplex): Promise<TLSSocket> {
  const socket = tlsConnect(raw ? { ...options, socket: raw } : options);
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', (error) => {
      raw?.destroy();
      reject(error);
    });
  });
  return socket;
}
