// The skeleton of every controller: informers feed keys into a rate-limited work queue, N workers
// take keys off it and call an idempotent `sync(key)`. A failed sync is retried with per-key
// exponential backoff up to `maxRetries` times, then dropped with a log line, as Kubernetes'
// controllers do; a successful one resets the key's backoff.
import {
  apiErrorCode,
  DeletedFinalStateUnknown,
  type EventHandler,
  type HandlerRegistration,
  keyOf,
  objectOf,
  type SharedInformer,
  type SyncSource,
  waitForCacheSync,
} from './informers/index.js';
import type { ApiObject } from './types.js';
import { RateLimitingQueue } from './workqueue/index.js';

export interface SyncResult {
  /** Sync the key again after this long even though nothing changed (deadlines, TTLs). */
  readonly requeueAfterMs?: number;
}

/** Reconciles one key (`namespace/name` or `name`); must be idempotent. Throwing retries it. */
// biome-ignore lint/suspicious/noConfusingVoidType: most syncs return nothing, so `async () => {}` must fit.
export type SyncFunction = (key: string, signal: AbortSignal) => Promise<SyncResult | void>;

export interface ControllerOptions {
  /** For log lines: `deployment`, `replicaset` ... */
  readonly name: string;
  readonly sync: SyncFunction;
  /** Concurrent syncs (never two of one key); default 1. */
  readonly workers?: number;
  /** Failures of one key before it is dropped; default 15, as most Kubernetes controllers. */
  readonly maxRetries?: number;
  /** More caches to wait for before the first sync (handlers added with `watch` are waited for). */
  readonly waitFor?: readonly SyncSource[];
  /** Default: a queue with client-go's default controller rate limiter. */
  readonly queue?: RateLimitingQueue<string>;
  readonly log?: (message: string) => void;
}

/** Maps a changed object to the keys to sync (e.g. a pod to its owner's key); none to skip. */
export type KeyMapper<T extends ApiObject> = (object: T) => string | readonly string[] | undefined;

export class Controller {
  readonly name: string;
  readonly queue: RateLimitingQueue<string>;
  private readonly syncFn: SyncFunction;
  private readonly workers: number;
  private readonly maxRetries: number;
  private readonly waitFor: SyncSource[];
  private readonly log: (message: string) => void;
  private markStarted: () => void = () => {};
  /** Settles once `run` has waited for the caches (synced, or stopped first). */
  private readonly started = new Promise<void>((resolve) => {
    this.markStarted = resolve;
  });

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.syncFn = options.sync;
    this.workers = Math.max(1, options.workers ?? 1);
    this.maxRetries = options.maxRetries ?? 15;
    this.waitFor = [...(options.waitFor ?? [])];
    this.queue = options.queue ?? new RateLimitingQueue<string>();
    this.log = options.log ?? ((message) => console.error(message));
  }

  /** Queues the key of an object (or of a tombstone). */
  enqueue(object: ApiObject | DeletedFinalStateUnknown<ApiObject>): void {
    this.queue.add(keyOf(object));
  }

  enqueueKey(key: string): void {
    this.queue.add(key);
  }

  /** Queues a key (or an object's key) after a delay. */
  enqueueAfter(keyOrObject: string | ApiObject, delayMs: number): void {
    this.queue.addAfter(typeof keyOrObject === 'string' ? keyOrObject : keyOf(keyOrObject), delayMs);
  }

  /**
   * Subscribes to an informer: every added, updated or deleted object queues the keys `toKeys`
   * maps it to (its own key by default; for updates, those of the old and the new object). The
   * controller waits for this handler's cache sync before its first sync.
   */
  watch<T extends ApiObject>(informer: SharedInformer<T>, toKeys?: KeyMapper<T>): HandlerRegistration {
    const registration = informer.addEventHandler(this.handler(toKeys));
    this.waitFor.push(registration);
    return registration;
  }

  /** An event handler queueing keys as {@link watch} does, for use with any informer. */
  handler<T extends ApiObject>(toKeys?: KeyMapper<T>): EventHandler<T> {
    const queueFor = (object: T | DeletedFinalStateUnknown<T>): void => {
      if (toKeys === undefined) {
        this.queue.add(keyOf(object));
        return;
      }
      const keys = toKeys(objectOf(object));
      if (keys === undefined) return;
      for (const key of typeof keys === 'string' ? [keys] : keys) this.queue.add(key);
    };
    return {
      onAdd: (object) => queueFor(object),
      onUpdate: (oldObject, newObject) => {
        if (toKeys !== undefined) queueFor(oldObject);
        queueFor(newObject);
      },
      onDelete: (object) => queueFor(object),
    };
  }

  /**
   * Waits for the caches, then runs the workers until the signal aborts; resolves once the syncs
   * in progress have finished. Keys still queued then are not synced.
   */
  async run(signal: AbortSignal): Promise<void> {
    const synced = await waitForCacheSync(signal, this.waitFor);
    this.markStarted();
    if (!synced) {
      this.queue.shutDown();
      return;
    }
    const stop = (): void => this.queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await Promise.all(Array.from({ length: this.workers }, () => this.worker(signal)));
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  /**
   * Resolves once the controller runs with its caches synced and has synced every key queued so
   * far (what it found at start among them); keys waiting out a retry's backoff do not count.
   */
  async caughtUp(): Promise<void> {
    await this.started;
    await this.queue.whenIdle();
  }

  private async worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      if (signal.aborted) {
        this.queue.done(key);
        return;
      }
      await this.process(key, signal);
    }
  }

  private async process(key: string, signal: AbortSignal): Promise<void> {
    try {
      const result = await this.syncFn(key, signal);
      this.queue.forget(key);
      if (result?.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
    } catch (error) {
      this.handleError(key, error);
    } finally {
      this.queue.done(key);
    }
  }

  private handleError(key: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (this.queue.numRequeues(key) < this.maxRetries) {
      // Conflicts are routine (a stale cache); they are retried without noise.
      if (apiErrorCode(error) !== 409) this.log(`${this.name}: error syncing "${key}": ${message}`);
      this.queue.addRateLimited(key);
      return;
    }
    this.log(`${this.name}: dropping "${key}" out of the queue: ${message}`);
    this.queue.forget(key);
  }
}

export { splitKey } from './informers/index.js';
export { DeletedFinalStateUnknown, keyOf, objectOf };
