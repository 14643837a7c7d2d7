// The in-memory pair under the loopback clients: many concurrent requests with bodies each way
// must all complete. Node's HTTP/2 sessions stop reading while a write of their own is pending,
// so a pair whose writes waited for the peer to read deadlocked both ends under such load.
import { connect, createServer, type Http2Server } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { duplexPair } from '../../../src/controlplane/duplex-pair.js';

describe('duplexPair under HTTP/2', () => {
  let server: Http2Server | undefined;
  afterEach(() => server?.close());

  it('completes hundreds of concurrent requests with bodies in both directions', async () => {
    server = createServer((req, res) => {
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      req.on('end', () => res.end(JSON.stringify({ size, echo: 'y'.repeat(4096) })));
    });
    const [clientEnd, serverEnd] = duplexPair();
    server.emit('connection', serverEnd);
    const session = connect('http://pair', { createConnection: () => clientEnd });
    const body = 'x'.repeat(4096);
    const post = () =>
      new Promise<number>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': '/' });
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => {
          text += chunk;
        });
        stream.on('end', () => resolve((JSON.parse(text) as { size: number }).size));
        stream.on('error', reject);
        stream.end(body);
      });
    const sizes = await Promise.all(Array.from({ length: 500 }, post));
    expect(sizes.every((size) => size === body.length)).toBe(true);
    session.close();
  }, 10_000);
});
