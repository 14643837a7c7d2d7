// The ingress proxy's byte-level HTTP/1.1 path against real local backends over raw sockets:
// message framing (chunked bodies split anywhere, trailers, lengths), the request checks llhttp
// makes, keep-alive with per-request routing and pipelining, backend connections reused, and the
// answers of its own (400, 431, 404 with a body, 502) and HTTP/1.0 clients.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyFraming } from '../../../../src/agent/ingress/body-framing.js';
import { defaultSecureContext } from '../../../../src/agent/ingress/certificates.js';
import { parseRequestHead } from '../../../../src/agent/ingress/http1-proxy.js';
import { IngressProxy, type Resolution } from '../../../../src/agent/ingress/proxy-server.js';

describe('HTTP/1.1 body framing', () => {
  const chunked = Buffer.from(
    '4;name=value\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nExpires: never\r\n\r\nNEXT',
  );

  it('finds the end of a chunked body, trailers included, wherever the bytes are split', () => {
    const end = chunked.length - 'NEXT'.length;
    for (let split = 1; split < chunked.length; split++) {
      const framing = BodyFraming.chunked();
      let taken = framing.consume(chunked.subarray(0, split), 0);
      if (!framing.done) taken += framing.consume(chunked.subarray(split), 0);
      expect(framing.failed).toBe(false);
      expect(framing.done).toBe(true);
      expect(taken).toBe(end);
    }
  });

  it('refuses a chunk size that is not hexadecimal, and counts a Content-Length down', () => {
    const broken = BodyFraming.chunked();
    broken.consume(Buffer.from('zz\r\n'), 0);
    expect(broken.failed).toBe(true);
    const length = BodyFraming.length(5);
    expect(length.consume(Buffer.from('abc'), 0)).toBe(3);
    expect(length.consume(Buffer.from('deNEXT'), 0)).toBe(2);
    expect(length.done).toBe(true);
    expect(BodyFraming.length(0).done).toBe(true);
  });
});

describe('HTTP/1.1 request heads', () => {
  it.each([
    [
      'both lengths (request smuggling)',
      'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked',
    ],
    ['two different lengths', 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4'],
    ['a length that is no number', 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3x'],
    ['a transfer coding not ending in chunked', 'POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip'],
    ['no Host in HTTP/1.1', 'GET / HTTP/1.1\r\nAccept: */*'],
    ['two Hosts', 'GET / HTTP/1.1\r\nHost: a\r\nHost: b'],
    ['a header name with a space', 'GET / HTTP/1.1\r\nHost: a\r\nBad Name: x'],
    ['a control character in a value', 'GET / HTTP/1.1\r\nHost: a\r\nX: a\u0001b'],
    ['a folded header line', 'GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b'],
    ['no version', 'GET /'],
  ])('refuses %s with 400', (_case, head) => {
    expect(parseRequestHead(head)).toBe(400);
  });

  it('keeps the other headers as they came, and reads the connection options', () => {
    const head = parseRequestHead(
      'GET /a?b HTTP/1.1\r\nHost: site.test\r\nAccept: text/plain\r\nConnection: close\r\nX-Forwarded-For: 10.0.0.1\r\nAccept: text/html',
    );
    expect(head).toMatchObject({
      method: 'GET',
      target: '/a?b',
      host: 'site.test',
      passed: 'Accept: text/plain\r\nAccept: text/html\r\n',
      forwardedFor: '10.0.0.1',
      close: true,
      upgrade: false,
    });
  });
});

describe('ingress proxy over HTTP/1.1', () => {
  const backends: http.Server[] = [];
  const ports: number[] = [];
  /** Connections each backend accepted. */
  const accepted = [0, 0];
  let chattyConnections = 0;
  const extraServers: net.Server[] = [];
  let proxy: IngressProxy;
  let proxyPort = 0;

  beforeAll(async () => {
    for (const index of [0, 1]) {
      const backend = http.createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const body = Buffer.concat(chunks).toString();
          if (request.url === '/chunked') {
            // No length: Node.js sends it chunked, with a trailer.
            response.writeHead(200, { trailer: 'x-sum' });
            response.write('part one, ');
            response.write('part two');
            response.addTrailers({ 'x-sum': 'ok' });
            response.end();
            return;
          }
          if (request.url === '/large') {
            // The request's body back, twice: more than the sockets buffer, so both ways wait.
            response.setHeader('content-length', body.length * 2);
            response.write(body);
            response.end(body);
            return;
          }
          if (request.url === '/empty') {
            response.writeHead(204).end();
            return;
          }
          if (request.url === '/until-close') {
            // An HTTP/1.0-style answer: no length, the body ends with the connection.
            const socket = response.socket!;
            socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it');
            return;
          }
          response.setHeader('content-type', 'text/plain');
          response.end(
            `backend ${index} ${request.method} ${request.url} version=${request.httpVersion} body=${body}`,
          );
        });
      });
      backend.on('connection', () => accepted[index]!++);
      await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
      backends.push(backend);
      ports.push((backend.address() as AddressInfo).port);
    }
    // A raw backend that, after each answer, sends bytes out of turn on the idle connection.
    const chatty = net.createServer((socket) => {
      const connection = ++chattyConnections;
      socket.on('data', () => {
        const body = `connection ${connection}`;
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        setTimeout(() => socket.write('out of turn'), 50);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => chatty.listen(0, '127.0.0.1', resolve));
    extraServers.push(chatty);
    const chattyPort = (chatty.address() as AddressInfo).port;
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    proxy = new IngressProxy({
      bindAddress: '127.0.0.1',
      httpPort: 0,
      httpsPort: 0,
      defaultContext: defaultSecureContext(),
      secureContext: () => undefined,
      resolve: (host, path): Resolution => {
        if (path.startsWith('/nothing')) return { kind: 'not-found' };
        if (host === 'down.test') return { kind: 'backend', host: '127.0.0.1', port: closedPort };
        if (host === 'chatty.test') return { kind: 'backend', host: '127.0.0.1', port: chattyPort };
        return { kind: 'backend', host: '127.0.0.1', port: ports[host === 'two.test' ? 1 : 0]! };
      },
    });
    proxyPort = (await proxy.listen()).http;
  });

  afterAll(async () => {
    await proxy.close();
    for (const server of extraServers) await new Promise((resolve) => server.close(resolve));
    for (const backend of backends) {
      backend.closeAllConnections();
      await new Promise((resolve) => backend.close(resolve));
    }
  });

  /** Writes `text` on a new connection and collects what comes back until the proxy closes it. */
  function exchange(text: string | readonly string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(proxyPort, '127.0.0.1');
      const received: Buffer[] = [];
      socket.on('data', (data: Buffer) => received.push(data));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(received).toString('latin1')));
      void (async () => {
        for (const part of typeof text === 'string' ? [text] : text) {
          socket.write(part);
          await new Promise((wait) => setTimeout(wait, 20));
        }
      })();
    });
  }

  it('routes each request of a keep-alive connection by its own host, pipelined or not', async () => {
    const replies = await exchange([
      'GET /first HTTP/1.1\r\nHost: one.test\r\n\r\nGET /second HTTP/1.1\r\nHost: two.test\r\n\r\n',
      'POST /third HTTP/1.1\r\nHost: two.test\r\nContent-Length: 5\r\n\r\nhel',
      'lo',
      'GET /last HTTP/1.1\r\nHost: one.test\r\nConnection: close\r\n\r\n',
    ]);
    const bodies = replies.split('HTTP/1.1 200 OK').slice(1);
    expect(bodies).toHaveLength(4);
    expect(bodies[0]).toContain('backend 0 GET /first version=1.1 body=');
    expect(bodies[1]).toContain('backend 1 GET /second');
    expect(bodies[2]).toContain('backend 1 POST /third version=1.1 body=hello');
    expect(bodies[3]).toContain('backend 0 GET /last');
    expect(bodies[3]).toContain('Connection: close');
    expect(replies).not.toMatch(/keep-alive/i);
  });

  it('forwards a chunked request body and passes a chunked answer with its trailer through', async () => {
    const reply = await exchange(
      'POST /chunked HTTP/1.1\r\nHost: one.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
    );
    expect(reply).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(reply).toContain('Transfer-Encoding: chunked');
    expect(reply).toContain('part one, ');
    expect(reply).toContain('x-sum: ok');
    // Through Node.js's client, which decodes it.
    const decoded = await new Promise<string>((resolve, reject) => {
      const request = http.request(
        { port: proxyPort, host: '127.0.0.1', path: '/', method: 'POST', headers: { host: 'two.test' } },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve(text));
        },
      );
      request.on('error', reject);
      request.write('streamed ');
      setTimeout(() => request.end('body'), 20);
    });
    expect(decoded).toBe('backend 1 POST / version=1.1 body=streamed body');
  });

  it('streams large bodies both ways through the backpressure of both connections', async () => {
    const sent = 'x'.repeat(4 * 1024 * 1024);
    const received = await new Promise<number>((resolve, reject) => {
      const request = http.request(
        { port: proxyPort, host: '127.0.0.1', path: '/large', method: 'PUT', headers: { host: 'one.test' } },
        (response) => {
          let length = 0;
          response.on('data', (chunk: Buffer) => (length += chunk.length));
          response.on('end', () => resolve(length));
        },
      );
      request.on('error', reject);
      request.end(sent);
    });
    expect(received).toBe(sent.length * 2);
  });

  it('reuses backend connections across client connections', async () => {
    const before = accepted[1]!;
    for (let i = 0; i < 5; i++) {
      expect(await exchange('GET /again HTTP/1.1\r\nHost: two.test\r\nConnection: close\r\n\r\n')).toContain(
        'backend 1 GET /again',
      );
    }
    expect(accepted[1]! - before).toBeLessThanOrEqual(1);
  });

  it('drops a pooled backend connection the backend closed while idle', async () => {
    backends[0]!.keepAliveTimeout = 100;
    try {
      const request = 'GET /idle HTTP/1.1\r\nHost: one.test\r\nConnection: close\r\n\r\n';
      expect(await exchange(request)).toContain('backend 0 GET /idle');
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await exchange(request)).toContain('backend 0 GET /idle');
    } finally {
      backends[0]!.keepAliveTimeout = 5_000;
    }
  });

  it('drops a pooled backend connection that sends bytes while idle', async () => {
    const request = 'GET / HTTP/1.1\r\nHost: chatty.test\r\nConnection: close\r\n\r\n';
    expect(await exchange(request)).toMatch(/^HTTP\/1\.1 200 OK\r\n.*\r\n\r\nconnection 1$/s);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The first connection spoke out of turn: a reused one would have its bytes read as the answer.
    expect(await exchange(request)).toMatch(/^HTTP\/1\.1 200 OK\r\n.*\r\n\r\nconnection 2$/s);
  });

  it('knows bodiless answers (HEAD, 204) and ones delimited by the backend closing', async () => {
    const replies = await exchange(
      'HEAD /head HTTP/1.1\r\nHost: one.test\r\n\r\nGET /empty HTTP/1.1\r\nHost: one.test\r\n\r\nGET /until-close HTTP/1.1\r\nHost: one.test\r\n\r\n',
    );
    const [head, empty, closing] = replies.split(/(?=HTTP\/1\.1 )/);
    // The HEAD answer's head only (no body), then the 204's, then the last one read to the close.
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n.*\r\n\r\n$/s);
    expect(empty).toMatch(/^HTTP\/1\.1 204 No Content\r\n.*\r\n\r\n$/s);
    expect(closing).toBeDefined();
    expect(replies).toMatch(
      /HTTP\/1\.1 200 OK\r\nContent-Type: text\/plain\r\nConnection: close\r\n\r\nall of it$/,
    );
  });

  it('answers HTTP/1.0 once per connection, sent on as HTTP/1.0', async () => {
    const reply = await exchange('GET /old HTTP/1.0\r\nHost: one.test\r\n\r\n');
    expect(reply).toContain('Connection: close');
    expect(reply).toContain('backend 0 GET /old version=1.0');
  });

  it("closes its side once an answer with Connection: close is sent, not at the client's FIN", async () => {
    const socket = net.connect({ port: proxyPort, host: '127.0.0.1', allowHalfOpen: true });
    let reply = '';
    socket.on('data', (data: Buffer) => {
      reply += data.toString('latin1');
    });
    const failed = new Promise<string | undefined>((resolve) => {
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
      socket.once('close', () => resolve(undefined));
    });
    socket.write('GET /once HTTP/1.1\r\nHost: one.test\r\nConnection: close\r\n\r\n');
    await new Promise((resolve) => socket.once('end', resolve));
    expect(reply).toContain('backend 0 GET /once');
    // Still open on this side: bytes sent now meet a closed socket (reset, then a failed write),
    // not a half-open one that reads and drops them until this side ends.
    const writes = setInterval(() => socket.write('late'), 50);
    const code = await Promise.race([failed, new Promise((resolve) => setTimeout(resolve, 2_000, 'open'))]);
    clearInterval(writes);
    socket.destroy();
    expect(['ECONNRESET', 'EPIPE']).toContain(code);
  });

  it("reads past a refused request's body and serves the next one", async () => {
    const replies = await exchange(
      'POST /nothing HTTP/1.1\r\nHost: one.test\r\nContent-Length: 4\r\n\r\nbodyGET /after HTTP/1.1\r\nHost: one.test\r\nConnection: close\r\n\r\n',
    );
    expect(replies).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(replies).toContain('<title>404 Not Found</title>');
    expect(replies).toContain('backend 0 GET /after');
  });

  it('answers 400 to a bad request, 431 to an oversized head and 502 when the backend is down', async () => {
    expect(
      await exchange('GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n'),
    ).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    expect(await exchange(`GET / HTTP/1.1\r\nHost: a\r\nX: ${'y'.repeat(20_000)}\r\n\r\n`)).toBe(
      'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
    );
    const down = await exchange('GET / HTTP/1.1\r\nHost: down.test\r\n\r\n');
    expect(down).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
    expect(down).toContain('<title>502 Bad Gateway</title>');
  });
});
