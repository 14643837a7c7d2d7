// Rate limiters of the work queue (client-go util/workqueue): each says how long an item must
// wait before it is retried.
import { TokenBucket } from './token-bucket.js';

export interface RateLimiter<T> {
  /** Milliseconds the item waits before its next attempt; counts the attempt. */
  when(item: T): number;
  /** Stops tracking the item: its next failure starts from the base delay again. */
  forget(item: T): void;
  /** How many times the item failed since it was last forgotten. */
  numRequeues(item: T): number;
}

/** `baseMs * 2^failures`, at most `maxMs`, per item. */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  when(item: T): number {
    const exponent = this.failures.get(item) ?? 0;
    this.failures.set(item, exponent + 1);
    return Math.min(this.baseMs * 2 ** exponent, this.maxMs);
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** One token bucket shared by all items: bounds the overall retry rate. Tracks no items. */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private readonly bucket: TokenBucket;

  constructor(qps: number, burst: number, now?: () => number) {
    this.bucket = new TokenBucket(qps, burst, now);
  }

  when(_item: T): number {
    return this.bucket.reserve();
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest delay of several limiters; requeues are the most any of them counts. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let delay = 0;
    // Every limiter must see the attempt, so no short-circuit.
    for (const limiter of this.limiters) delay = Math.max(delay, limiter.when(item));
    return delay;
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.numRequeues(item)));
  }
}

/**
 * client-go's `DefaultControllerRateLimiter`: per-item exponential backoff from 5 ms to 1000 s,
 * and an overall bucket of 10 qps with a burst of 100.
 */
export function defaultControllerRateLimiter<T>(now?: () => number): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(10, 100, now),
  );
}
