/**
 * Leases for keys with a TTL, after kube-apiserver's storage/etcd3/lease_manager.go: a
 * lease granted for a TTL is reused by later writes asking for about the same TTL for a
 * short while (5% of the TTL, at most 60 s), so a burst of Events costs one LeaseGrant,
 * not one per Event. A key may then outlive its TTL by at most that reuse window.
 */
import type { Etcd3 } from 'etcd3';

const REUSE_FRACTION = 0.05;
const MAX_REUSE_SECONDS = 60;

interface GrantedLease {
  readonly id: string;
  /** Writes asking for this TTL may reuse the lease until this time (ms since the epoch). */
  readonly reuseUntil: number;
}

export class LeaseManager {
  private readonly byTtl = new Map<number, Promise<GrantedLease>>();

  constructor(private readonly client: Etcd3) {}

  /** A lease id for a key that must go `ttlSeconds` from now. */
  async leaseFor(ttlSeconds: number): Promise<string> {
    const ttl = Math.ceil(ttlSeconds);
    const now = Date.now();
    const cached = this.byTtl.get(ttl);
    if (cached) {
      const lease = await cached.catch(() => undefined);
      if (lease && lease.reuseUntil > now) return lease.id;
    }
    const reuseSeconds = Math.min(Math.floor(ttl * REUSE_FRACTION), MAX_REUSE_SECONDS);
    const granted = this.client.leaseClient
      .leaseGrant({ TTL: ttl + reuseSeconds })
      .then((response) => ({ id: response.ID, reuseUntil: now + reuseSeconds * 1000 }));
    if (reuseSeconds > 0) this.byTtl.set(ttl, granted);
    const result = await granted.catch((error: unknown) => {
      if (this.byTtl.get(ttl) === granted) this.byTtl.delete(ttl);
      throw error;
    });
    return result.id;
  }
}
