// What kube-apiserver's upgrade-aware proxy handler does for the proxy subresources (nodes, pods,
// services): forwards the request (method, query, headers, body) to the backend and passes the
// answer back as the backend gave it — status, headers, streamed body. The bare proxy root
// redirects to its slashed form, X-Forwarded-For and X-Forwarded-Uri go along, redirects are
// rewritten under the proxy path (and so are an HTML answer's links), CORS headers are dropped,
// and a failed dial is a 503.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { posix } from 'node:path';
import { promisify } from 'node:util';
import { deflateRaw, gunzip, gzip, inflateRaw } from 'node:zlib';
import type { ApiRequest, RequestContext } from '../http/types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { ResourceRequestInfo } from '../request-info.js';
import { internalError, StatusError } from '../status.js';
import { isUpgradeRequest } from '../streaming/websocket-protocols.js';
import {
  type KubeletClientCredentials,
  type KubeletRequest,
  sendToKubelet,
  streamResponse,
} from './kubelet-connection.js';
import { rewriteHtmlLinks } from './proxy-html.js';
import { forwardUpgrade } from './proxy-upgrade.js';

/** Serves one proxy subresource (nodes/proxy, pods/proxy, services/proxy) of one object. */
export type ProxyHandler = (
  ctx: RequestContext,
  resources: ResourceStore,
  request: ResourceRequestInfo,
) => Promise<void>;

/** Where a proxied request goes. */
export interface ProxyBackend {
  /** `scheme://host:port`, IPv6 hosts in brackets. */
  readonly origin: string;
  /** The client certificate to present (a node's kubelet); none for pods and services. */
  readonly credentials?: KubeletClientCredentials;
  readonly dial?: KubeletRequest['dial'];
}

/** Headers of one hop (Go's ReverseProxy drops them both ways). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);
/** The caller's credentials stay here: authentication and impersonation take them off. */
const CREDENTIAL_HEADERS = /^(authorization|impersonate-.*)$/;
/** The backend's CORS answers are not the apiserver's. */
const CORS_HEADERS = /^access-control-allow-(credentials|headers|methods|origin)$/;

type HeaderMap = Record<string, string | string[]>;

export function copyHeaders(headers: IncomingHttpHeaders, drop: (name: string) => boolean): HeaderMap {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase()),
  );
  const copied: HeaderMap = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.startsWith(':') || HOP_BY_HOP.has(name) || named.has(name)) continue;
    if (!drop(name)) copied[name] = value;
  }
  return copied;
}

export function hasBody(req: ApiRequest): boolean {
  if ('stream' in req) return !(req as Http2ServerRequest).stream.endAfterHeaders;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** net.JoinPreservingTrailingSlash('', path): the path cleaned, its trailing slash kept. */
function cleanProxyPath(path: string): string {
  return path === '' ? '' : posix.normalize(path);
}

/** A path as Go's URL.EscapedPath writes it. */
function escapePath(path: string): string {
  return path
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment)
        .replace(/%(24|26|2B|2C|3A|3B|3D|40)/gi, (escaped) => decodeURIComponent(escaped))
        .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
}

/** proxy.Transport's rewriteURL: a redirect to the backend's own host moves under the proxy path. */
function rewriteLocation(
  target: string,
  backendHost: string,
  requestHost: string,
  pathPrepend: string,
): string {
  const parts = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(.*)$/.exec(target);
  if (!parts) return target;
  const [, scheme = '', host = '', path = '', rest = ''] = parts;
  const differentHost = host !== '' && host !== backendHost && host !== requestHost;
  if (differentHost || !path.startsWith('/')) return target;
  const origin = host !== '' && host === requestHost ? `${scheme ? `${scheme}:` : ''}//${host}` : '';
  if (path.startsWith(pathPrepend)) return `${origin}${path}${rest}`;
  const joined = posix.join(pathPrepend, path);
  return `${origin}${path.endsWith('/') && !joined.endsWith('/') ? `${joined}/` : joined}${rest}`;
}

/** The body codings proxy.Transport can rewrite through (Go's flate is raw DEFLATE). */
const HTML_CODINGS: Record<
  string,
  { decode(body: Buffer): Promise<Buffer>; encode(body: Buffer): Promise<Buffer> }
> = {
  '': { decode: async (body) => body, encode: async (body) => body },
  gzip: { decode: promisify(gunzip), encode: promisify(gzip) },
  deflate: { decode: promisify(inflateRaw), encode: promisify(deflateRaw) },
};

async function readBody(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** proxy.Transport's rewriteResponse: an HTML answer in a coding it knows, its links rewritten. */
async function rewrittenHtml(
  response: IncomingMessage,
  rewriteUrl: (url: string) => string,
): Promise<Buffer | undefined> {
  const mediaType = String(response.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim();
  const coding = HTML_CODINGS[String(response.headers['content-encoding'] ?? '')];
  if (mediaType !== 'text/html' || !coding) return undefined;
  try {
    const html = (await coding.decode(await readBody(response))).toString('utf8');
    return await coding.encode(Buffer.from(await rewriteHtmlLinks(html, rewriteUrl), 'utf8'));
  } catch (error) {
    throw internalError(error);
  }
}

/** Forwards the request to `backend`, an upgrade request over a connection of its own. */
export async function forwardProxyRequest(
  ctx: RequestContext,
  request: ResourceRequestInfo,
  backend: ProxyBackend,
): Promise<void> {
  let path = cleanProxyPath(request.proxyPath ?? '');
  if (!path.endsWith('/') && ctx.path.endsWith('/')) path += '/';
  const target = ctx.req.url ?? '';
  const rawQuery = target.includes('?') ? target.slice(target.indexOf('?') + 1) : '';
  // Upstream redirects the bare proxy root to its slashed form (kubernetes#4958).
  if (path === '' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
    ctx.res.writeHead(301, { location: `${ctx.path}/${rawQuery ? `?${rawQuery}` : ''}` });
    ctx.res.end();
    return;
  }
  const url = new URL(`${backend.origin}${escapePath(path || '/')}${rawQuery ? `?${rawQuery}` : ''}`);
  // What the proxy path sits under, for X-Forwarded-Uri and redirects.
  const pathPrepend = ctx.path.endsWith(path) ? ctx.path.slice(0, ctx.path.length - path.length) : ctx.path;
  const headers = copyHeaders(ctx.headers, (name) => CREDENTIAL_HEADERS.test(name));
  const client = (ctx.req.socket?.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.)/, '');
  headers['x-forwarded-for'] = [ctx.headers['x-forwarded-for'], client].filter((value) => value).join(', ');
  const forwardedUri = posix.join(pathPrepend, path);
  headers['x-forwarded-uri'] =
    path.endsWith('/') && !forwardedUri.endsWith('/') ? `${forwardedUri}/` : forwardedUri;
  if (isUpgradeRequest(ctx.headers)) return forwardUpgrade(ctx, backend, url, headers);
  const response = await sendToKubelet(
    {
      url,
      method: ctx.method,
      headers,
      credentials: backend.credentials,
      dial: backend.dial,
      body: hasBody(ctx.req) ? ctx.req : undefined,
      signal: ctx.res,
    },
    (dialText) => new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${dialText}`),
  );
  const answer = copyHeaders(response.headers, (name) => CORS_HEADERS.test(name));
  const requestHost = String(ctx.headers[':authority'] ?? ctx.headers.host ?? '');
  const backendHost = backend.origin.slice(backend.origin.indexOf('//') + 2);
  const rewriteUrl = (target: string) => rewriteLocation(target, backendHost, requestHost, pathPrepend);
  const redirect = response.headers.location;
  if (redirect) {
    answer.location = rewriteUrl(redirect);
  } else {
    const html = await rewrittenHtml(response, rewriteUrl);
    if (html) {
      delete answer['content-length'];
      ctx.res.writeHead(response.statusCode ?? 502, answer);
      ctx.res.end(html);
      return;
    }
  }
  ctx.res.writeHead(response.statusCode ?? 502, answer);
  await streamResponse(response, ctx.res);
}
