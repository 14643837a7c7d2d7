/**
 * What the kine-style log stores (SQLite, PostgreSQL) share around their engine-specific
 * commit: the write queue (writes queued in one event-loop turn commit together, as kine
 * batches them), TTL deadlines, and watches over the log (StoreWatch) fed at commit.
 */
import { StoreClosedError } from '../errors.js';
import { prefixEnd } from '../keys.js';
import { type KeyRange, StoreWatch, type WatchSource } from '../store-watch.js';
import type {
  DeleteOptions,
  DeleteResult,
  KeyValue,
  PutOptions,
  UpdateOptions,
  UpdateResult,
  Watch,
  WatchEvent,
  WatchOptions,
} from '../types.js';
import type { PendingWrite, WriteOp, WriteResult } from './write-op.js';

export interface LogStoreOptions {
  /** Events a watcher may have waiting before it goes back to reading the log. Default 10,000. */
  readonly watchBufferLimit?: number;
  /** Clock for TTLs (ms since the epoch). */
  readonly now?: () => number;
}

export abstract class LogStore implements WatchSource {
  /** The last revision published to watchers. */
  protected revision = 0;
  protected compacted = 0;
  protected pending: PendingWrite[] = [];
  protected closed = false;
  /** True from the first queued write until the queue has drained (set by the subclass). */
  protected writing = false;
  protected readonly now: () => number;
  private readonly watchers = new Set<StoreWatch>();
  private readonly allWatches = new Set<StoreWatch>();
  private readonly watchBufferLimit: number;

  protected constructor(options: LogStoreOptions) {
    this.now = options.now ?? Date.now;
    this.watchBufferLimit = options.watchBufferLimit ?? 10_000;
  }

  /** Arranges for the queued writes to commit (called when the queue was idle); clears `writing` when done. */
  protected abstract startWriting(): void;

  abstract readHistory(
    range: KeyRange,
    after: number,
    upTo: number,
    limit: number,
  ): WatchEvent[] | Promise<WatchEvent[]>;

  currentRevision(): number {
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  create(key: string, value: string, options: PutOptions = {}): Promise<KeyValue> {
    return this.enqueue({ kind: 'create', key, value, expiresAt: this.expiry(options) }) as Promise<KeyValue>;
  }

  update(key: string, value: string, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.enqueue({
      kind: 'update',
      key,
      value,
      expiresAt: this.expiry(options),
      expectedRevision: options.expectedRevision,
    }) as Promise<UpdateResult>;
  }

  delete(key: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    return this.enqueue({
      kind: 'delete',
      key,
      expectedRevision: options.expectedRevision,
    }) as Promise<DeleteResult>;
  }

  watch(key: string, options: WatchOptions): Watch {
    this.assertOpen();
    const range: KeyRange = options.prefix ? { start: key, end: prefixEnd(key) } : { start: key };
    const watch = new StoreWatch(this, range, options.afterRevision, this.watchBufferLimit);
    this.allWatches.add(watch);
    return watch;
  }

  subscribe(watch: StoreWatch): void {
    this.watchers.add(watch);
  }

  unsubscribe(watch: StoreWatch): void {
    this.watchers.delete(watch);
  }

  /** Publishes committed events to the live watchers (revision already advanced). */
  protected deliver(events: readonly WatchEvent[]): void {
    for (const watch of this.watchers) watch.deliver(events);
  }

  /** Marks the store closed and ends every watch; queued writes must have committed. */
  protected closeWatches(): void {
    this.closed = true;
    for (const watch of this.allWatches) watch.storeClosed();
    this.allWatches.clear();
    this.watchers.clear();
  }

  protected assertOpen(): void {
    if (this.closed) throw new StoreClosedError();
  }

  private expiry(options: PutOptions): number | null {
    return options.ttlSeconds !== undefined && options.ttlSeconds > 0
      ? this.now() + options.ttlSeconds * 1000
      : null;
  }

  private enqueue(op: WriteOp): Promise<WriteResult> {
    if (this.closed) return Promise.reject(new StoreClosedError());
    return new Promise((resolve, reject) => {
      this.pending.push({ op, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        this.startWriting();
      }
    });
  }
}
