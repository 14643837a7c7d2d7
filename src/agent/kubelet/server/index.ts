// The kubelet's HTTPS API on port 10250: its serving certificate is issued by the cluster CA,
// callers authenticate with client certificates or bearer tokens, and the apiserver decides
// per request (SubjectAccessReview on nodes/<subresource>). Endpoints: /healthz, /pods,
// /metrics, /metrics/resource, /stats/summary, /containerLogs/<ns>/<pod>/<container>; exec,
// attach and portForward are routes to add on `router` (their `upgrade` handlers receive the
// authorized connection).
import { createServer, type Server } from 'node:https';
import type { Pod } from '../../../api/types/core-v1.generated.js';
import type { Client } from '../../../client/types.js';
import { KUBELET_PORT } from '../../node/node-object.js';
import type { StreamingExecRequest } from '../cri/client.js';
import { renderResourceMetrics } from '../stats/resource-metrics.js';
import type { Summary } from '../stats/summary.js';
import { KubeletAuth } from './auth.js';
import { type ContainerLogSource, containerLogsHandler } from './container-logs.js';
import { type KubeletRequest, KubeletRouter, writeRawText, writeText } from './router.js';
import { portForwardUpgrade, streamingUpgrade } from './streaming.js';

export { nodeSubresources } from './auth.js';
export { containerIdForLogs } from './container-logs.js';
export type { KubeletRequest, KubeletRoute, KubeletUpgradeRequest, KubeletUser } from './router.js';
export { KubeletRouter } from './router.js';

export interface KubeletServerHost extends ContainerLogSource {
  /** The sync loop's health (`[+]syncloop ok` in /healthz); healthy when absent. */
  syncLoopHealthy?(): boolean;
  /** The Prometheus text for /metrics; the route is absent without it. */
  metricsText?(): string;
  /** The Summary API's figures for /stats/summary and /metrics/resource; the routes are absent without it. */
  statsSummary?(): Promise<Summary>;
  /** CRI Exec and Attach for /exec and /attach; the routes are absent without them. */
  streamingExecUrl?(request: StreamingExecRequest): Promise<string>;
  streamingAttachUrl?(request: Omit<StreamingExecRequest, 'cmd'>): Promise<string>;
  /** CRI PortForward for /portForward; the route is absent without it. */
  streamingPortForwardUrl?(podUid: string, ports: readonly number[]): Promise<string>;
}

export interface KubeletServerOptions {
  readonly nodeName: string;
  /** The node identity's client: TokenReviews and SubjectAccessReviews go through it. */
  readonly client: Client;
  readonly host: KubeletServerHost;
  /** Serving certificate and key (PEM), and the CA client certificates must chain to. */
  readonly tls: {
    readonly certificatePem: string;
    readonly privateKeyPem: string;
    readonly clientCaPem: string;
  };
  /** Default 0.0.0.0:10250; port 0 picks a free one. */
  readonly address?: string;
  readonly port?: number;
}

export interface KubeletServer {
  readonly port: number;
  /** Add routes here (exec, attach, portForward ...). */
  readonly router: KubeletRouter;
  close(): Promise<void>;
}

function healthz(host: KubeletServerHost) {
  return ({ res, query }: KubeletRequest) => {
    const syncloop = host.syncLoopHealthy?.() ?? true;
    const lines = [
      '[+]ping ok',
      '[+]log ok',
      syncloop ? '[+]syncloop ok' : '[-]syncloop failed: reason withheld',
    ];
    if (query.has('verbose') || !syncloop) {
      lines.push(syncloop ? 'healthz check passed' : 'healthz check failed');
      return writeText(res, syncloop ? 200 : 500, `${lines.join('\n')}\n`);
    }
    return writeText(res, 200, 'ok');
  };
}

function podList(host: KubeletServerHost) {
  return ({ res }: KubeletRequest) => {
    const body = JSON.stringify({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: {},
      items: host.pods() as Pod[],
    });
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  };
}

/** The Prometheus text format's media type, as client_golang serves it. */
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

function metrics(render: () => string) {
  return ({ res }: KubeletRequest) => {
    const body = render();
    res.writeHead(200, {
      'content-type': PROMETHEUS_TEXT,
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  };
}

/** /metrics/resource: the Summary's CPU and memory as Prometheus text (`resource_scrape_error 1` when it fails). */
function resourceMetrics(summary: () => Promise<Summary>) {
  return async ({ res }: KubeletRequest) => {
    const read = await summary().then(
      (figures) => figures,
      () => undefined,
    );
    const body = renderResourceMetrics(read);
    res.writeHead(200, {
      'content-type': PROMETHEUS_TEXT,
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  };
}

function statsSummary(summary: () => Promise<Summary>) {
  return async ({ res }: KubeletRequest) => {
    const body = JSON.stringify(await summary());
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  };
}

export function createKubeletRouter(host: KubeletServerHost): KubeletRouter {
  const router = new KubeletRouter();
  if (host.metricsText) {
    const render = host.metricsText.bind(host);
    router.add({ methods: ['GET'], pattern: '/metrics', handle: metrics(render) });
  }
  if (host.statsSummary) {
    const summary = host.statsSummary.bind(host);
    // Upstream takes GET and POST (a POST once carried a filter body, now ignored).
    router.add({ methods: ['GET', 'POST'], pattern: '/stats/summary', handle: statsSummary(summary) });
    router.add({ methods: ['GET'], pattern: '/metrics/resource', handle: resourceMetrics(summary) });
  }
  const pods = () => host.pods() as Pod[];
  if (host.streamingExecUrl) {
    const execUrl = host.streamingExecUrl.bind(host);
    router.add({
      methods: ['GET', 'POST'],
      pattern: '/exec/{podNamespace}/{podID}/{containerName}',
      upgrade: streamingUpgrade(pods, (containerId, cmd, streams) =>
        execUrl({ containerId, cmd, ...streams }),
      ),
    });
  }
  if (host.streamingAttachUrl) {
    const attachUrl = host.streamingAttachUrl.bind(host);
    router.add({
      methods: ['GET', 'POST'],
      pattern: '/attach/{podNamespace}/{podID}/{containerName}',
      upgrade: streamingUpgrade(pods, (containerId, _, streams) => attachUrl({ containerId, ...streams })),
    });
  }
  if (host.streamingPortForwardUrl) {
    const portForwardUrl = host.streamingPortForwardUrl.bind(host);
    router.add({
      methods: ['GET', 'POST'],
      pattern: '/portForward/{podNamespace}/{podID}',
      upgrade: portForwardUpgrade(pods, portForwardUrl),
    });
  }
  return router
    .add({ methods: ['GET'], pattern: '/healthz', handle: healthz(host) })
    .add({ methods: ['GET'], pattern: '/healthz/*', handle: healthz(host) })
    .add({ methods: ['GET'], pattern: '/pods', handle: podList(host) })
    .add({
      methods: ['GET'],
      pattern: '/containerLogs/{podNamespace}/{podID}/{containerName}',
      handle: containerLogsHandler(host),
    });
}

export async function startKubeletServer(options: KubeletServerOptions): Promise<KubeletServer> {
  const auth = new KubeletAuth(options.client, options.nodeName);
  const router = createKubeletRouter(options.host);
  const server: Server = createServer({
    key: options.tls.privateKeyPem,
    cert: options.tls.certificatePem,
    ca: options.tls.clientCaPem,
    requestCert: true,
    rejectUnauthorized: false,
    minVersion: 'TLSv1.2',
  });

  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    const run = async () => {
      const user = await auth.authenticate(req);
      if (!user) return writeText(res, 401, 'Unauthorized');
      const decision = await auth.authorize(user, req.method ?? 'GET', url.pathname);
      if (!decision.allowed) return writeText(res, 403, decision.message);
      const match = router.match(req.method ?? 'GET', url.pathname);
      if (match.kind === 'none') return writeText(res, 404, '404 page not found\n');
      if (match.kind === 'method') {
        return writeText(res, 405, 'Method Not Allowed', { allow: match.allowed.join(', ') });
      }
      if (!match.route.handle) return writeText(res, 400, 'this endpoint needs a connection upgrade');
      await match.route.handle({
        req,
        res,
        params: match.params,
        query: url.searchParams,
        user,
        signal: controller.signal,
      });
    };
    run().catch((error: unknown) => {
      const text = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) writeText(res, 500, text);
      else res.end();
    });
  });

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const run = async () => {
      const user = await auth.authenticate(req);
      if (!user) return writeRawText(socket, 401, 'Unauthorized', 'Unauthorized');
      const decision = await auth.authorize(user, req.method ?? 'GET', url.pathname);
      if (!decision.allowed) return writeRawText(socket, 403, 'Forbidden', decision.message);
      const match = router.match(req.method ?? 'GET', url.pathname);
      if (match.kind !== 'found' || !match.route.upgrade) {
        return writeRawText(socket, 404, 'Not Found', '404 page not found\n');
      }
      await match.route.upgrade({ req, socket, head, params: match.params, query: url.searchParams, user });
    };
    run().catch(() => socket.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? KUBELET_PORT, options.address ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address();
  return {
    port: typeof bound === 'object' && bound ? bound.port : (options.port ?? KUBELET_PORT),
    router,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
