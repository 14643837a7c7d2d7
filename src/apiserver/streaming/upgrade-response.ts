// Reading the kubelet's answer to an upgrade request on the raw connection, as client-go's
// SpdyRoundTripper does before it hands the connection to SPDY: the status line and headers,
// the bytes after them (already the new protocol's), and for a refusal the body's text.
import type { Duplex } from 'node:stream';

/** Largest response head or error body read. */
const LIMIT = 64 * 1024;

export interface UpgradeResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The status line and headers as received, ending with the blank line. */
  readonly head: Buffer;
  /** What followed the head in the same reads. */
  readonly rest: Buffer;
}

/** Sends `request` and reads the response head; rejects if the connection ends first. */
export function sendUpgradeRequest(backend: Duplex, request: string): Promise<UpgradeResponse> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const cleanup = () => {
      backend.off('data', onData);
      backend.off('close', onClose);
      backend.off('error', onError);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(new Error('the connection closed before the upgrade response'));
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buffered.length > LIMIT) onError(new Error('upgrade response head too long'));
        return;
      }
      cleanup();
      backend.pause();
      const head = buffered.subarray(0, end + 4);
      const lines = head.toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status, headers, head, rest: buffered.subarray(end + 4) });
    };
    backend.on('data', onData);
    backend.on('close', onClose);
    backend.on('error', onError);
    backend.write(request);
  });
}

/** The body of a refused upgrade (by content-length, else until the connection ends). */
export function readRefusalBody(backend: Duplex, response: UpgradeResponse): Promise<string> {
  return new Promise((resolve) => {
    const wanted = Number(response.headers['content-length'] ?? Number.NaN);
    let body = response.rest;
    const done = () => {
      backend.off('data', onData);
      backend.destroy();
      resolve(body.subarray(0, Number.isNaN(wanted) ? LIMIT : wanted).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      body = Buffer.concat([body, chunk]);
      if (body.length >= (Number.isNaN(wanted) ? LIMIT : wanted)) done();
    };
    if (body.length >= (Number.isNaN(wanted) ? LIMIT : wanted)) return done();
    backend.on('data', onData);
    backend.once('end', done);
    backend.once('close', done);
    backend.resume();
  });
}
