// The work queue of client-go (util/workqueue), delaying variant included: an item queued many
// times before a worker takes it is processed once, and an item added while a worker holds it
// waits until that worker calls `done`, so no two workers ever hold the same item.
import { Fifo } from './fifo.js';

export interface WorkQueueMetrics {
  /** Items waiting for a worker. */
  readonly depth: number;
  /** Items taken by a worker and not yet done. */
  readonly processing: number;
  /** Items waiting for their `addAfter` delay. */
  readonly delayed: number;
  /** Additions that queued an item (repeats of a queued item are not counted). */
  readonly adds: number;
  /** Calls of `addAfter` (and so of `addRateLimited`). */
  readonly retries: number;
}

interface Delayed {
  readonly readyAt: number;
  readonly timer: NodeJS.Timeout;
}

export class WorkQueue<T = string> {
  private readonly queue = new Fifo<T>();
  /** Items that need processing: queued, or added again while being processed. */
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly delayed = new Map<T, Delayed>();
  private readonly getters: ((item: T | undefined) => void)[] = [];
  private readonly drainers: (() => void)[] = [];
  private readonly idlers: (() => void)[] = [];
  private shutdown = false;
  private adds = 0;
  private retries = 0;

  constructor(protected readonly now: () => number = Date.now) {}

  /** Queues the item unless it is queued already; ignored after shutdown. */
  add(item: T): void {
    if (this.shutdown || this.dirty.has(item)) return;
    this.adds++;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.queue.push(item);
    this.handOut();
  }

  /**
   * Queues the item after `delayMs`. An item already waiting keeps the earlier of its two ready
   * times.
   */
  addAfter(item: T, delayMs: number): void {
    if (this.shutdown) return;
    this.retries++;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.now() + delayMs;
    const existing = this.delayed.get(item);
    if (existing !== undefined) {
      if (existing.readyAt <= readyAt) return;
      clearTimeout(existing.timer);
    }
    const timer = setTimeout(() => {
      this.delayed.delete(item);
      this.add(item);
    }, delayMs);
    // A pending retry alone must not keep the process alive.
    timer.unref();
    this.delayed.set(item, { readyAt, timer });
  }

  /**
   * The next item, which the caller then holds until it calls `done`; `undefined` once the queue
   * is shut down and empty. Items queued before shutdown are still handed out.
   */
  get(): Promise<T | undefined> {
    const item = this.take();
    if (item !== undefined || this.shutdown) return Promise.resolve(item);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends processing of an item; an item added meanwhile is queued again now. */
  done(item: T): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) {
      this.queue.push(item);
      this.handOut();
    } else if (this.processing.size === 0) {
      for (const drained of this.drainers.splice(0)) drained();
      if (this.queue.length === 0) for (const idle of this.idlers.splice(0)) idle();
    }
  }

  /**
   * Resolves once no item is queued or being processed; items waiting out an `addAfter` delay do
   * not count. Also resolves on shutdown.
   */
  whenIdle(): Promise<void> {
    if (this.shutdown || (this.queue.length === 0 && this.processing.size === 0)) return Promise.resolve();
    return new Promise((resolve) => this.idlers.push(resolve));
  }

  /** Items waiting for a worker. */
  get length(): number {
    return this.queue.length;
  }

  get shuttingDown(): boolean {
    return this.shutdown;
  }

  /** Refuses new items, drops delayed ones; waiting `get` calls return undefined once empty. */
  shutDown(): void {
    this.shutdown = true;
    for (const idle of this.idlers.splice(0)) idle();
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    if (this.queue.length === 0) {
      for (const getter of this.getters.splice(0)) getter(undefined);
    }
  }

  /** Shuts down, then resolves once every item handed out is done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainers.push(resolve));
  }

  metrics(): WorkQueueMetrics {
    return {
      depth: this.queue.length,
      processing: this.processing.size,
      delayed: this.delayed.size,
      adds: this.adds,
      retries: this.retries,
    };
  }

  private take(): T | undefined {
    if (this.queue.length === 0) return undefined;
    const item = this.queue.shift() as T;
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }

  private handOut(): void {
    while (this.getters.length > 0 && this.queue.length > 0) {
      const getter = this.getters.shift()!;
      getter(this.take());
    }
  }
}
