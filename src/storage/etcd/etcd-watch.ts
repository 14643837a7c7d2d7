/**
 * A store watch on etcd: one etcd v3 watch (clientv3's Watch, as kube-apiserver's
 * storage/etcd3/watcher.go opens it) from the requested revision, with prevKV for
 * update/delete events and progress notifications that advance its position. The client
 * resumes it from the last seen revision when the connection drops. A consumer that falls
 * more than `bufferLimit` events behind loses its buffer and its etcd watch; its next read
 * opens a new one from where it stands, or fails if compaction has passed it meanwhile.
 */
import type { Etcd3, IEvent, IWatchResponse, Watcher } from 'etcd3';
import { CompactedError, StoreClosedError, StoreError } from '../errors.js';
import type { Watch, WatchEvent } from '../types.js';

/** Decides why etcd canceled a watch: a CompactedError when its position was compacted. */
export type CancelCause = (lastRevision: number, reason: string) => Promise<Error>;

export class EtcdWatch implements Watch, AsyncIterator<WatchEvent[]> {
  private delivered: number;
  private buffer: WatchEvent[] = [];
  private waiting?: {
    resolve: (result: IteratorResult<WatchEvent[]>) => void;
    reject: (error: unknown) => void;
  };
  private failure?: Error;
  private closed = false;
  /** The etcd watch; undefined after the consumer fell too far behind, until its next read. */
  private watcher: Watcher | undefined;

  constructor(
    private readonly client: Etcd3,
    private readonly start: Buffer,
    private readonly end: Buffer | undefined,
    afterRevision: number,
    private readonly source: {
      readonly bufferLimit: number;
      compactedRevision(): number;
      cancelCause: CancelCause;
      closed(watch: EtcdWatch): void;
    },
  ) {
    this.delivered = afterRevision;
    this.watcher = this.open();
  }

  private open(): Watcher {
    const builder = this.client
      .watch()
      .withPreviousKV()
      .startRevision(String(this.delivered + 1));
    const watcher = (
      this.end === undefined ? builder.key(this.start) : builder.inRange({ start: this.start, end: this.end })
    ).watcher();
    watcher.on('data', (response) => this.receive(response));
    watcher.on('error', (error) => {
      this.source.cancelCause(this.delivered, error.message).then(
        (reason) => this.fail(reason),
        () => this.fail(new StoreError(error.message)),
      );
    });
    return watcher;
  }

  get lastRevision(): number {
    return this.delivered;
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent[]> {
    return this;
  }

  next(): Promise<IteratorResult<WatchEvent[]>> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.resolve({ done: true, value: undefined });
    if (this.waiting)
      return Promise.reject(new Error('watch: next() called while a previous call is pending'));
    if (this.buffer.length > 0) return Promise.resolve(this.take());
    if (!this.watcher) {
      const compacted = this.source.compactedRevision();
      if (this.delivered < compacted) {
        const error = new CompactedError(this.delivered, compacted);
        this.fail(error);
        return Promise.reject(error);
      }
      this.watcher = this.open();
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
    this.source.closed(this);
    this.buffer = [];
    this.stop();
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ done: true, value: undefined });
    }
  }

  /** Ends the watch with an error (store closing, compaction, a canceled watch). */
  fail(error: Error): void {
    if (this.closed || this.failure) return;
    this.failure = error;
    this.source.closed(this);
    this.buffer = [];
    this.stop();
    if (this.waiting) {
      const { reject } = this.waiting;
      this.waiting = undefined;
      reject(error);
    }
  }

  storeClosed(): void {
    this.fail(new StoreClosedError());
  }

  private receive(response: IWatchResponse): void {
    if (this.closed || this.failure) return;
    const compacted = Number(response.compact_revision);
    if (compacted > 0) {
      this.fail(new CompactedError(this.delivered, compacted));
      return;
    }
    for (const event of response.events) {
      const converted = toWatchEvent(event);
      if (converted.revision > this.delivered) this.buffer.push(converted);
    }
    if (this.buffer.length === 0) {
      // A progress notification: every event up to the header's revision has been sent.
      if (response.events.length === 0) {
        const revision = Number(response.header.revision);
        if (revision > this.delivered) this.delivered = revision;
      }
      return;
    }
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve(this.take());
    } else if (this.buffer.length > this.source.bufferLimit) {
      // Too slow: forget the buffer and the etcd watch; the next read resumes from etcd's history.
      this.buffer = [];
      this.stop();
    }
  }

  private take(): IteratorResult<WatchEvent[]> {
    const events = this.buffer;
    this.buffer = [];
    this.delivered = events[events.length - 1]!.revision;
    return { done: false, value: events };
  }

  private stop(): void {
    const watcher = this.watcher;
    this.watcher = undefined;
    if (!watcher) return;
    watcher.removeAllListeners();
    // A watch closed before etcd confirmed it is canceled once confirmed; errors are moot then.
    watcher.on('error', () => {});
    watcher.cancel().catch(() => {});
  }
}

/** etcd's event to the store's: a put whose create and mod revisions agree is a create. */
export function toWatchEvent(event: IEvent): WatchEvent {
  const { kv, prev_kv: prev } = event;
  const key = kv.key.toString();
  const revision = Number(kv.mod_revision);
  const previous = prev ? { prevValue: prev.value.toString(), prevRevision: Number(prev.mod_revision) } : {};
  if (event.type === 'Delete') {
    return {
      type: 'delete',
      key,
      revision,
      createRevision: prev ? Number(prev.create_revision) : 0,
      ...previous,
    };
  }
  const createRevision = Number(kv.create_revision);
  const value = kv.value.toString();
  if (createRevision === revision) return { type: 'create', key, revision, value, createRevision };
  return { type: 'update', key, revision, value, createRevision, ...previous };
}
