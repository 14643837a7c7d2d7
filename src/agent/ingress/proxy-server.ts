// The ingress controller's data plane (ingress-nginx's nginx): plain HTTP/1.1 on one port, TLS
// on another with the certificate chosen by SNI and ALPN offering h2 and http/1.1. Requests are
// forwarded to the backend over HTTP/1.1 with keep-alive, bodies streamed both ways; WebSocket
// and other upgrades are joined byte for byte (src/api/upgrade-proxy.ts). Answers of its own are
// ingress-nginx's: 404 when no rule matches, 503 when the backend service is missing or has no
// port, 502 when the backend cannot be reached.
import http from 'node:http';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import tls, { type SecureContext } from 'node:tls';
import { joinUpgraded, requestHead } from '../../api/upgrade-proxy.js';

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

// Connection-level headers of one hop (RFC 9110 7.6.1), never forwarded; HTTP/2 refuses them.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authenticate',
  'proxy-authorization',
]);

function statusPage(code: number, text: string): string {
  return `<html>\r\n<head><title>${code} ${text}</title></head>\r\n<body>\r\n<center><h1>${code} ${text}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

const STATUS_TEXT: Record<number, string> = {
  404: 'Not Found',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
};

type AnyRequest = http.IncomingMessage | http2.Http2ServerRequest;
type AnyResponse = http.ServerResponse | http2.Http2ServerResponse;

export class IngressProxy {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 256, noDelay: true });
  private readonly httpServer: http.Server;
  private readonly tlsServer: tls.Server;
  private readonly h2Server: http2.Http2Server;
  /** Every open client connection (TLS ones included), ended at close. */
  private readonly connections = new Set<Duplex>();

  constructor(private readonly options: IngressProxyOptions) {
    const onRequest = (request: AnyRequest, response: AnyResponse, scheme: string) =>
      this.forward(request, response, scheme);
    this.httpServer = http.createServer((request, response) => onRequest(request, response, 'http'));
    this.httpServer.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) =>
      this.upgrade(request, socket, head),
    );
    // HTTP/1.1 over TLS: the same server fed the decrypted connection; X-Forwarded-Proto from the socket.
    const httpsServer = http.createServer((request, response) => onRequest(request, response, 'https'));
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
    for (const server of [this.httpServer, this.tlsServer]) {
      server.on('connection', (socket: net.Socket) => {
        this.connections.add(socket);
        socket.once('close', () => this.connections.delete(socket));
      });
    }
    this.tlsServer.on('secureConnection', (socket: tls.TLSSocket) => {
      if (socket.alpnProtocol === 'h2') this.h2Server.emit('connection', socket);
      else httpsServer.emit('connection', socket);
    });
    this.tlsServer.on('tlsClientError', () => undefined);
    this.httpServer.on('clientError', (_error, socket: Duplex) => socket.destroy());
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
    this.agent.destroy();
    await Promise.all([
      new Promise((resolve) => this.httpServer.close(resolve)),
      new Promise((resolve) => this.tlsServer.close(resolve)),
      new Promise((resolve) => this.h2Server.close(resolve)),
    ]);
  }

  private forward(request: AnyRequest, response: AnyResponse, scheme: string): void {
    const host = requestHost(request);
    const target = this.options.resolve(host, request.url ?? '/');
    if (target.kind !== 'backend') {
      answer(response, target.kind === 'not-found' ? 404 : 503);
      request.resume();
      return;
    }
    const headers: http.OutgoingHttpHeaders = { host };
    for (const [name, value] of Object.entries(request.headers)) {
      if (name.startsWith(':') || HOP_BY_HOP.has(name) || name === 'host' || value === undefined) continue;
      headers[name] = value;
    }
    const client = request.socket.remoteAddress ?? '';
    const forwardedFor = request.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = forwardedFor ? `${String(forwardedFor)}, ${client}` : client;
    headers['x-forwarded-host'] = host;
    headers['x-forwarded-proto'] = scheme;
    headers['x-real-ip'] = client;
    const upstream = http.request(
      {
        host: target.host,
        port: target.port,
        method: request.method,
        path: request.url,
        headers,
        agent: this.agent,
      },
      (reply) => {
        const replyHeaders: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(reply.headers)) {
          if (!HOP_BY_HOP.has(name) && value !== undefined) replyHeaders[name] = value;
        }
        response.writeHead(reply.statusCode ?? 502, replyHeaders);
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
    (request as NodeJS.ReadableStream).pipe(upstream);
  }

  private upgrade(request: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const host = requestHost(request);
    const target = this.options.resolve(host, request.url ?? '/');
    if (target.kind !== 'backend') {
      const code = target.kind === 'not-found' ? 404 : 503;
      const body = statusPage(code, STATUS_TEXT[code]!);
      socket.end(
        `HTTP/1.1 ${code} ${STATUS_TEXT[code]}\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
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
  const body = statusPage(code, STATUS_TEXT[code]!);
  response.writeHead(code, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
