// Host ports for LoadBalancer addresses where the host cannot reach the cluster's Docker network
// (Docker Desktop on macOS and Windows runs the containers in a VM; kind sends such users to
// cloud-provider-kind's port mappings). Each TCP port of a LoadBalancer service's address is also
// published on 127.0.0.1 (its own port number when free, another otherwise) and forwarded through
// a node's tunnel, which reaches the address from inside the network; an event on the service
// says where. `TKUBE_LOAD_BALANCER_HOST_PORTS`: `auto` (default) publishes only when the host
// cannot route to a node, `always` publishes anyway (tests on Linux), `never` not at all.
import { createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Service } from '../api/types/core-v1.generated.js';
import { joinStreams } from '../api/upgrade-proxy.js';
import { EventBroadcaster, type EventRecorder } from '../client/events/index.js';
import { SharedInformerFactory } from '../client/informers/factory.js';
import type { SharedInformer } from '../client/informers/index.js';
import { SERVICES } from '../client/resources.js';
import type { Client } from '../client/types.js';

export type HostPortsMode = 'always' | 'auto' | 'never';

export const HOST_PORTS_MODE_ENV = 'TKUBE_LOAD_BALANCER_HOST_PORTS';

/** The mode an environment asks for: `auto` unless set; an unknown value is refused. */
export function hostPortsModeFrom(env: NodeJS.ProcessEnv): HostPortsMode {
  const value = env[HOST_PORTS_MODE_ENV] ?? '';
  if (value === '' || value === 'auto') return 'auto';
  if (value === 'always' || value === 'never') return value;
  throw new Error(`${HOST_PORTS_MODE_ENV}=${JSON.stringify(value)}: must be "always", "auto" or "never"`);
}

/** What publishing needs from the apiserver's dialer. */
export interface NetworkAccess {
  /** Whether this host routes to the nodes' network (false on Docker Desktop); undefined while no node tells. */
  hostReachesNodes(): Promise<boolean | undefined>;
  /** A connection to host:port opened from inside the nodes' network. */
  dialFromNodes(host: string, port: number): Promise<Duplex>;
}

/** The address and port a host port stands for: `namespace/name/ip:port`. */
interface Target {
  readonly service: string;
  readonly ip: string;
  readonly port: number;
}

interface Published {
  readonly server: Server;
  readonly hostPort: number;
  readonly sockets: Set<Socket>;
}

const HOST = '127.0.0.1';

const targetKey = (target: Target) => `${target.service}/${target.ip}:${target.port}`;

/** The TCP ports of a LoadBalancer service's addresses. */
function targetsOf(service: Service): Target[] {
  if (service.spec?.type !== 'LoadBalancer') return [];
  const key = `${service.metadata?.namespace}/${service.metadata?.name}`;
  const ips = (service.status?.loadBalancer?.ingress ?? []).flatMap((ingress) =>
    ingress.ip ? [ingress.ip] : [],
  );
  const ports = (service.spec.ports ?? []).filter((port) => (port.protocol ?? 'TCP') === 'TCP');
  return ips.flatMap((ip) => ports.map((port) => ({ service: key, ip, port: port.port })));
}

export class LoadBalancerHostPorts {
  private readonly published = new Map<string, Published>();
  /** Whether publishing applies here: decided once a node could be asked. */
  private applies: boolean | undefined;
  /** Reconciles run one at a time: each compares the wanted ports with those published. */
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly services: SharedInformer<Service>,
    private readonly network: NetworkAccess,
    private readonly recorder: EventRecorder,
    private readonly mode: HostPortsMode,
    private readonly log: (message: string) => void = (message) => console.error(message),
  ) {
    const changed = () => this.reconcile();
    services.addEventHandler({
      onAdd: changed,
      onUpdate: changed,
      onDelete: changed,
    });
  }

  /** The host port a service's address and port are published on, if it is. */
  hostPortOf(namespace: string, name: string, ip: string, port: number): number | undefined {
    return this.published.get(targetKey({ service: `${namespace}/${name}`, ip, port }))?.hostPort;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
    for (const key of [...this.published.keys()]) await this.unpublish(key);
  }

  private reconcile(): void {
    if (this.mode === 'never') return;
    this.queue = this.queue
      .then(() => this.sync())
      .catch((error: unknown) => this.log(`load balancer host ports: ${String(error)}`));
  }

  private async sync(): Promise<void> {
    if (this.stopped) return;
    const wanted = new Map<string, { target: Target; service: Service }>();
    for (const service of this.services.lister.list()) {
      for (const target of targetsOf(service)) wanted.set(targetKey(target), { target, service });
    }
    for (const key of [...this.published.keys()]) if (!wanted.has(key)) await this.unpublish(key);
    if (wanted.size === 0 || !(await this.publishingApplies())) return;
    for (const [key, { target, service }] of wanted) {
      if (this.published.has(key)) continue;
      const published = await this.publish(target);
      this.published.set(key, published);
      this.recorder.event(
        service,
        'Normal',
        'PublishedOnHostPort',
        `${target.ip}:${target.port}/TCP is published on the host at ${HOST}:${published.hostPort}`,
      );
    }
  }

  private async publishingApplies(): Promise<boolean> {
    if (this.mode === 'always') return true;
    if (this.applies === undefined) {
      const reaches = await this.network.hostReachesNodes();
      if (reaches !== undefined) this.applies = !reaches;
    }
    return this.applies === true;
  }

  /** Listens on the service's own port number if it is free, else on any. */
  private async publish(target: Target): Promise<Published> {
    const sockets = new Set<Socket>();
    const server = createServer({ allowHalfOpen: true }, (socket) => this.forward(socket, target, sockets));
    let hostPort: number;
    try {
      hostPort = await listen(server, target.port);
    } catch {
      hostPort = await listen(server, 0);
    }
    return { server, hostPort, sockets };
  }

  private forward(socket: Socket, target: Target, sockets: Set<Socket>): void {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.pause();
    this.network.dialFromNodes(target.ip, target.port).then(
      (upstream) => {
        if (socket.destroyed) {
          upstream.destroy();
          return;
        }
        void joinStreams(socket, upstream);
        socket.resume();
      },
      // As a load balancer with no way through: the client sees the connection reset.
      () => socket.resetAndDestroy(),
    );
  }

  private async unpublish(key: string): Promise<void> {
    const published = this.published.get(key);
    if (!published) return;
    this.published.delete(key);
    for (const socket of published.sockets) socket.destroy();
    await new Promise<void>((resolve) => published.server.close(() => resolve()));
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as { port: number }).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, HOST);
  });
}

/** Starts publishing on the control plane's thread; undefined when the mode is `never`. */
export function startLoadBalancerHostPorts(
  client: Client,
  network: NetworkAccess,
  mode: HostPortsMode,
): { readonly hostPorts: LoadBalancerHostPorts; stop(): Promise<void> } | undefined {
  if (mode === 'never') return undefined;
  const abort = new AbortController();
  const informers = new SharedInformerFactory(client);
  const broadcaster = new EventBroadcaster(client);
  const hostPorts = new LoadBalancerHostPorts(
    informers.informerFor<Service>(SERVICES),
    network,
    broadcaster.newRecorder({ component: 'service-controller' }),
    mode,
  );
  informers.start(abort.signal);
  return {
    hostPorts,
    async stop() {
      abort.abort();
      await hostPorts.stop();
      await broadcaster.shutdown();
      await informers.stop();
    },
  };
}
