import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';

/** HTTP/1.1 and HTTP/2 (compatibility API) requests and responses, handled alike. */
export type ApiRequest = IncomingMessage | Http2ServerRequest;
export type ApiResponse = ServerResponse | Http2ServerResponse;

/** What streaming handlers (watch) use of a response, common to HTTP/1.1 and HTTP/2. */
export interface ResponseStream {
  writeHead(code: number, headers: Record<string, string>): unknown;
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
  readonly writableEnded: boolean;
}

export function responseStream(res: ApiResponse): ResponseStream {
  return res as unknown as ResponseStream;
}

export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** One request as the handlers see it. */
export interface RequestContext {
  readonly req: ApiRequest;
  readonly res: ApiResponse;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly user: UserInfo;
  /** Called once a watch has sent its initial events: flow control frees its seat then. */
  readonly watchInitialized?: () => void;
}
