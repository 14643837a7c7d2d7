// The apiserver's view of pods/exec, attach and portforward connections: how each was carried
// (SPDY joined to the kubelet, a v5 WebSocket translated to SPDY, SPDY tunnelled in a WebSocket,
// an older WebSocket protocol passed on) and how many are open. tkube's own series: upstream
// counts them only as CONNECT requests.
import { MetricsRegistry } from '../../metrics/index.js';

export type PodStreamTransport = 'spdy' | 'websocket-v5' | 'websocket-spdy-tunnel' | 'websocket';

export class PodStreamMetrics {
  readonly registry = new MetricsRegistry();
  private readonly started = this.registry.counter({
    name: 'tkube_apiserver_pod_streams_total',
    help: 'Upgraded pods/exec, pods/attach and pods/portforward connections, by subresource and transport.',
    labelNames: ['subresource', 'transport'],
  });
  private readonly open = this.registry.gauge({
    name: 'tkube_apiserver_pod_streams_open',
    help: 'Upgraded pod stream connections open now.',
  });

  private openCount = 0;

  /** Connections started over `transport` so far. */
  count(subresource: string, transport: PodStreamTransport): number {
    return this.started.get([subresource, transport]);
  }

  /** Counts a connection until `done` settles. */
  async track(subresource: string, transport: PodStreamTransport, done: Promise<void>): Promise<void> {
    this.started.inc([subresource, transport]);
    this.open.set([], ++this.openCount);
    try {
      await done;
    } finally {
      this.open.set([], --this.openCount);
    }
  }
}
