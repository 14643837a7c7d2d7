// Back-pressure between a WebSocket and a byte stream: a reader pauses while the other side's
// send buffer is full, as io.Copy's blocking writes do in upstream's proxies.
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';

/** Bytes a WebSocket may hold unsent before its source pauses. */
const HIGH_WATER = 1024 * 1024;

/** Sends `data` on `ws`, pausing `source` until the send buffer drains below the mark. */
export function sendPaced(ws: WebSocket, data: Buffer, source: Duplex): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.send(data, { binary: true }, () => {
    if (source.isPaused() && ws.bufferedAmount < HIGH_WATER) source.resume();
  });
  if (ws.bufferedAmount >= HIGH_WATER) source.pause();
}

/** After a write to `sink` returned false, stops reading `ws` until `sink` drains. */
export function pauseUntilDrained(ws: WebSocket, sink: Duplex): void {
  ws.pause();
  sink.once('drain', () => ws.resume());
}

/** A message's bytes, whatever form ws delivered them in. */
export function rawDataBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
