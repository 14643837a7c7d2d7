// The node heartbeat: a Lease in kube-node-lease renewed every 10 s (a quarter of its 40 s
// duration), owned by the Node so that it goes when the Node goes — as the kubelet keeps it.
import type { Lease } from '../../api/types/coordination-v1.generated.js';
import type { Node } from '../../api/types/core-v1.generated.js';
import { LEASES } from '../../client/resources.js';
import { isConflict, isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const NODE_LEASE_DURATION_SECONDS = 40;
export const NODE_LEASE_RENEW_INTERVAL_MS = (NODE_LEASE_DURATION_SECONDS * 1000) / 4;
const RETRY_INITIAL_MS = 200;
const RETRY_MAX_MS = 7_000;

/** metav1.MicroTime's wire form: RFC 3339 with microseconds. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/(\.\d{3})Z$/, '$1000Z');
}

export class NodeLease {
  private cached: Lease | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: Client,
    private readonly node: () => Node | undefined,
    private readonly nodeName: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Renews until `signal` aborts; a failed renewal retries sooner (200 ms doubling to 7 s). */
  start(signal: AbortSignal): void {
    let retryMs = RETRY_INITIAL_MS;
    const tick = () => {
      if (signal.aborted) return;
      this.renew()
        .then(() => {
          retryMs = RETRY_INITIAL_MS;
          return NODE_LEASE_RENEW_INTERVAL_MS;
        })
        .catch((error: unknown) => {
          console.error(`node lease renewal failed: ${String(error)}`);
          const delay = retryMs;
          retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
          return delay;
        })
        .then((delay) => {
          if (!signal.aborted) this.timer = setTimeout(tick, delay);
        });
    };
    tick();
    signal.addEventListener('abort', () => clearTimeout(this.timer), { once: true });
  }

  /** One renewal: update the cached Lease, or read/create it when the cache is stale. */
  async renew(): Promise<Lease> {
    const leases = this.client.resource<Lease>(LEASES);
    if (this.cached) {
      try {
        this.cached = await leases.update(this.renewed(this.cached));
        return this.cached;
      } catch (error) {
        if (!isConflict(error) && !isNotFound(error)) throw error;
        this.cached = undefined;
      }
    }
    try {
      const current = await leases.get(NODE_LEASE_NAMESPACE, this.nodeName);
      this.cached = await leases.update(this.renewed(current));
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.cached = await leases.create(
        this.renewed({ metadata: { name: this.nodeName, namespace: NODE_LEASE_NAMESPACE } }),
      );
    }
    return this.cached;
  }

  private renewed(lease: Lease): Lease {
    const node = this.node();
    const metadata = { ...lease.metadata };
    if (node?.metadata?.uid && !metadata.ownerReferences?.some((owner) => owner.uid === node.metadata!.uid)) {
      metadata.ownerReferences = [
        { apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: node.metadata.uid },
      ];
    }
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      ...lease,
      metadata,
      spec: {
        ...lease.spec,
        holderIdentity: this.nodeName,
        leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS,
        renewTime: microTime(this.now()),
      },
    };
  }
}
