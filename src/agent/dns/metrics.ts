// The DNS server's Prometheus metrics, named and labelled as CoreDNS's (plugin/metrics/vars):
// requests by protocol, address family and type, responses by rcode and the plugin that wrote
// them, request durations; served on the kube-dns service's `metrics` port (9153), plain HTTP,
// as CoreDNS serves them. The server block is `.:53`, as in kind's Corefile, so `zone` is `.`.
import { createServer, type Server } from 'node:http';
import { exponentialBuckets, MetricsRegistry } from '../../metrics/index.js';

/** The record types CoreDNS counts by name; others are counted as `other`. */
const NAMED_TYPES = new Set([
  'A',
  'AAAA',
  'NS',
  'PTR',
  'SOA',
  'CNAME',
  'MX',
  'TXT',
  'SRV',
  'DS',
  'DNSKEY',
  'IXFR',
  'AXFR',
  'ANY',
  'HTTPS',
  'SVCB',
]);
const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

export type AnsweringPlugin = 'kubernetes' | 'forward' | '';

export interface DnsObservation {
  readonly transport: 'udp' | 'tcp';
  /** 1 for IPv4 clients, 2 for IPv6 (CoreDNS's `family`). */
  readonly family: 1 | 2;
  readonly type: string;
  readonly rcode: number;
  readonly plugin: AnsweringPlugin;
  readonly seconds: number;
}

export class DnsMetrics {
  readonly registry = new MetricsRegistry();
  private readonly requests = this.registry.counter({
    name: 'coredns_dns_requests_total',
    help: 'Counter of DNS requests made per zone, protocol and family.',
    labelNames: ['server', 'zone', 'view', 'proto', 'family', 'type'],
  });
  private readonly responses = this.registry.counter({
    name: 'coredns_dns_responses_total',
    help: 'Counter of response status codes.',
    labelNames: ['server', 'zone', 'view', 'rcode', 'plugin'],
  });
  private readonly durations = this.registry.histogram({
    name: 'coredns_dns_request_duration_seconds',
    help: 'Histogram of the time (in seconds) each request took per zone.',
    labelNames: ['server', 'zone', 'view', 'type'],
    buckets: exponentialBuckets(0.00025, 2, 16),
  });

  /** `server` as CoreDNS labels it, `dns://<address>:<port>`, once the port is bound. */
  constructor(private readonly serverLabel: () => string) {}

  observe(observation: DnsObservation): void {
    const server = this.serverLabel();
    const type = NAMED_TYPES.has(observation.type) ? observation.type : 'other';
    const rcode = RCODES[observation.rcode] ?? String(observation.rcode);
    this.requests.inc([server, '.', '', observation.transport, String(observation.family), type]);
    this.responses.inc([server, '.', '', rcode, observation.plugin]);
    this.durations.observe([server, '.', '', type], observation.seconds);
  }
}

/** `GET /metrics` on host:port; everything else 404. */
export async function serveMetrics(metrics: DnsMetrics, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.split('?')[0] === '/metrics') {
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      response.end(metrics.registry.render());
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('404 page not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
