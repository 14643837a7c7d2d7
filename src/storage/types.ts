/**
 * The store the apiserver sits on: a revisioned key-value store with etcd's semantics
 * (global revision per write, compare-and-swap, list and watch at a revision, TTL,
 * compaction). SQLite implements it today; another engine can replace it behind this
 * interface.
 */

/** One live key at some revision. `value` is the stored text (JSON for Kubernetes objects). */
export interface KeyValue {
  readonly key: string;
  readonly value: string;
  /** Revision of the write that created this incarnation of the key. */
  readonly createRevision: number;
  /** Revision of the last write to the key. Kubernetes exposes it as `resourceVersion`. */
  readonly modRevision: number;
}

export interface ReadOptions {
  /** Read as of this revision (must not be compacted). Default: the current revision. */
  readonly revision?: number;
}

export interface ListOptions extends ReadOptions {
  /** At most this many items; a `continue` token is returned when more exist. */
  readonly limit?: number;
  /** Token from a previous page: the list goes on at that page's revision. */
  readonly continue?: string;
}

export interface ListResult {
  readonly items: KeyValue[];
  /** The revision the list was read at. */
  readonly revision: number;
  /** Present when more items follow. */
  readonly continue?: string;
}

export interface PutOptions {
  /** The key is deleted (a normal delete, seen by watchers) this many seconds after the write. */
  readonly ttlSeconds?: number;
}

export interface UpdateOptions extends PutOptions {
  /** Compare-and-swap: fail with a conflict unless the key's modRevision equals this. */
  readonly expectedRevision?: number;
}

export interface DeleteOptions {
  /** Compare-and-swap: fail with a conflict unless the key's modRevision equals this. */
  readonly expectedRevision?: number;
}

export interface UpdateResult {
  readonly current: KeyValue;
  readonly previous: KeyValue;
}

export interface DeleteResult {
  readonly revision: number;
  readonly previous: KeyValue;
}

export type WatchEventType = 'create' | 'update' | 'delete';

export interface WatchEvent {
  readonly type: WatchEventType;
  readonly key: string;
  /** Revision of this write. */
  readonly revision: number;
  /** The new value; absent on delete. */
  readonly value?: string;
  readonly createRevision: number;
  /** The value before this write; present on update and delete. */
  readonly prevValue?: string;
  /** The modRevision before this write; present on update and delete. */
  readonly prevRevision?: number;
}

export interface WatchOptions {
  /** Deliver the events with revisions strictly greater than this one. */
  readonly afterRevision: number;
  /** Watch every key starting with `key` instead of `key` alone. */
  readonly prefix?: boolean;
}

/**
 * A watch is an async iterable of event batches, in strict revision order. It ends with an
 * error when it cannot go on without losing events (its position was compacted away); the
 * consumer then resumes from the last revision it saw, or relists.
 */
export interface Watch extends AsyncIterable<WatchEvent[]> {
  /** The revision of the last event handed to the consumer (or the start revision). */
  readonly lastRevision: number;
  close(): void;
}

export interface StoreStats {
  readonly revision: number;
  readonly compactedRevision: number;
  readonly keys: number;
  /** Bytes on disk: the main database file and its write-ahead log. */
  readonly databaseBytes: number;
  readonly walBytes: number;
}

export interface Store {
  /** The revision of the last committed write. */
  currentRevision(): number;
  /** Reads and watches below this revision fail with a CompactedError. */
  compactedRevision(): number;

  get(key: string, options?: ReadOptions): Promise<KeyValue | undefined>;
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  count(prefix: string): Promise<number>;

  /** Fails with KeyExistsError when the key exists. */
  create(key: string, value: string, options?: PutOptions): Promise<KeyValue>;
  /** Fails with KeyNotFoundError when the key is absent, ConflictError on a revision mismatch. */
  update(key: string, value: string, options?: UpdateOptions): Promise<UpdateResult>;
  /** Fails with KeyNotFoundError when the key is absent, ConflictError on a revision mismatch. */
  delete(key: string, options?: DeleteOptions): Promise<DeleteResult>;

  /** Throws CompactedError at once when `afterRevision` is already compacted. */
  watch(key: string, options: WatchOptions): Watch;

  /** Runs TTL expiry, compaction and file maintenance now instead of on the next tick. */
  maintain(): Promise<void>;
  stats(): StoreStats;
  close(): Promise<void>;
}
