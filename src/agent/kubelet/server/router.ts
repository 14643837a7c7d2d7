// The kubelet API's routes: paths with `{param}` segments, the methods each accepts, a handler
// for plain requests and, for the streaming endpoints to come (exec, attach, portForward), one
// for connection upgrades (SPDY, WebSocket).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export interface KubeletUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

interface RequestBase {
  readonly req: IncomingMessage;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly user: KubeletUser;
}

export interface KubeletRequest extends RequestBase {
  readonly res: ServerResponse;
  /** Aborted when the client goes away (followers stop). */
  readonly signal: AbortSignal;
}

export interface KubeletUpgradeRequest extends RequestBase {
  readonly socket: Duplex;
  readonly head: Buffer;
}

export interface KubeletRoute {
  readonly methods: readonly string[];
  /** `/containerLogs/{podNamespace}/{podID}/{containerName}`; a trailing `/*` also matches deeper paths. */
  readonly pattern: string;
  readonly handle?: (request: KubeletRequest) => void | Promise<void>;
  readonly upgrade?: (request: KubeletUpgradeRequest) => void | Promise<void>;
}

export type RouteMatch =
  | { readonly kind: 'found'; readonly route: KubeletRoute; readonly params: Record<string, string> }
  | { readonly kind: 'method'; readonly allowed: readonly string[] }
  | { readonly kind: 'none' };

function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const wanted = pattern.split('/');
  const given = path.split('/');
  const prefix = wanted[wanted.length - 1] === '*';
  if (prefix) wanted.pop();
  if (prefix ? given.length < wanted.length : given.length !== wanted.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < wanted.length; i++) {
    const segment = wanted[i]!;
    const value = given[i]!;
    if (segment.startsWith('{') && segment.endsWith('}')) {
      if (value === '') return undefined;
      params[segment.slice(1, -1)] = value;
    } else if (segment !== value) {
      return undefined;
    }
  }
  return params;
}

export class KubeletRouter {
  private readonly routes: KubeletRoute[] = [];

  add(route: KubeletRoute): this {
    this.routes.push(route);
    return this;
  }

  match(method: string, path: string): RouteMatch {
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchPattern(route.pattern, path);
      if (!params) continue;
      if (route.methods.includes(method)) return { kind: 'found', route, params };
      allowed.push(...route.methods);
    }
    return allowed.length > 0 ? { kind: 'method', allowed: [...new Set(allowed)] } : { kind: 'none' };
  }
}

/** A plain-text answer, as the kubelet writes its errors. */
export function writeText(
  res: ServerResponse,
  code: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end(text);
    return;
  }
  res.writeHead(code, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** An HTTP answer written straight on an upgrade request's socket. */
export function writeRawText(socket: Duplex, code: number, reason: string, text: string): void {
  socket.end(
    `HTTP/1.1 ${code} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}
