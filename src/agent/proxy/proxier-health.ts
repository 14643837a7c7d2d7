// kube-proxy's own health endpoint (pkg/proxy/healthcheck/proxier_health.go) on port 10256:
// /healthz answers 200 while no change has waited longer than the health timeout (two sync
// periods) and the node is not being deleted, 503 otherwise; load balancers probe it.
import { createServer, type Server } from 'node:http';

/** kube-proxy's default `--healthz-bind-address` port. */
export const PROXY_HEALTHZ_PORT = 10256;

const processStart = performance.timeOrigin;

/** Go's time.Time String() of a moment (UTC, trailing zeros of the fraction trimmed, monotonic reading). */
export function goTimeString(ms: number | undefined): string {
  if (ms === undefined) return '0001-01-01 00:00:00 +0000 UTC';
  const iso = new Date(ms).toISOString(); // 2026-11-27T23:52:46.123Z
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  const base = `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''} +0000 UTC`;
  return `${base} m=+${((ms - processStart) / 1000).toFixed(9)}`;
}

export interface ProxierHealthSource {
  /** Whether the rules are current (no change pending longer than the health timeout). */
  healthy(): boolean;
  /** When the last successful sync finished (ms since the epoch), if any. */
  lastUpdated(): number | undefined;
  /** False once this node is being deleted. */
  nodeEligible(): boolean;
}

export function healthzBody(source: ProxierHealthSource, now: number): { status: number; body: string } {
  const nodeEligible = source.nodeEligible();
  const healthy = source.healthy() && nodeEligible;
  // As upstream: a healthy proxy reports "now" as its last update, for older clients' sake.
  const lastUpdated = healthy ? now : source.lastUpdated();
  return {
    status: healthy ? 200 : 503,
    body: `{"lastUpdated": ${JSON.stringify(goTimeString(lastUpdated))},"currentTime": ${JSON.stringify(goTimeString(now))}, "nodeEligible": ${nodeEligible}}`,
  };
}

/** Serves /healthz (and 404 elsewhere) on `address:port` until closed. */
export function startProxierHealthServer(
  source: ProxierHealthSource,
  options: { address?: string; port?: number; log?: (message: string) => void } = {},
): Server {
  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/healthz') {
      res.writeHead(404, {
        'Content-Type': 'text/plain; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end('404 page not found\n');
      return;
    }
    const { status, body } = healthzBody(source, Date.now());
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'X-Content-Type-Options': 'nosniff',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  server.on('error', (error) => (options.log ?? console.error)(`proxy: healthz server: ${error.message}`));
  server.listen(options.port ?? PROXY_HEALTHZ_PORT, options.address ?? '0.0.0.0');
  return server;
}
