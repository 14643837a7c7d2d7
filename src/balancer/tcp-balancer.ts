// The single apiserver endpoint of a cluster with several control planes (the role of the load
// balancer kubeadm's HA guide puts in front of kube-apiservers, e.g. HAProxy in TCP mode). It
// forwards raw TCP, so TLS and client certificates stay end to end. A backend is skipped while
// its /readyz does not answer 200 (probed every second) and, at once, when a connection to it
// is refused: a killed apiserver costs a client at most the requests it had in flight.
import { request } from 'node:https';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface Backend {
  readonly host: string;
  readonly port: number;
}

export interface TcpBalancerOptions {
  readonly backends: readonly Backend[];
  /** The CA the backends' serving certificates chain to, for the /readyz probe. */
  readonly caPem: string;
  readonly probeIntervalMs?: number;
  readonly log?: (line: string) => void;
}

const DEFAULT_PROBE_INTERVAL_MS = 1_000;
const PROBE_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 3_000;

export class TcpBalancer {
  private readonly healthy: boolean[];
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();
  private next = 0;
  private probeTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly log: (line: string) => void;

  constructor(private readonly options: TcpBalancerOptions) {
    this.healthy = options.backends.map(() => false);
    this.log = options.log ?? (() => {});
  }

  /** Whether backend `index` currently takes new connections. */
  isHealthy(index: number): boolean {
    return this.healthy[index] === true;
  }

  /** Resolves once backend `index` answered /readyz with 200 (probing it now), or the balancer stopped. */
  async waitHealthy(index: number, signal?: AbortSignal): Promise<void> {
    while (!this.stopped && !signal?.aborted) {
      await this.probe(index);
      if (this.healthy[index]) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** The ports listened on, one per address (a 0 asked for is the one the system picked). */
  ports(): number[] {
    return this.servers.map((server) => {
      const address = server.address();
      return typeof address === 'object' && address ? address.port : 0;
    });
  }

  async listen(addresses: readonly string[], port: number): Promise<void> {
    for (const address of addresses) {
      const server = createServer((client) => this.accept(client));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, address, () => {
          server.off('error', reject);
          resolve();
        });
      });
      this.servers.push(server);
    }
    const probeAll = (): void => {
      if (this.stopped) return;
      void Promise.all(this.options.backends.map((_, index) => this.probe(index))).finally(() => {
        if (!this.stopped)
          this.probeTimer = setTimeout(probeAll, this.options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS);
      });
    };
    probeAll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.probeTimer);
    const closed = this.servers.map(
      (server) => new Promise<void>((resolve) => server.close(() => resolve())),
    );
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(closed);
  }

  private accept(client: Socket): void {
    this.track(client);
    client.on('error', () => client.destroy());
    client.pause();
    this.forward(client, this.candidates());
  }

  /** Healthy backends first, round-robin among them; then the rest, as a last resort. */
  private candidates(): number[] {
    const count = this.options.backends.length;
    const order = Array.from({ length: count }, (_, offset) => (this.next + offset) % count);
    this.next = (this.next + 1) % count;
    return [
      ...order.filter((index) => this.healthy[index]),
      ...order.filter((index) => !this.healthy[index]),
    ];
  }

  private forward(client: Socket, candidates: number[]): void {
    const index = candidates.shift();
    if (index === undefined || client.destroyed) {
      client.destroy();
      return;
    }
    const backend = this.options.backends[index]!;
    const upstream = connect({ host: backend.host, port: backend.port });
    this.track(upstream);
    let connected = false;
    const timer = setTimeout(() => upstream.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
    upstream.once('error', (error) => {
      clearTimeout(timer);
      if (!connected) {
        // Not connected (refused, timed out): this backend is down; the client never noticed.
        if (this.healthy[index])
          this.log(`balancer: backend ${backend.host}:${backend.port} down (${error.message})`);
        this.healthy[index] = false;
        this.forward(client, candidates);
        return;
      }
      client.destroy();
    });
    upstream.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      upstream.setNoDelay(true);
      client.setNoDelay(true);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.resume();
    });
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private probe(index: number): Promise<void> {
    const backend = this.options.backends[index]!;
    return new Promise<void>((resolve) => {
      const settle = (healthy: boolean, why: string): void => {
        if (this.healthy[index] !== healthy) {
          this.log(
            `balancer: backend ${backend.host}:${backend.port} ${healthy ? 'ready' : `not ready (${why})`}`,
          );
        }
        this.healthy[index] = healthy;
        resolve();
      };
      const req = request(
        {
          host: backend.host,
          port: backend.port,
          path: '/readyz',
          ca: this.options.caPem,
          agent: false,
          timeout: PROBE_TIMEOUT_MS,
        },
        (res) => {
          res.resume();
          settle(res.statusCode === 200, `/readyz answered ${res.statusCode}`);
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (error) => settle(false, error.message));
      req.end();
    });
  }
}
