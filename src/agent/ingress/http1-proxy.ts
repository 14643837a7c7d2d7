// The ingress proxy's plain HTTP/1.1 path (ingress-nginx's nginx `proxy_pass` with upstream
// keep-alive): the request head is read and checked here (the checks Node.js's llhttp makes:
// request line, header names and values, Host, Content-Length against Transfer-Encoding), the
// hop's headers are replaced, and everything else passes as the bytes it is: bodies in both
// directions are only followed (body-framing.ts) to know where a message ends, so the client's
// connection can carry its next request and the backend's goes back to the pool. No request or
// response objects, header maps or re-chunking per request: on a new connection per request this
// is what the proxy costs (bench:ingress-proxy). HTTP/1.0 clients are forwarded as HTTP/1.0 with
// the backend connection closed after, so a chunked answer never reaches them. Upgrades
// (WebSocket) are joined byte for byte (src/api/upgrade-proxy.ts).
import net from 'node:net';
import { joinUpgraded, requestHead } from '../../api/upgrade-proxy.js';
import { BodyFraming } from './body-framing.js';
import type { Resolution } from './proxy-server.js';

// Connection-level headers of one hop (RFC 9110 7.6.1), never forwarded; HTTP/2 refuses them.
export const HOP_BY_HOP = new Set([
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

/** Request headers the proxy sets itself (the client's X-Forwarded-For is extended, not dropped). */
export const SET_HERE = new Set([
  'host',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
]);

export const STATUS_TEXT: Record<number, string> = {
  404: 'Not Found',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
};

/** ingress-nginx's page for its own answers. */
export function statusPage(code: number): string {
  const text = STATUS_TEXT[code] ?? '';
  return `<html>\r\n<head><title>${code} ${text}</title></head>\r\n<body>\r\n<center><h1>${code} ${text}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

/** A whole answer carrying `statusPage(code)`, saying the connection closes after it when `close`. */
export function statusResponse(code: number, close: boolean): string {
  const page = statusPage(code);
  return `HTTP/1.1 ${code} ${STATUS_TEXT[code]}\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(page)}\r\n${
    close ? 'Connection: close\r\n' : ''
  }\r\n${page}`;
}

/** Node.js's --max-http-header-size default: a longer request head is answered 431. */
const MAX_REQUEST_HEAD = 16 * 1024;
/** A backend's response head longer than this is a bad gateway. */
const MAX_RESPONSE_HEAD = 64 * 1024;
/** Node.js's server defaults: an idle keep-alive connection closed after 5 s, a head due in 60 s. */
const KEEP_ALIVE_MS = 5_000;
const HEADERS_MS = 60_000;
const HEAD_END = Buffer.from('\r\n\r\n');
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\S+) HTTP\/1\.([01])$/;
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: |$)/;
const DECIMAL = /^\d+$/;

/** Control characters other than horizontal tab, refused in targets and header values as llhttp does. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 32 && code !== 9) || code === 127) return true;
  }
  return false;
}

/** The exchange a backend connection's events go to while it holds the connection. */
export interface BackendUser {
  onBackendData(chunk: Buffer): void;
  onBackendClose(): void;
}

/**
 * A keep-alive connection to a backend. Its listeners are set once, at connect, and pass its
 * events to the exchange holding it: no listeners added and removed per request (a 'data'
 * listener added to a stream also schedules its resumption). While it idles in the pool, the
 * backend closing it (its keep-alive timeout) or speaking out of turn ends it.
 */
export class BackendConnection {
  user: BackendUser | undefined;
  /** Called when the connection ends while idle, to take it out of the pool. */
  onIdleEnd: (() => void) | undefined;

  constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      if (this.user) this.user.onBackendData(chunk);
      else this.endIdle();
    });
    socket.on('end', () => {
      if (!this.user) this.endIdle();
    });
    socket.on('close', () => {
      if (this.user) this.user.onBackendClose();
      else this.endIdle();
    });
    socket.on('error', () => undefined);
  }

  private endIdle(): void {
    this.onIdleEnd?.();
    this.onIdleEnd = undefined;
    this.socket.destroy();
  }
}

/** Idle keep-alive connections to backends, newest first out, dropped when the backend closes them. */
export class BackendPool {
  private readonly idle = new Map<string, BackendConnection[]>();

  constructor(private readonly maxIdlePerBackend = 256) {}

  /** A connection to the backend (idle or new) whose events go to `user` until it is released. */
  acquire(host: string, port: number, user: BackendUser): BackendConnection {
    const connections = this.idle.get(`${host}:${port}`);
    let connection = connections?.pop();
    while (connection?.socket.destroyed) connection = connections?.pop();
    if (!connection) connection = new BackendConnection(net.connect({ host, port, noDelay: true }));
    connection.onIdleEnd = undefined;
    connection.user = user;
    return connection;
  }

  release(host: string, port: number, connection: BackendConnection): void {
    connection.user = undefined;
    const key = `${host}:${port}`;
    const connections = this.idle.get(key) ?? [];
    if (connections.length >= this.maxIdlePerBackend || connection.socket.destroyed) {
      connection.socket.destroy();
      return;
    }
    connections.push(connection);
    this.idle.set(key, connections);
    connection.onIdleEnd = () => {
      const at = connections.indexOf(connection);
      if (at >= 0) connections.splice(at, 1);
    };
  }

  destroy(): void {
    for (const connections of this.idle.values())
      for (const connection of connections) connection.socket.destroy();
    this.idle.clear();
  }
}

export interface Http1ProxyOptions {
  resolve(host: string, path: string): Resolution;
  readonly scheme: string;
  readonly pool: BackendPool;
}

/** A parsed request head; `passed` holds the header lines that go on unchanged. */
interface RequestHead {
  readonly method: string;
  readonly target: string;
  readonly minor: number;
  readonly host: string;
  readonly passed: string;
  /** The head's header lines as they came (checked), read again only for an upgrade. */
  readonly headerLines: readonly string[];
  readonly forwardedFor: string;
  readonly contentLength: number | undefined;
  readonly chunked: boolean;
  readonly close: boolean;
  readonly upgrade: boolean;
}

/** The head of `text` (without its final CRLF CRLF), or the status to refuse it with. */
export function parseRequestHead(text: string): RequestHead | 400 {
  // Empty lines before a request line are skipped (RFC 9112 2.2).
  const lines = (text.charCodeAt(0) === 13 ? text.replace(/^(?:\r\n)+/, '') : text).split('\r\n');
  const line = REQUEST_LINE.exec(lines[0]!);
  if (!line || hasControlCharacter(line[2]!)) return 400;
  const minor = Number(line[3]);
  let host: string | undefined;
  let passed = '';
  let forwardedFor = '';
  let contentLength: number | undefined;
  let transferEncoding: string | undefined;
  // HTTP/1.0 clients get one answer per connection (and the backend an HTTP/1.0 request).
  let close = minor === 0;
  let connectionUpgrade = false;
  let upgradeTo = false;
  for (let i = 1; i < lines.length; i++) {
    const header = lines[i]!;
    const colon = header.indexOf(':');
    if (colon <= 0) return 400;
    const name = header.slice(0, colon);
    if (!TOKEN.test(name)) return 400;
    const value = header.slice(colon + 1).trim();
    if (hasControlCharacter(value)) return 400;
    const lower = name.toLowerCase();
    switch (lower) {
      case 'host':
        if (host !== undefined) return 400;
        host = value;
        continue;
      case 'content-length': {
        if (!DECIMAL.test(value)) return 400;
        const length = Number(value);
        if (contentLength !== undefined && contentLength !== length) return 400;
        contentLength = length;
        continue;
      }
      case 'transfer-encoding':
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
        continue;
      case 'connection':
        for (const token of value.split(',')) {
          const option = token.trim().toLowerCase();
          if (option === 'close') close = true;
          else if (option === 'upgrade') connectionUpgrade = true;
        }
        continue;
      case 'upgrade':
        upgradeTo = value !== '';
        continue;
      case 'x-forwarded-for':
        forwardedFor = forwardedFor ? `${forwardedFor}, ${value}` : value;
        continue;
    }
    if (HOP_BY_HOP.has(lower) || SET_HERE.has(lower)) continue;
    passed += `${header}\r\n`;
  }
  if (host === undefined && minor === 1) return 400;
  let chunked = false;
  if (transferEncoding !== undefined) {
    // Both lengths is how requests are smuggled; a request body must end in chunked (RFC 9112 6.1).
    const codings = transferEncoding.split(',');
    if (contentLength !== undefined || codings.at(-1)!.trim().toLowerCase() !== 'chunked') return 400;
    chunked = true;
  }
  return {
    method: line[1]!,
    target: line[2]!,
    minor,
    host: host ?? '',
    passed,
    headerLines: lines.slice(1),
    forwardedFor,
    contentLength,
    chunked,
    close,
    upgrade: connectionUpgrade && upgradeTo,
  };
}

function ignoreError(): void {}

function destroyOnTimeout(this: net.Socket): void {
  this.destroy();
}

/** One client connection: its requests one at a time, each to the backend its host and path name. */
export class Http1Connection implements BackendUser {
  private buffered: Buffer | undefined;
  private request: RequestHead | undefined;
  private requestBody: BodyFraming | undefined;
  private backend: BackendConnection | undefined;
  private target: { host: string; port: number } | undefined;
  private responseHead: Buffer | undefined;
  private responseBody: BodyFraming | undefined;
  /** Bytes of the answer already written to the client. */
  private answered = false;
  private closeAfter = false;
  /** The backend's connection can carry another request once this answer is complete. */
  private reuseBackend = true;
  private clientEnded = false;
  private remoteAddress: string | undefined;

  constructor(
    private readonly client: net.Socket,
    private readonly options: Http1ProxyOptions,
  ) {
    client.on('data', this.onClientData);
    client.on('end', this.onClientEnd);
    client.on('close', this.onClientClose);
    client.on('error', ignoreError);
    client.on('timeout', destroyOnTimeout);
    client.setTimeout(HEADERS_MS);
  }

  private readonly onClientData = (chunk: Buffer): void => {
    if (this.request) {
      this.forwardRequestBody(chunk);
      return;
    }
    this.buffered = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
    this.nextRequest();
  };

  private readonly onClientEnd = (): void => {
    this.clientEnded = true;
    this.closeAfter = true;
    // Ending twice makes (and drops) an error with its stack: once per closed connection.
    if (!this.request && !this.client.writableEnded) this.client.end();
  };

  private readonly onClientClose = (): void => {
    if (this.backend) {
      this.detachBackend();
      this.backend.socket.destroy();
      this.backend = undefined;
    }
    this.request = undefined;
  };

  /** Starts the request whose head is buffered, if all of it is. */
  private nextRequest(): void {
    const buffered = this.buffered;
    if (!buffered) return;
    const end = buffered.indexOf(HEAD_END);
    if (end < 0 || end > MAX_REQUEST_HEAD) {
      if (buffered.length > MAX_REQUEST_HEAD) this.refuse(431, 'Request Header Fields Too Large');
      return;
    }
    const head = parseRequestHead(buffered.toString('latin1', 0, end));
    const rest = buffered.subarray(end + 4);
    this.buffered = undefined;
    if (head === 400) {
      this.refuse(400, 'Bad Request');
      return;
    }
    if (head.method === 'CONNECT') {
      this.refuse(400, 'Bad Request');
      return;
    }
    const target = this.options.resolve(head.host, head.target);
    if (head.upgrade) {
      this.upgrade(head, target, rest);
      return;
    }
    this.client.setTimeout(0);
    this.request = head;
    this.requestBody = head.chunked ? BodyFraming.chunked() : BodyFraming.length(head.contentLength ?? 0);
    this.closeAfter = head.close || this.clientEnded;
    this.answered = false;
    if (target.kind !== 'backend') {
      // The body is read and dropped; the page answers at once.
      this.ownAnswer(target.kind === 'not-found' ? 404 : 503);
      this.forwardRequestBody(rest);
      return;
    }
    this.target = { host: target.host, port: target.port };
    this.backend = this.options.pool.acquire(target.host, target.port, this);
    const backend = this.backend.socket;
    this.remoteAddress ??= this.client.remoteAddress ?? '';
    const client = this.remoteAddress;
    const length =
      head.contentLength !== undefined
        ? `Content-Length: ${head.contentLength}\r\n`
        : head.chunked
          ? 'Transfer-Encoding: chunked\r\n'
          : '';
    backend.cork();
    backend.write(
      `${head.method} ${head.target} HTTP/1.${head.minor}\r\nHost: ${head.host}\r\n${head.passed}${length}${
        head.minor === 0 ? 'Connection: close\r\n' : ''
      }X-Forwarded-For: ${head.forwardedFor ? `${head.forwardedFor}, ${client}` : client}\r\nX-Forwarded-Host: ${
        head.host
      }\r\nX-Forwarded-Proto: ${this.options.scheme}\r\nX-Real-IP: ${client}\r\n\r\n`,
      'latin1',
    );
    this.forwardRequestBody(rest);
    backend.uncork();
  }

  /** Request body bytes to the backend (or dropped); what follows the body waits for its turn. */
  private forwardRequestBody(chunk: Buffer): void {
    const framing = this.requestBody!;
    const taken = framing.consume(chunk, 0);
    if (framing.failed) {
      this.client.destroy();
      return;
    }
    // Without a backend (the proxy answered itself) the body is only read past.
    if (
      taken > 0 &&
      this.backend &&
      !this.backend.socket.write(taken === chunk.length ? chunk : chunk.subarray(0, taken))
    ) {
      this.client.pause();
      this.backend.socket.once('drain', () => {
        if (this.request) this.client.resume();
      });
    }
    if (taken < chunk.length) {
      // A pipelined request: read once this one is answered.
      this.buffered = this.buffered
        ? Buffer.concat([this.buffered, chunk.subarray(taken)])
        : chunk.subarray(taken);
      this.client.pause();
    }
    if (framing.done && !this.backend && this.request && this.answered) this.finish(false);
  }

  readonly onBackendData = (chunk: Buffer): void => {
    if (this.responseBody) {
      this.forwardResponseBody(chunk, 0);
      return;
    }
    const buffered = this.responseHead ? Buffer.concat([this.responseHead, chunk]) : chunk;
    this.responseHead = buffered;
    const end = buffered.indexOf(HEAD_END);
    if (end < 0) {
      if (buffered.length > MAX_RESPONSE_HEAD) this.backendFailed();
      return;
    }
    this.responseHead = undefined;
    const head = this.responseHeadFor(buffered.toString('latin1', 0, end));
    if (!head) {
      this.backendFailed();
      return;
    }
    this.client.cork();
    this.client.write(head, 'latin1');
    this.answered = true;
    if (this.responseBody) this.forwardResponseBody(buffered, end + 4);
    else if (end + 4 < buffered.length) this.onBackendData(buffered.subarray(end + 4));
    this.client.uncork();
  };

  /**
   * The head to send the client, with the response's framing set up; an interim (1xx) head
   * leaves the framing unset so the final head is read next. Undefined for a malformed head.
   */
  private responseHeadFor(text: string): string | undefined {
    const lines = text.split('\r\n');
    const status = STATUS_LINE.exec(lines[0]!);
    if (!status) return undefined;
    const code = Number(status[1]);
    if (code === 101) return undefined;
    let out = `${lines[0]}\r\n`;
    let contentLength: number | undefined;
    let chunked = false;
    let backendCloses = false;
    for (let i = 1; i < lines.length; i++) {
      const header = lines[i]!;
      const colon = header.indexOf(':');
      if (colon <= 0) return undefined;
      const lower = header.slice(0, colon).toLowerCase();
      const value = header.slice(colon + 1).trim();
      if (lower === 'content-length') {
        if (!DECIMAL.test(value)) return undefined;
        contentLength = Number(value);
      } else if (lower === 'transfer-encoding') {
        chunked = value.split(',').at(-1)!.trim().toLowerCase() === 'chunked';
        // The body passes as it is, chunks and all: its framing header goes with it.
        out += `${header}\r\n`;
        continue;
      } else if (lower === 'connection') {
        backendCloses ||= value
          .toLowerCase()
          .split(',')
          .some((token) => token.trim() === 'close');
      } else if (lower === 'trailer') {
        out += `${header}\r\n`;
        continue;
      }
      if (HOP_BY_HOP.has(lower)) continue;
      out += `${header}\r\n`;
    }
    if (code < 200) return `${out}\r\n`;
    const request = this.request!;
    const framing =
      request.method === 'HEAD' || code === 204 || code === 304
        ? BodyFraming.length(0)
        : chunked
          ? BodyFraming.chunked()
          : contentLength !== undefined
            ? BodyFraming.length(contentLength)
            : BodyFraming.untilClose();
    this.responseBody = framing;
    if (backendCloses || request.minor === 0) this.reuseBackend = false;
    if (framing.closeDelimited) this.closeAfter = true;
    if (this.closeAfter) out += 'Connection: close\r\n';
    return `${out}\r\n`;
  }

  private forwardResponseBody(chunk: Buffer, offset: number): void {
    const framing = this.responseBody!;
    const taken = framing.consume(chunk, offset);
    if (framing.failed) {
      this.client.destroy();
      return;
    }
    if (taken > 0) {
      const body = offset === 0 && taken === chunk.length ? chunk : chunk.subarray(offset, offset + taken);
      if (!this.client.write(body)) {
        const backend = this.backend!.socket;
        backend.pause();
        this.client.once('drain', () => backend.resume());
      }
    }
    // Bytes past the answer: the backend is out of step, never reused.
    if (offset + taken < chunk.length) this.reuseBackend = false;
    if (framing.done) this.finish(true);
  }

  readonly onBackendClose = (): void => {
    if (this.responseBody?.closeDelimited) {
      this.backend = undefined;
      this.finish(false);
      return;
    }
    this.backendFailed();
  };

  /** The backend could not be reached or broke off: 502 when nothing was answered yet. */
  private backendFailed(): void {
    const backend = this.backend;
    if (backend) {
      this.detachBackend();
      backend.socket.destroy();
      this.backend = undefined;
    }
    if (this.answered) {
      this.client.destroy();
      return;
    }
    this.closeAfter = true;
    this.ownAnswer(502);
  }

  /** One of the proxy's own pages; the exchange ends once the request body is read too. */
  private ownAnswer(code: number): void {
    this.client.write(statusResponse(code, this.closeAfter), 'latin1');
    this.answered = true;
    this.responseBody = undefined;
    if (this.closeAfter) {
      this.request = undefined;
      this.client.end();
    }
  }

  /** The answer is complete: the backend goes back to the pool and the next request is read. */
  private finish(fromBackend: boolean): void {
    const backend = this.backend;
    if (backend) {
      this.detachBackend();
      if (fromBackend && this.reuseBackend && this.requestBody?.done) {
        this.options.pool.release(this.target!.host, this.target!.port, backend);
      } else backend.socket.destroy();
      this.backend = undefined;
    }
    // A request body not read to its end leaves the client's connection out of step.
    const bodyRead = this.requestBody?.done === true;
    const close = this.closeAfter || !bodyRead;
    this.request = undefined;
    this.requestBody = undefined;
    this.responseBody = undefined;
    this.reuseBackend = true;
    if (close) {
      this.client.off('data', this.onClientData);
      if (bodyRead && !this.buffered && !this.clientEnded) {
        // Nothing more is expected from the client (nginx's lingering close is off then too):
        // the socket closes once the answer is handed to the kernel, not at the client's FIN.
        // Mostly the kernel took it at once: closing sends the FIN after it, no shutdown first.
        const client = this.client;
        client.uncork();
        if (client.writableLength === 0) client.destroy();
        else client.end(() => client.destroy());
        return;
      }
      // What the client still sends is read and dropped until it closes.
      this.client.end();
      return;
    }
    this.client.setTimeout(this.buffered ? HEADERS_MS : KEEP_ALIVE_MS);
    this.client.resume();
    this.nextRequest();
  }

  private detachBackend(): void {
    if (this.backend) this.backend.user = undefined;
    this.responseHead = undefined;
  }

  private refuse(code: number, text: string): void {
    this.client.off('data', this.onClientData);
    this.client.end(`HTTP/1.1 ${code} ${text}\r\nConnection: close\r\n\r\n`);
  }

  private upgrade(head: RequestHead, target: Resolution, rest: Buffer): void {
    const client = this.client;
    client.pause();
    client.off('data', this.onClientData);
    client.off('end', this.onClientEnd);
    client.setTimeout(0);
    if (target.kind !== 'backend') {
      client.end(statusResponse(target.kind === 'not-found' ? 404 : 503, true));
      return;
    }
    const backend = net.connect({ host: target.host, port: target.port });
    const headers: Record<string, string[]> = {};
    for (const header of head.headerLines) {
      const colon = header.indexOf(':');
      const lower = header.slice(0, colon).toLowerCase();
      const value = header.slice(colon + 1).trim();
      if (headers[lower]) headers[lower].push(value);
      else headers[lower] = [value];
    }
    headers['x-forwarded-for'] = [client.remoteAddress ?? ''];
    void joinUpgraded(client, backend, requestHead(head.method, head.target, head.host, headers), rest);
  }
}
