// The ingress controller's data plane (ingress-nginx's nginx): plain HTTP/1.1 on one port, served
// by the byte-level path of http1-proxy.ts; TLS on another with the certificate chosen by SNI and
// ALPN offering h2 and http/1.1, served by Node.js's HTTP servers. From those, requests are
// forwarded to the backend over HTTP/1.1 with keep-alive, headers taken from and passed on as raw
// lists (repeated ones kept apart, no header objects built per request), bodies streamed both
// ways and not piped at all when an HTTP/1.1 request has none; WebSocket
// and other upgrades are joined byte for byte (src/api/upgrade-proxy.ts). Answers of its own are
// ingress-nginx's: 404 when no rule matches, 503 when the backend service is missing or has no
// port, 502 when the backend cannot be reached.
import http from 'node:http';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import tls, { type SecureContext } from 'node:tls';
import { joinUpgraded, requestHead } from '../../api/upgrade-proxy.js';
import {
  BackendPool,
  HOP_BY_HOP,
  Http1Connection,
  SET_HERE,
  statusPage,
  statusResponse,
} from './http1-proxy.js';

/** Where a request for a host and path goes. */
export type Resolution =
  | { readonly kind: 'backend'; readonly host: string; readonly port: number }
  | { readonly kind: 'unavailable' }
  | { readonly kind: 'not-found' };

export interface IngressProxyOptions {
  /** Address the listeners bind (the node's, or every address). */
  readonly bindAddress: string;
  readonly httpPort: number;
  readonly httpsPort: number;
  resolve(host: string, path: string): Resolution;
  /** The certificate for an SNI name, or undefined for the default one. */
  secureContext(servername: string): SecureContext | undefined;
  readonly defaultContext: SecureContext;
}

type AnyRequest = http.IncomingMessage | http2.Http2ServerRequest;
type AnyResponse = http.ServerResponse | http2.Http2ServerResponse;

export class IngressProxy {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 256, noDelay: true });
  private readonly pool = new BackendPool();
  private readonly httpServer: net.Server;
  private readonly tlsServer: tls.Server;
  private readonly httpsServer: http.Server;
  private readonly h2Server: http2.Http2Server;
  /** Open plain and TLS connections, ended at close (the HTTPS server ends its own). */
  private readonly connections = new Set<Duplex>();

  constructor(private readonly options: IngressProxyOptions) {
    const onRequest = (request: AnyRequest, response: AnyResponse, scheme: string) =>
      this.forward(request, response, scheme);
    const http1 = { resolve: options.resolve, scheme: 'http', pool: this.pool };
    // Half-open as Node.js's HTTP server: a client may end its side and still read the answer.
    this.httpServer = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
      new Http1Connection(socket, http1);
    });
    // HTTP/1.1 over TLS: the same server fed the decrypted connection; X-Forwarded-Proto from the socket.
    const httpsServer = http.createServer((request, response) => onRequest(request, response, 'https'));
    this.httpsServer = httpsServer;
    httpsServer.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) =>
      this.upgrade(request, socket, head),
    );
    this.h2Server = http2.createServer({}, (request, response) => onRequest(request, response, 'https'));
    this.tlsServer = tls.createServer({
      ALPNProtocols: ['h2', 'http/1.1'],
      SNICallback: (servername, done) =>
        done(null, options.secureContext(servername) ?? options.defaultContext),
      secureContext: options.defaultContext,
    });
    this.tlsServer.on('connection', (socket: net.Socket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
    this.tlsServer.on('secureConnection', (socket: tls.TLSSocket) => {
      if (socket.alpnProtocol === 'h2') this.h2Server.emit('connection', socket);
      else httpsServer.emit('connection', socket);
    });
    this.tlsServer.on('tlsClientError', () => undefined);
    httpsServer.on('clientError', (_error, socket: Duplex) => socket.destroy());
  }

  /** Starts both listeners; resolves with the ports bound (0 in the options picks free ones). */
  async listen(): Promise<{ http: number; https: number }> {
    const bind = (server: net.Server, port: number) =>
      new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, this.options.bindAddress, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      });
    return {
      http: await bind(this.httpServer, this.options.httpPort),
      https: await bind(this.tlsServer, this.options.httpsPort),
    };
  }

  async close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    this.httpsServer.closeAllConnections();
    this.agent.destroy();
    this.pool.destroy();
    await Promise.all([
      new Promise((resolve) => this.httpServer.close(resolve)),
      new Promise((resolve) => this.tlsServer.close(resolve)),
      new Promise((resolve) => this.h2Server.close(resolve)),
    ]);
  }

  private forward(request: AnyRequest, response: AnyResponse, scheme: string): void {
    // One pass over the raw header list (no header object built): the host, what to pass on,
    // whether a body follows. HTTP/2 always streams its body (END_STREAM says when it ends).
    const h2 = !(request instanceof http.IncomingMessage);
    const raw = request.rawHeaders;
    const passed: string[] = ['Host', ''];
    let host = '';
    let forwardedFor = '';
    let cookies = '';
    let hasBody = h2;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      const value = raw[i + 1]!;
      const lower = name.toLowerCase();
      if (lower === ':authority') host = value;
      else if (lower === 'host') host ||= value;
      else if (lower === 'content-length' || lower === 'transfer-encoding') hasBody = true;
      else if (lower === 'x-forwarded-for') forwardedFor = forwardedFor ? `${forwardedFor}, ${value}` : value;
      // HTTP/2 may split cookies; an HTTP/1.1 backend gets them as one header (RFC 9113 8.2.3).
      else if (h2 && lower === 'cookie') cookies = cookies ? `${cookies}; ${value}` : value;
      if (lower.charCodeAt(0) === 58 /* : */ || HOP_BY_HOP.has(lower) || SET_HERE.has(lower)) continue;
      if (h2 && lower === 'cookie') continue;
      passed.push(name, value);
    }
    const target = this.options.resolve(host, request.url ?? '/');
    if (target.kind !== 'backend') {
      answer(response, target.kind === 'not-found' ? 404 : 503);
      request.resume();
      return;
    }
    passed[1] = host;
    if (cookies) passed.push('cookie', cookies);
    const client = request.socket.remoteAddress ?? '';
    passed.push(
      'X-Forwarded-For',
      forwardedFor ? `${forwardedFor}, ${client}` : client,
      'X-Forwarded-Host',
      host,
      'X-Forwarded-Proto',
      scheme,
      'X-Real-IP',
      client,
    );
    const upstream = http.request(
      {
        host: target.host,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: passed as unknown as http.OutgoingHttpHeaders,
        agent: this.agent,
      },
      (reply) => {
        const status = reply.statusCode ?? 502;
        if (h2) {
          const replyHeaders: http.OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(reply.headers)) {
            if (!HOP_BY_HOP.has(name) && value !== undefined) replyHeaders[name] = value;
          }
          response.writeHead(status, replyHeaders);
        } else {
          const rawReply = reply.rawHeaders;
          const replyHeaders: string[] = [];
          for (let i = 0; i < rawReply.length; i += 2) {
            if (!HOP_BY_HOP.has(rawReply[i]!.toLowerCase()))
              replyHeaders.push(rawReply[i]!, rawReply[i + 1]!);
          }
          (response as http.ServerResponse).writeHead(status, replyHeaders);
        }
        reply.pipe(response as NodeJS.WritableStream);
        reply.on('error', () => response.destroy());
      },
    );
    upstream.on('error', () => {
      if (!response.headersSent) answer(response, 502);
      else response.destroy();
    });
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    // An HTTP/1.1 request without Content-Length or Transfer-Encoding has no body (RFC 9112 6.3).
    if (hasBody) (request as NodeJS.ReadableStream).pipe(upstream);
    else upstream.end();
  }

  private upgrade(request: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const host = requestHost(request);
    const target = this.options.resolve(host, request.url ?? '/');
    if (target.kind !== 'backend') {
      socket.end(statusResponse(target.kind === 'not-found' ? 404 : 503, true));
      return;
    }
    const backend = net.connect({ host: target.host, port: target.port });
    const forwarded = { ...request.headers, 'x-forwarded-for': request.socket.remoteAddress ?? '' };
    void joinUpgraded(
      socket,
      backend,
      requestHead(request.method ?? 'GET', request.url ?? '/', host, forwarded),
      head,
    );
  }
}

function requestHost(request: AnyRequest): string {
  const authority = request.headers[':authority'];
  return (typeof authority === 'string' ? authority : undefined) ?? request.headers.host ?? '';
}

function answer(response: AnyResponse, code: number): void {
  const body = statusPage(code);
  response.writeHead(code, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
