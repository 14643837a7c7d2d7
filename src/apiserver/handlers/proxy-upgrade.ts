// The upgrade half of kube-apiserver's upgrade-aware proxy for the proxy subresources (pods,
// services, nodes): a request asking for a protocol switch (a WebSocket, SPDY) is written to the
// backend over a connection of its own (through the node tunnel where one is needed; TLS for an
// https backend, the kubelet's client certificate for nodes), and the two connections are joined
// byte for byte, so the backend's 101 and stream, or its refusal, reach the client unchanged.
import { isIP, connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { dialErrorText } from '../../api/go-net-errors.js';
import { joinUpgraded, requestHead, secureConnection } from '../../api/upgrade-proxy.js';
import { caOrDefaultTrust } from '../../pki/deferred-default-trust.js';
import type { RequestContext } from '../http/types.js';
import { badRequest, StatusError } from '../status.js';
import type { ProxyBackend } from './proxy-forward.js';

/** Opens the connection `url` names; TLS as the plain proxy's client speaks it. */
async function dialBackend(backend: ProxyBackend, url: URL): Promise<Duplex> {
  const https = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (https ? 443 : 80));
  const raw = backend.dial
    ? await backend.dial(host, port)
    : await new Promise<Duplex>((resolve, reject) => {
        const socket = netConnect({ host, port }, () => resolve(socket));
        socket.once('error', reject);
      });
  if (!https) return raw;
  const credentials = backend.credentials;
  return secureConnection(
    {
      host,
      ...(isIP(host) === 0 && { servername: host }),
      ca: credentials ? caOrDefaultTrust(credentials.caPem) : undefined,
      cert: credentials?.certificatePem,
      key: credentials?.privateKeyPem,
      // Pods and services are reached without verification, as upstream's proxy transport does.
      rejectUnauthorized: credentials !== undefined,
    },
    raw,
  );
}

/** Forwards an upgrade request to `url` with `headers` (this hop's Connection and Upgrade added back). */
export async function forwardUpgrade(
  ctx: RequestContext,
  backend: ProxyBackend,
  url: URL,
  headers: Record<string, string | string[]>,
): Promise<void> {
  const client = ctx.req.socket;
  if (!client || 'stream' in ctx.req) throw badRequest('upgrade requests need HTTP/1.1');
  let connection: Duplex;
  try {
    connection = await dialBackend(backend, url);
  } catch (error) {
    throw new StatusError(
      503,
      'ServiceUnavailable',
      `error trying to reach service: ${dialErrorText(`${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`, error)}`,
    );
  }
  const upgradeHeaders = {
    ...headers,
    connection: 'Upgrade',
    ...(ctx.headers.upgrade !== undefined && { upgrade: ctx.headers.upgrade }),
  };
  await joinUpgraded(
    client,
    connection,
    requestHead(ctx.method, `${url.pathname}${url.search}`, url.host, upgradeHeaders),
    Buffer.alloc(0),
  );
}
