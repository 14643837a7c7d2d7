// The control plane's end of the node tunnels (konnectivity-server's role): each node's agent
// holds one open on TUNNEL_PATH as its node identity, and the apiserver's dialer opens TCP streams
// through it into that node's network. A node reconnecting replaces its older tunnel.
import type { Http2ServerRequest, Http2ServerResponse, Http2Session } from 'node:http2';
import { Duplex } from 'node:stream';
import { keepAlive } from '../../client/tunnel/keepalive.js';
import { TunnelSession, type TunnelTarget } from '../../client/tunnel/tunnel-session.js';
import type { TunnelStream } from '../../client/tunnel/tunnel-stream.js';
import { MetricsRegistry } from '../../metrics/index.js';
import { nodeNameOf } from '../auth/node/identity.js';
import type { RequestContext } from '../http/types.js';
import { badRequest, methodNotAllowedOnPath, StatusError } from '../status.js';

const PING_INTERVAL_MS = 15_000;

export class NodeTunnels {
  private readonly sessions = new Map<string, TunnelSession>();
  /** Rendered on the apiserver's /metrics, beside its request metrics. */
  readonly metrics = new MetricsRegistry();
  private readonly connected = this.metrics.gauge({
    name: 'tkube_apiserver_tunnel_connected',
    help: 'Whether the node has a tunnel to the apiserver connected (1) or not.',
    labelNames: ['node'],
  });
  private readonly streams = this.metrics.gauge({
    name: 'tkube_apiserver_tunnel_open_streams',
    help: 'TCP streams open through the node tunnel now.',
    labelNames: ['node'],
  });
  private readonly dials = this.metrics.counter({
    name: 'tkube_apiserver_tunnel_dials_total',
    help: 'Connections the apiserver opened through node tunnels, by node and result (success or failure).',
    labelNames: ['node', 'result'],
  });

  constructor() {
    this.metrics.onCollect(() => {
      this.connected.reset();
      this.streams.reset();
      for (const [node, session] of this.sessions) {
        this.connected.set([node], session.closed ? 0 : 1);
        this.streams.set([node], session.openStreams);
      }
    });
  }

  /** Whether `node` has a tunnel connected now. */
  has(node: string): boolean {
    return this.sessions.get(node)?.closed === false;
  }

  /** Streams open (or opening) through `node`'s tunnel now: none should outlive its request. */
  openStreams(node: string): number {
    return this.sessions.get(node)?.openStreams ?? 0;
  }

  /** A stream to `target` inside `node`'s network, through its tunnel. */
  async open(node: string, target: TunnelTarget): Promise<TunnelStream> {
    const session = this.sessions.get(node);
    try {
      if (!session || session.closed) throw new Error(`no tunnel from node "${node}" is connected`);
      const stream = await session.open(target);
      this.dials.inc([node, 'success']);
      return stream;
    } catch (error) {
      this.dials.inc([node, 'failure']);
      throw error;
    }
  }

  /** Serves TUNNEL_PATH: answers 200 and keeps the request as the node's tunnel until it ends. */
  async serve(ctx: RequestContext): Promise<void> {
    const node = nodeNameOf(ctx.user);
    if (node === undefined || node === '') {
      throw new StatusError(
        403,
        'Forbidden',
        `User "${ctx.user.name}" cannot open a node tunnel: only nodes may`,
      );
    }
    if (ctx.method !== 'POST') throw methodNotAllowedOnPath();
    if (!('stream' in ctx.req)) throw badRequest('a node tunnel needs HTTP/2');
    const req = ctx.req as Http2ServerRequest;
    const res = ctx.res as Http2ServerResponse;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
    const session = new TunnelSession(Duplex.from({ readable: req, writable: res }));
    // A node that vanished without closing its connection is noticed, and its tunnel dropped.
    const stopPings = keepAlive(req.stream.session as Http2Session, PING_INTERVAL_MS, (error) =>
      session.close(error),
    );
    this.sessions.get(node)?.close(new Error('replaced by a newer tunnel from the node'));
    this.sessions.set(node, session);
    console.log(`apiserver: tunnel from node ${node} connected`);
    await new Promise<void>((resolve) =>
      session.onClose((error) => {
        stopPings();
        if (this.sessions.get(node) === session) this.sessions.delete(node);
        console.log(`apiserver: tunnel from node ${node} closed: ${error.message}`);
        resolve();
      }),
    );
  }

  /** Closes every tunnel (the control plane stops). */
  closeAll(): void {
    for (const session of this.sessions.values()) session.close(new Error('control plane stopping'));
    this.sessions.clear();
  }
}
