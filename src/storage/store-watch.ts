/**
 * A store watch over any backend whose history is readable by revision (SQLite, PostgreSQL):
 * the counterpart of etcd's watchable store (server/storage/mvcc/watchable_store.go), with
 * its synced/unsynced watcher groups.
 */
import { CompactedError, StoreClosedError } from './errors.js';
import type { Watch, WatchEvent } from './types.js';

/** A key range [start, end), or one exact key when `end` is undefined. */
export interface KeyRange {
  readonly start: string;
  readonly end?: string;
}

export function inRange(range: KeyRange, key: string): boolean {
  return range.end === undefined ? key === range.start : key >= range.start && key < range.end;
}

/** What a watch needs from its store. */
export interface WatchSource {
  currentRevision(): number;
  compactedRevision(): number;
  /** Events in `range` with after < revision <= upTo, oldest first, at most `limit`. */
  readHistory(
    range: KeyRange,
    after: number,
    upTo: number,
    limit: number,
  ): WatchEvent[] | Promise<WatchEvent[]>;
  subscribe(watch: StoreWatch): void;
  unsubscribe(watch: StoreWatch): void;
}

const HISTORY_PAGE = 1000;

/**
 * A watch reads history from the log until it reaches the current revision, then
 * receives live events pushed at commit. A consumer that falls more than `bufferLimit`
 * events behind is not allowed to hold memory or slow anyone down: its buffer is
 * dropped and it goes back to reading the log from its last delivered revision. It
 * fails only when compaction has removed events it has not seen.
 */
export class StoreWatch implements Watch, AsyncIterator<WatchEvent[]> {
  private delivered: number;
  /** Revision up to which history has been read, while catching up. */
  private cursor: number;
  private live = false;
  private buffer: WatchEvent[] = [];
  private waiting?: {
    resolve: (result: IteratorResult<WatchEvent[]>) => void;
    reject: (error: unknown) => void;
  };
  private failure?: Error;
  private closed = false;

  constructor(
    private readonly source: WatchSource,
    readonly range: KeyRange,
    afterRevision: number,
    private readonly bufferLimit: number,
  ) {
    const compacted = source.compactedRevision();
    if (afterRevision < compacted) throw new CompactedError(afterRevision, compacted);
    this.delivered = afterRevision;
    this.cursor = afterRevision;
  }

  get lastRevision(): number {
    return this.delivered;
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent[]> {
    return this;
  }

  /** Called by the store after each commit with that commit's events (all ranges). */
  deliver(events: readonly WatchEvent[]): void {
    for (const event of events) {
      // A watch may start past the revision published so far (a list read a newer snapshot).
      if (event.revision > this.cursor && inRange(this.range, event.key)) this.buffer.push(event);
    }
    if (this.buffer.length === 0) return;
    if (this.waiting) {
      this.hand(this.takeBuffer());
    } else if (this.buffer.length > this.bufferLimit) {
      // Too slow: forget the buffer and read the log from where the consumer stands.
      this.buffer = [];
      this.live = false;
      this.cursor = this.delivered;
      this.source.unsubscribe(this);
    }
  }

  /** Ends the watch with an error (store closing, or an unrecoverable fault). */
  fail(error: Error): void {
    if (this.closed || this.failure) return;
    this.failure = error;
    this.detach();
    if (this.waiting) {
      const { reject } = this.waiting;
      this.waiting = undefined;
      reject(error);
    }
  }

  next(): Promise<IteratorResult<WatchEvent[]>> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.resolve({ done: true, value: undefined });
    if (this.waiting)
      return Promise.reject(new Error('watch: next() called while a previous call is pending'));
    if (this.buffer.length > 0) return Promise.resolve(this.result(this.takeBuffer()));
    if (!this.live) {
      let events: WatchEvent[] | Promise<WatchEvent[]>;
      try {
        events = this.catchUp();
      } catch (error) {
        this.fail(error as Error);
        return Promise.reject(error);
      }
      if (events instanceof Promise) {
        return events.then(
          (read) => (read.length > 0 ? this.result(read) : this.next()),
          (error: unknown) => {
            this.fail(error as Error);
            throw error;
          },
        );
      }
      if (events.length > 0) return Promise.resolve(this.result(events));
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<WatchEvent[]>> {
    this.close();
    return Promise.resolve({ done: true, value: undefined });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = [];
    this.detach();
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ done: true, value: undefined });
    }
  }

  /** Store shutdown: a consumer still iterating learns why the watch ended. */
  storeClosed(): void {
    this.fail(new StoreClosedError());
  }

  /**
   * Reads the next page of history, or subscribes once none is left (an empty result).
   * Comparing with the current revision and subscribing happen in one synchronous step (the
   * store publishes a commit's revision and its events in one step too), so no commit can fall
   * between history and live events. A store that reads synchronously (SQLite) gets a
   * synchronous answer: a consumer then waits on the live events themselves, and receives a
   * write's events before the write's own promise settles.
   */
  private catchUp(): WatchEvent[] | Promise<WatchEvent[]> {
    for (;;) {
      const compacted = this.source.compactedRevision();
      if (this.cursor < compacted) throw new CompactedError(this.cursor, compacted);
      const upTo = this.source.currentRevision();
      if (this.cursor >= upTo) {
        this.live = true;
        this.source.subscribe(this);
        return [];
      }
      const read = this.source.readHistory(this.range, this.cursor, upTo, HISTORY_PAGE);
      if (read instanceof Promise) {
        return read.then((events) => {
          if (this.closed || this.failure) return [];
          this.advance(events, upTo);
          return events.length > 0 ? events : this.catchUp();
        });
      }
      this.advance(read, upTo);
      if (read.length > 0) return read;
    }
  }

  private advance(events: WatchEvent[], upTo: number): void {
    this.cursor = events.length === HISTORY_PAGE ? events[events.length - 1]!.revision : upTo;
  }

  private takeBuffer(): WatchEvent[] {
    const events = this.buffer;
    this.buffer = [];
    return events;
  }

  private hand(events: WatchEvent[]): void {
    const { resolve } = this.waiting!;
    this.waiting = undefined;
    resolve(this.result(events));
  }

  private result(events: WatchEvent[]): IteratorResult<WatchEvent[]> {
    this.delivered = events[events.length - 1]!.revision;
    return { done: false, value: events };
  }

  private detach(): void {
    if (this.live) this.source.unsubscribe(this);
    this.live = false;
  }
}
