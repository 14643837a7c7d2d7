// The node's cluster DNS server (CoreDNS with its kubernetes and forward plugins, run per node as
// NodeLocal DNSCache runs): Services, EndpointSlices and Namespaces read through informers under
// the agents' DNS identity into the records the resolver answers from, the server on the node's
// address, port 53, names outside the cluster forwarded to the node's own resolvers.
import type { Server } from 'node:http';
import {
  CLUSTER_DNS_IP,
  CLUSTER_DNS_METRICS_PORT,
  CLUSTER_DNS_NAMESPACE,
  CLUSTER_DNS_SERVICE,
  CLUSTER_DOMAIN,
} from '../../api/cluster-dns.js';
import type { Namespace, Service } from '../../api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import {
  type EventHandler,
  objectOf,
  SharedInformerFactory,
  sleep,
  waitForCacheSync,
} from '../../client/informers/index.js';
import { ENDPOINT_SLICES, NAMESPACES, SERVICES } from '../../client/resources.js';
import type { ApiObject, Client } from '../../client/types.js';
import { ClusterRecords } from './cluster-records.js';
import { DnsHandler } from './handler.js';
import { DnsMetrics, serveMetrics } from './metrics.js';
import { DEFAULT_TTL } from './resolver.js';
import { DnsServer } from './server.js';
import { Upstream, upstreamServers } from './upstream.js';

export const DNS_PORT = 53;
/** CoreDNS's kubernetes plugin serves after its caches sync, or after 5 s without them. */
const SYNC_WAIT_MS = 5_000;
const BIND_RETRY_MS = 2_000;

export interface ClusterDnsOptions {
  /** A client under the agents' DNS identity. */
  readonly client: Client;
  /** The node's address: where the server listens. */
  readonly host: string;
  readonly port?: number;
  /** Where CoreDNS's metrics are served (9153; 0 picks a free port). */
  readonly metricsPort?: number;
  /** The node's resolv.conf nameservers, to forward other names to. */
  readonly nameservers: readonly string[];
  readonly log?: (message: string) => void;
}

/** Keeps `records` in step with one informer's objects. */
function follow<T extends ApiObject>(
  set: (object: T) => void,
  remove: (namespace: string, name: string) => void,
): EventHandler<T> {
  return {
    onAdd: (object) => set(object),
    onUpdate: (_old, object) => set(object),
    onDelete: (deleted) => {
      const object = objectOf(deleted);
      remove(object.metadata?.namespace ?? '', object.metadata?.name ?? '');
    },
  };
}

export class ClusterDns {
  readonly records = new ClusterRecords(CLUSTER_DOMAIN);
  private readonly informers: SharedInformerFactory;
  private server: DnsServer | undefined;
  private metricsServer: Server | undefined;

  constructor(private readonly options: ClusterDnsOptions) {
    this.informers = new SharedInformerFactory(options.client);
  }

  /** The port served on, once serving (0 before). */
  get port(): number {
    return this.server?.port ?? 0;
  }

  /** The metrics port, once serving (0 before or when it could not listen). */
  get metricsPort(): number {
    const address = this.metricsServer?.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  /** Serves until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.options.log ?? ((message: string) => console.error(message));
    const { records } = this;
    const registrations = [
      this.informers.informerFor<Service>(SERVICES).addEventHandler(
        follow<Service>(
          (service) => records.setService(service),
          (namespace, name) => records.deleteService(namespace, name),
        ),
      ),
      this.informers.informerFor<EndpointSlice>(ENDPOINT_SLICES).addEventHandler(
        follow<EndpointSlice>(
          (slice) => records.setEndpointSlice(slice),
          (namespace, name) => records.deleteEndpointSlice(namespace, name),
        ),
      ),
      this.informers.informerFor<Namespace>(NAMESPACES).addEventHandler(
        follow<Namespace>(
          (namespace) => records.setNamespace(namespace),
          (_namespace, name) => records.deleteNamespace(name),
        ),
      ),
    ];
    this.informers.start(signal);
    const waited = new AbortController();
    const synced = await Promise.race([
      waitForCacheSync(signal, registrations),
      sleep(SYNC_WAIT_MS, waited.signal).then(() => false),
    ]);
    waited.abort();
    if (signal.aborted) return;
    if (!synced) log(`dns: serving before the caches synced (${SYNC_WAIT_MS / 1000} s passed)`);
    // The node's own address and the cluster DNS address would forward back to this server.
    const nameservers = this.options.nameservers.filter(
      (server) => server !== this.options.host && server !== CLUSTER_DNS_IP,
    );
    const port = this.options.port ?? DNS_PORT;
    const metrics = new DnsMetrics(() => `dns://${this.options.host}:${this.port}`);
    const handler = new DnsHandler(
      records,
      {
        zone: CLUSTER_DOMAIN,
        ttl: DEFAULT_TTL,
        dnsService: { namespace: CLUSTER_DNS_NAMESPACE, name: CLUSTER_DNS_SERVICE },
      },
      new Upstream(upstreamServers(nameservers)),
      metrics,
    );
    // The address may not be there yet (or still held by an agent going away): try again.
    while (!this.server) {
      const server = new DnsServer({ host: this.options.host, port, handler, log });
      try {
        await server.start();
        this.server = server;
      } catch (error) {
        await server.close();
        log(`dns: cannot listen on ${this.options.host}:${port}: ${String(error)}; trying again`);
        await sleep(BIND_RETRY_MS, signal);
        if (signal.aborted) {
          await this.informers.stop();
          return;
        }
      }
    }
    // Metrics are a side dish: without them the server still answers.
    this.metricsServer = await serveMetrics(
      metrics,
      this.options.host,
      this.options.metricsPort ?? CLUSTER_DNS_METRICS_PORT,
    ).catch((error: unknown) => {
      log(`dns: metrics not served: ${String(error)}`);
      return undefined;
    });
    log(
      `dns: serving ${CLUSTER_DOMAIN} on ${this.options.host}:${this.server.port}, forwarding to ${nameservers.join(', ') || 'nobody'}`,
    );
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await this.server.close();
    await new Promise<void>((resolve) =>
      this.metricsServer ? this.metricsServer.close(() => resolve()) : resolve(),
    );
    await this.informers.stop();
  }
}
