// nodes/{name}/proxy/{path}: kube-apiserver forwards the request to the node, by default to its
// kubelet over HTTPS with the apiserver's kubelet client certificate (`kubectl get --raw
// /api/v1/nodes/<node>/proxy/metrics`). The name may carry a port, and a scheme before it, as
// upstream's SplitSchemeNamePort reads it; another port than the kubelet's is reached plainly.
// The answer (status, headers, body) comes back as the node gave it.
import type { IncomingHttpHeaders } from 'node:http';
import type { KubeObject } from '../../api/object.js';
import type { Node } from '../../api/types/core-v1.generated.js';
import type { RequestContext } from '../http/types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { ResourceRequestInfo } from '../request-info.js';
import { badRequest, StatusError } from '../status.js';
import {
  type KubeletClientCredentials,
  kubeletAddress,
  sendToKubelet,
  streamResponse,
} from './kubelet-connection.js';

export interface NodeProxyDeps {
  readonly credentials: () => Promise<KubeletClientCredentials>;
}

export type NodeProxyHandler = (
  ctx: RequestContext,
  nodes: ResourceStore,
  request: ResourceRequestInfo,
) => Promise<void>;

/** Headers that belong to one connection (RFC 7230), or to the caller's identity here. */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'authorization',
  'http2-settings',
]);

export interface NodeProxyTarget {
  readonly scheme: '' | 'http' | 'https';
  readonly name: string;
  readonly port: string;
}

/** `<name>`, `<name>:<port>` or `<scheme>:<name>:<port>` (scheme http or https), as upstream reads them. */
export function parseNodeProxyTarget(id: string): NodeProxyTarget | undefined {
  const parts = id.split(':');
  let target: NodeProxyTarget;
  if (parts.length === 1) target = { scheme: '', name: parts[0]!, port: '' };
  else if (parts.length === 2) target = { scheme: '', name: parts[0]!, port: parts[1]! };
  else if (parts.length === 3 && (parts[0] === 'http' || parts[0] === 'https'))
    target = { scheme: parts[0], name: parts[1]!, port: parts[2]! };
  else return undefined;
  return target.name === '' ? undefined : target;
}

function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const forwarded: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.startsWith(':') || NOT_FORWARDED.has(name)) continue;
    if (name.startsWith('impersonate-')) continue;
    forwarded[name] = value;
  }
  return forwarded;
}

export function nodeProxyHandler(deps: NodeProxyDeps): NodeProxyHandler {
  return async (ctx, nodes, request) => {
    if (ctx.headers.upgrade) throw badRequest('upgrade requests through nodes/proxy are not supported');
    const target = parseNodeProxyTarget(request.name);
    if (!target) throw badRequest(`invalid node request ${JSON.stringify(request.name)}`);
    const prefix = `/api/v1/nodes/${request.name}/proxy`;
    const path = ctx.path.startsWith(prefix) ? ctx.path.slice(prefix.length) : '';
    const query = ctx.query.toString();
    // Upstream redirects the bare proxy root to its slashed form (kubernetes#4958).
    if (path === '' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.res.writeHead(301, { location: `${ctx.path}/${query ? `?${query}` : ''}` });
      ctx.res.end();
      return;
    }
    const node = (await nodes.get('', target.name)) as KubeObject as Node;
    const { host, port } = kubeletAddress(node);
    const toKubelet = target.port === '' || target.port === String(port);
    const scheme = toKubelet ? 'https' : target.scheme || 'http';
    const hostPort = host.includes(':') ? `[${host}]` : host;
    const url = new URL(`${scheme}://${hostPort}:${toKubelet ? port : target.port}${path || '/'}`);
    url.search = query;
    const response = await sendToKubelet(
      {
        url,
        method: ctx.method,
        headers: forwardedHeaders(ctx.headers),
        credentials: toKubelet ? await deps.credentials() : undefined,
        body: ['GET', 'HEAD', 'DELETE'].includes(ctx.method) ? undefined : ctx.req,
        signal: ctx.res,
      },
      // kube-apiserver's proxy answers a failed dial with this error, which is no Status: 500.
      (dialText) => new StatusError(500, '', `error trying to reach service: ${dialText}`),
    );
    ctx.res.writeHead(response.statusCode ?? 502, forwardedHeaders(response.headers));
    await streamResponse(response, ctx.res);
  };
}
