import { WorkQueue } from './queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

/** A work queue whose retries wait as long as the rate limiter says (client-go's RateLimitingQueue). */
export class RateLimitingQueue<T = string> extends WorkQueue<T> {
  readonly rateLimiter: RateLimiter<T>;

  constructor(rateLimiter?: RateLimiter<T>, now: () => number = Date.now) {
    super(now);
    this.rateLimiter = rateLimiter ?? defaultControllerRateLimiter<T>(now);
  }

  /** Queues the item once the rate limiter allows it, counting a failure. */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** The item succeeded: its backoff starts over. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
