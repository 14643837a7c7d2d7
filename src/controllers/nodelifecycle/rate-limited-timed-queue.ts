// The per-zone queue of nodes waiting for a NoExecute taint (nodelifecycle/scheduler
// RateLimitedTimedQueue): nodes in order of when they may be processed, at most as fast as the
// zone's eviction rate allows. A processed node stays remembered, so it is not queued again
// until it is explicitly removed (when it becomes healthy, or its taint disappears).
import { TokenBucket } from '../../client/workqueue/index.js';

/** client-go's EvictionRateLimiterBurst. */
const EVICTION_BURST = 1;

interface TimedValue {
  readonly value: string;
  readonly uid: string;
  readonly addedAt: number;
  processAt: number;
}

export class RateLimitedTimedQueue {
  private readonly waiting = new Map<string, TimedValue>();
  /** Every value added and not removed, processed or not. */
  private readonly known = new Set<string>();
  private limiter: TokenBucket | undefined;
  private qps: number;

  constructor(qps: number) {
    this.qps = qps;
    this.limiter = qps > 0 ? new TokenBucket(qps, EVICTION_BURST) : undefined;
  }

  /** Queues a value unless it is known already. */
  add(value: string, uid: string, now = Date.now()): boolean {
    if (this.known.has(value)) return false;
    this.known.add(value);
    this.waiting.set(value, { value, uid, addedAt: now, processAt: now });
    return true;
  }

  /** Forgets a value; true when it was known. */
  remove(value: string): boolean {
    this.waiting.delete(value);
    return this.known.delete(value);
  }

  /**
   * Processes due values in order while the rate limit allows. `process` returns true when done
   * with a value, or false and a delay (ms) before it is due again.
   */
  async try(
    process: (value: string, uid: string) => Promise<[done: boolean, retryAfterMs: number]>,
  ): Promise<void> {
    for (;;) {
      const head = this.head();
      if (!head || !this.limiter?.tryAccept()) return;
      const now = Date.now();
      if (now < head.processAt) return;
      const [done, retryAfterMs] = await process(head.value, head.uid);
      if (done) this.waiting.delete(head.value);
      else head.processAt = now + retryAfterMs + 1;
    }
  }

  /** Changes the rate; 0 stops processing. While out of tokens, the new limiter starts out of them too. */
  swapLimiter(qps: number): void {
    if (qps === this.qps) return;
    const exhausted = !this.limiter?.tryAccept();
    this.qps = qps;
    this.limiter = qps > 0 ? new TokenBucket(qps, EVICTION_BURST) : undefined;
    if (exhausted) this.limiter?.tryAccept();
  }

  private head(): TimedValue | undefined {
    let first: TimedValue | undefined;
    for (const item of this.waiting.values()) {
      if (!first || item.processAt < first.processAt) first = item;
    }
    return first;
  }
}
