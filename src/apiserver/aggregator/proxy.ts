// kube-aggregator's proxyHandler: a request for a service-backed group/version goes, path and
// query unchanged, to a ready endpoint of the service with the caller's identity in the
// front-proxy headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-<key>) in place of any the
// caller sent, and without the caller's credentials. An APIService not Available, or a service
// without a usable endpoint, answers 503 "service unavailable" as upstream's plain-text error.

import type { Duplex } from 'node:stream';
import type { APIService } from '../../api/types/apiregistration-v1.generated.js';
import { joinUpgraded, requestHead } from '../../api/upgrade-proxy.js';
import { streamResponse } from '../handlers/kubelet-connection.js';
import { copyHeaders, hasBody } from '../handlers/proxy-forward.js';
import { sendText } from '../http/respond.js';
import type { RequestContext, UserInfo } from '../http/types.js';
import { badRequest } from '../status.js';
import { isUpgradeRequest } from '../streaming/websocket-protocols.js';
import {
  type BackendDeps,
  dialApiService,
  ResolveError,
  resolveEndpoint,
  sendToApiService,
} from './backend.js';

/** Headers the caller may not pass on: its credentials and any identity headers of its own. */
const DROPPED = /^(authorization|impersonate-.*|x-remote-user|x-remote-group|x-remote-extra-.*)$/;

/** The identity headers transport.SetAuthProxyHeaders writes (extra keys path-escaped). */
export function frontProxyHeaders(user: UserInfo): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'x-remote-user': user.name };
  if (user.groups.length > 0) headers['x-remote-group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    headers[`x-remote-extra-${encodeURIComponent(key)}`] = [...values];
  }
  return headers;
}

function serviceUnavailable(ctx: RequestContext, message = 'service unavailable'): void {
  sendText(ctx.res, 503, `${message}\n`);
}

export async function proxyToApiService(
  ctx: RequestContext,
  apiService: APIService,
  deps: BackendDeps,
): Promise<void> {
  const available = apiService.status?.conditions?.find((c) => c.type === 'Available');
  if (available?.status !== 'True') return serviceUnavailable(ctx);
  let url: URL;
  try {
    url = await resolveEndpoint(deps, apiService);
  } catch (error) {
    if (error instanceof ResolveError) return serviceUnavailable(ctx);
    throw error;
  }
  const target = ctx.req.url ?? ctx.path;
  const at = target.indexOf('?');
  url.pathname = at < 0 ? target : target.slice(0, at);
  url.search = at < 0 ? '' : target.slice(at);
  const identity = frontProxyHeaders(ctx.user);
  if (isUpgradeRequest(ctx.headers)) return proxyUpgrade(ctx, apiService, deps, url, identity);
  const headers = { ...copyHeaders(ctx.headers, (name) => DROPPED.test(name)), ...identity };
  let response: Awaited<ReturnType<typeof sendToApiService>>;
  try {
    response = await sendToApiService(deps, apiService, {
      url,
      method: ctx.method,
      headers,
      body: hasBody(ctx.req) ? ctx.req : undefined,
      signal: ctx.res,
    });
  } catch (error) {
    // The upgrade-aware proxy's error responder: the transport's error, 503.
    return serviceUnavailable(ctx, (error as Error).message);
  }
  ctx.res.writeHead(
    response.statusCode ?? 502,
    copyHeaders(response.headers, () => false),
  );
  await streamResponse(response, ctx.res);
}

/**
 * An upgrade (HTTP/1.1 only): the request head with the identity headers goes to the server and
 * the two connections are joined, so its answer (101 and the stream, or an error) reaches the client.
 */
async function proxyUpgrade(
  ctx: RequestContext,
  apiService: APIService,
  deps: BackendDeps,
  url: URL,
  identity: Record<string, string | string[]>,
): Promise<void> {
  const client = ctx.req.socket;
  if (!client || 'stream' in ctx.req) throw badRequest('upgrade requests need HTTP/1.1');
  let backend: Duplex;
  try {
    backend = await dialApiService(deps, apiService, url);
  } catch (error) {
    return serviceUnavailable(ctx, (error as Error).message);
  }
  // Connection and Upgrade name this hop's upgrade and go along; other credentials do not.
  const headers = {
    ...Object.fromEntries(
      Object.entries(ctx.headers).filter(([name]) => !name.startsWith(':') && !DROPPED.test(name)),
    ),
    ...identity,
  };
  await joinUpgraded(
    client,
    backend,
    requestHead(ctx.method, `${url.pathname}${url.search}`, url.host, headers),
    Buffer.alloc(0),
  );
}
