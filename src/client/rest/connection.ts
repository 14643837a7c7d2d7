// One HTTP/2 session that multiplexes every request of a client, as client-go's transport does.
// A session the server closed (GOAWAY, socket end) is replaced on next use; a request the server
// provably did not process (refused stream, session gone before sending) is sent once more on
// the new session. Nothing else is retried.
import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  constants,
  type IncomingHttpHeaders,
  type IncomingHttpStatusHeader,
} from 'node:http2';
import { installLeanAsyncBind } from './lean-async-bind.js';

/**
 * nghttp2's buffer limit per session, in MB, for both ends (Node's default is 10). Past it a peer
 * refuses new streams with ENHANCE_YOUR_CALM; a busy client (a controller's burst of writes, an
 * informer's large list next to hundreds of requests) passes 10 MB in flight. Go's HTTP/2, which
 * kube-apiserver and client-go use, has no such cap; flow control still bounds each stream.
 */
export const HTTP2_SESSION_MEMORY_MB = 256;

/**
 * Flow-control windows this client grants the server, as Go's HTTP/2 transport (client-go)
 * grants them: 4 MiB per stream and 1 GiB per connection. HTTP/2's default, 64 KiB for both,
 * lets a watch receive only 64 KiB per round trip of WINDOW_UPDATE, shared by every watch on the
 * session: an informer then trails a busy apiserver by thousands of events.
 */
const STREAM_WINDOW_BYTES = 4 * 1024 * 1024;
const CONNECTION_WINDOW_BYTES = 1024 * 1024 * 1024;

export interface ConnectionOptions {
  /** Opens a new session: TLS to a remote apiserver, or h2c over an in-memory pair. */
  readonly connect: () => ClientHttp2Session;
  /** Sent with every request: user-agent, authorization. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Requests in flight at once; more wait their turn. Watches are not counted: they live for
   * minutes and are few (one per informer). Default 100.
   */
  readonly maxConcurrentRequests?: number;
}

export interface RequestSpec {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly contentType?: string;
  readonly body?: string;
}

export type ResponseHeaders = IncomingHttpHeaders & IncomingHttpStatusHeader;

export interface TextResponse {
  readonly status: number;
  readonly body: string;
}

export interface StreamResponse {
  readonly status: number;
  /** Seconds, when a 429 (or 5xx) asks the client to come back later. */
  readonly retryAfter?: string;
  readonly stream: ClientHttp2Stream;
}

/** Like client-go's HTTP/2 health check: a dead peer must not leave watches hanging forever. */
const PING_INTERVAL_MS = 30_000;
const PING_TIMEOUT_MS = 15_000;

/** Errors that prove a request never reached the server's handler. */
const UNSENT_CODES = new Set([
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_INVALID_SESSION',
  'ERR_HTTP2_OUT_OF_STREAMS',
]);

class UnsentRequest extends Error {}

/** client-go's maxRetries for responses with Retry-After. */
const MAX_RETRIES = 10;
const MAX_RETRY_AFTER_SECONDS = 10;

export class Http2Connection {
  private current: ClientHttp2Session | undefined;
  /** Every open session: an old one may still carry watches after a GOAWAY. */
  private readonly sessions = new Set<ClientHttp2Session>();
  private closed = false;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly limit: number;

  constructor(private readonly options: ConnectionOptions) {
    this.limit = options.maxConcurrentRequests ?? 100;
    installLeanAsyncBind();
  }

  /** Sends a request and reads the whole response body as text. */
  async request(spec: RequestSpec): Promise<TextResponse> {
    for (let attempt = 1; ; attempt++) {
      await this.acquire();
      let response: TextResponse;
      let retryAfter: string | undefined;
      try {
        const opened = await this.open(spec);
        retryAfter = opened.retryAfter;
        response = { status: opened.status, body: await readText(opened.stream) };
      } finally {
        this.release();
      }
      // client-go's retry: a 429 with Retry-After (flow control's answer) is tried again after the
      // seconds it asks for, up to 10 times, whatever the method: the server ran nothing.
      const seconds = Number(retryAfter);
      if (response.status !== 429 || !(seconds >= 0) || attempt > MAX_RETRIES || this.closed) return response;
      await new Promise((resolve) => setTimeout(resolve, Math.min(seconds, MAX_RETRY_AFTER_SECONDS) * 1000));
    }
  }

  /** Sends a request and hands over the response stream once its headers arrived. */
  stream(spec: RequestSpec): Promise<StreamResponse> {
    return this.open(spec);
  }

  /** Ends every session: calls in flight fail, watches end. */
  async close(): Promise<void> {
    this.closed = true;
    this.current = undefined;
    await Promise.all(
      [...this.sessions].map(
        (session) =>
          new Promise<void>((resolve) => {
            if (session.destroyed) return resolve();
            session.once('close', () => resolve());
            session.destroy();
          }),
      ),
    );
  }

  private async open(spec: RequestSpec): Promise<StreamResponse> {
    try {
      return await this.attempt(spec);
    } catch (error) {
      if (!(error instanceof UnsentRequest)) throw error;
      try {
        return await this.attempt(spec);
      } catch (again) {
        throw again instanceof UnsentRequest ? (again.cause as Error) : again;
      }
    }
  }

  private attempt(spec: RequestSpec): Promise<StreamResponse> {
    return new Promise((resolve, reject) => {
      let stream: ClientHttp2Stream;
      try {
        const headers: Record<string, string> = {
          ...this.options.headers,
          ':method': spec.method,
          ':path': spec.path,
          accept: 'application/json',
        };
        if (spec.contentType) headers['content-type'] = spec.contentType;
        stream = this.session().request(headers, { endStream: spec.body === undefined });
      } catch (error) {
        reject(unsent(error) ? new UnsentRequest('request not sent', { cause: error }) : error);
        return;
      }
      const fail = (error?: Error) => {
        // A stream cancelled because its session failed to connect: report the connect error.
        if (
          error?.cause instanceof Error &&
          (error as NodeJS.ErrnoException).code === 'ERR_HTTP2_STREAM_CANCEL'
        )
          error = error.cause;
        const refused = stream.rstCode === constants.NGHTTP2_REFUSED_STREAM;
        const cause = this.closed
          ? new Error('the client is closed')
          : (error ?? new Error(`the stream closed before a response (HTTP/2 error code ${stream.rstCode})`));
        reject(refused || unsent(error) ? new UnsentRequest('request refused', { cause }) : cause);
      };
      stream.once('error', fail);
      stream.once('close', fail);
      stream.once('response', (headers: ResponseHeaders) => {
        stream.off('error', fail);
        stream.off('close', fail);
        const retryAfter = headers['retry-after'];
        resolve({
          status: headers[':status'] ?? 0,
          stream,
          ...(retryAfter ? { retryAfter: String(retryAfter) } : {}),
        });
      });
      if (spec.body !== undefined) stream.end(spec.body);
    });
  }

  /** The live session, or a new one when the last was closed or told to go away. */
  private session(): ClientHttp2Session {
    if (this.closed) throw new Error('the client is closed');
    const current = this.current;
    if (current && !current.closed && !current.destroyed) return current;
    const session = this.options.connect();
    this.current = session;
    this.sessions.add(session);
    // Sent once the session is up (settings() waits for the connection by itself).
    session.settings({ initialWindowSize: STREAM_WINDOW_BYTES });
    const widen = () => session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
    if (session.connecting) session.once('connect', widen);
    else widen();
    // Errors also reach the session's streams, which report them; the session is then replaced.
    session.on('error', () => {});
    session.on('goaway', () => {
      if (this.current === session) this.current = undefined;
    });
    const pings = setInterval(() => ping(session), PING_INTERVAL_MS).unref();
    session.once('close', () => {
      clearInterval(pings);
      this.sessions.delete(session);
      if (this.current === session) this.current = undefined;
    });
    return session;
  }

  private async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Hands the slot to the next waiter, if any. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

function unsent(error: unknown): boolean {
  return UNSENT_CODES.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

function ping(session: ClientHttp2Session): void {
  if (session.destroyed || session.connecting) return;
  const deadline = setTimeout(
    () => session.destroy(new Error('the apiserver did not answer a ping')),
    PING_TIMEOUT_MS,
  ).unref();
  try {
    session.ping(() => clearTimeout(deadline));
  } catch {
    clearTimeout(deadline);
  }
}

export function readText(stream: ClientHttp2Stream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      text += chunk;
    });
    // A stream reset by the peer (RST_STREAM, e.g. CANCEL when the server stops) also emits 'end',
    // after a partial body: only a clean close (NO_ERROR) is a whole response.
    stream.once('end', () => {
      const code = stream.rstCode;
      if (code === undefined || code === constants.NGHTTP2_NO_ERROR) resolve(text);
      else reject(new Error(`the response ended early (HTTP/2 error code ${code})`));
    });
    stream.once('error', reject);
    // Destroyed without an error (the client closed): never 'end'.
    stream.once('close', () => {
      if (!stream.readableEnded) reject(new Error('the response ended early'));
    });
  });
}
