// The health check node ports of LoadBalancer services with `externalTrafficPolicy: Local`
// (pkg/proxy/healthcheck/service_health.go): one HTTP server per service on its
// healthCheckNodePort, answering 200 while this node has a ready local endpoint and 503
// otherwise, so a load balancer sends traffic only to nodes that can serve it.
import { createServer, type Server } from 'node:http';
import type { HealthCheckPort } from './rules.js';

interface Entry {
  server: Server;
  namespace: string;
  name: string;
  localEndpoints: number;
}

/** The body upstream writes (a dedented Go template: tabs, no trailing newline). */
export function healthCheckBody(
  namespace: string,
  name: string,
  localEndpoints: number,
  healthy: boolean,
): string {
  return [
    '{',
    '\t"service": {',
    `\t\t"namespace": ${JSON.stringify(namespace)},`,
    `\t\t"name": ${JSON.stringify(name)}`,
    '\t},',
    `\t"localEndpoints": ${localEndpoints},`,
    `\t"serviceProxyHealthy": ${healthy}`,
    '}',
  ].join('\n');
}

export class ServiceHealthServer {
  private readonly servers = new Map<number, Entry>();

  /** `proxyHealthy` says whether the proxy's rules are current (serviceProxyHealthy). */
  constructor(
    private readonly proxyHealthy: () => boolean,
    private readonly log: (message: string) => void = (message) => console.error(message),
    private readonly address = '0.0.0.0',
  ) {}

  /** Opens servers for new ports, closes those of services gone, updates the counts. */
  sync(ports: readonly HealthCheckPort[]): void {
    const wanted = new Map(ports.map((port) => [port.port, port]));
    for (const [port, entry] of this.servers) {
      const next = wanted.get(port);
      if (!next || next.namespace !== entry.namespace || next.name !== entry.name) {
        entry.server.close();
        this.servers.delete(port);
      }
    }
    for (const [port, check] of wanted) {
      const entry = this.servers.get(port);
      if (entry) {
        entry.localEndpoints = check.localEndpoints;
        continue;
      }
      this.servers.set(port, this.listen(check));
    }
  }

  close(): void {
    for (const entry of this.servers.values()) entry.server.close();
    this.servers.clear();
  }

  private listen(check: HealthCheckPort): Entry {
    const entry: Entry = {
      namespace: check.namespace,
      name: check.name,
      localEndpoints: check.localEndpoints,
      server: createServer((_req, res) => {
        const healthy = this.proxyHealthy();
        const count = entry.localEndpoints;
        const body = healthCheckBody(entry.namespace, entry.name, count, healthy);
        res.writeHead(count !== 0 && healthy ? 200 : 503, {
          'Content-Type': 'application/json',
          'X-Content-Type-Options': 'nosniff',
          'X-Load-Balancing-Endpoint-Weight': String(count),
          'Content-Length': Buffer.byteLength(body),
        });
        res.end(body);
      }),
    };
    entry.server.on('error', (error) => {
      this.log(
        `proxy: health check server for ${check.namespace}/${check.name} on port ${check.port}: ${error.message}`,
      );
      this.servers.delete(check.port);
    });
    entry.server.listen(check.port, this.address);
    return entry;
  }
}
