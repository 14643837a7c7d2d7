// apiserver's TunnelingHandler (staging/src/k8s.io/apiserver/pkg/util/proxy/tunneling_handler.go,
// KEP-4006 for port forwarding): kubectl 1.31+ asks for a WebSocket with the subprotocol
// `SPDY/3.1+portforward.k8s.io` and speaks SPDY inside its binary messages. The kubelet gets an
// ordinary SPDY upgrade; its 101 answer is consumed here and the WebSocket accepted instead, then
// the bytes flow unchanged. A refusal reaches the client as the kubelet's HTTP answer, so it
// sees an upgrade failure (and kubectl falls back to SPDY).
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { noteStreamedBytes } from '../../api/streamed-bytes-gc.js';
import { sendUpgradeRequest } from './upgrade-response.js';
import { pauseUntilDrained, rawDataBuffer, sendPaced } from './websocket-flow.js';

/**
 * Sends the SPDY upgrade `request` on `backend`; on 101, `accept()` upgrades the client to a
 * WebSocket and the two are joined; otherwise the kubelet's answer goes to `client` as it is.
 */
export async function tunnelSpdy(
  client: Duplex,
  backend: Duplex,
  request: string,
  accept: () => Promise<WebSocket>,
): Promise<void> {
  let response: Awaited<ReturnType<typeof sendUpgradeRequest>>;
  try {
    response = await sendUpgradeRequest(backend, request);
  } catch (error) {
    const text = `error sending request: ${(error as Error).message}`;
    client.end(
      `HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
    backend.destroy();
    return;
  }
  if (response.status !== 101) {
    client.write(response.head);
    if (response.rest.length > 0) client.write(response.rest);
    backend.pipe(client);
    backend.resume();
    await new Promise<void>((resolve) => {
      backend.once('close', resolve);
      client.once('close', resolve);
    });
    backend.destroy();
    client.destroy();
    return;
  }
  const ws = await accept();
  await new Promise<void>((resolve) => {
    const finish = () => {
      backend.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
      resolve();
    };
    ws.once('close', finish);
    backend.once('close', finish);
    backend.on('error', finish);
    ws.on('message', (data: RawData) => {
      if (!backend.write(rawDataBuffer(data))) pauseUntilDrained(ws, backend);
    });
    backend.on('data', (chunk: Buffer) => {
      noteStreamedBytes(chunk.length);
      sendPaced(ws, chunk, backend);
    });
    if (response.rest.length > 0) sendPaced(ws, response.rest, backend);
    backend.resume();
  });
}
