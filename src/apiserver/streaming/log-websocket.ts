// A streamed response (pods/log) over a WebSocket, as apiserver's wsstream.Reader serves a
// ResourceStreamer to a WebSocket request: each chunk one message (binary, or base64 text for
// `base64.binary.k8s.io`), and the close when the stream ends. The conformance spec "should
// support retrieving logs from the container over websockets" reads logs this way.
import type { IncomingMessage } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import { acceptWebSocket } from './websocket-accept.js';

const BINARY = 'binary.k8s.io';
const BASE64 = 'base64.binary.k8s.io';

/** wsstream's Reader protocols: none (binary), `binary.k8s.io`, `base64.binary.k8s.io`; undefined if none offered fits. */
export function logStreamProtocol(offered: readonly string[]): string | undefined {
  if (offered.length === 0) return '';
  return offered.find((protocol) => protocol === BINARY || protocol === BASE64);
}

/** Accepts the WebSocket with `protocol` and sends `stream` on it until it ends or the client goes. */
export async function streamOverWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  protocol: string,
  stream: Readable,
): Promise<void> {
  const ws = await acceptWebSocket(req, socket, protocol);
  await new Promise<void>((resolve) => {
    const finish = () => {
      stream.destroy();
      if (ws.readyState === ws.OPEN) ws.close(1000);
      resolve();
    };
    ws.once('close', finish);
    stream.on('data', (chunk: Buffer) => {
      if (protocol === BASE64) ws.send(chunk.toString('base64'));
      else ws.send(chunk, { binary: true });
    });
    stream.once('end', finish);
    stream.once('error', finish);
  });
}
