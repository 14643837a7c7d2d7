import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { decodeContinue, encodeContinue } from '../continue-token.js';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  StoreClosedError,
} from '../errors.js';
import { prefixEnd } from '../keys.js';
import { type KeyRange, StoreWatch, type WatchSource } from '../store-watch.js';
import type {
  DeleteOptions,
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  PutOptions,
  ReadOptions,
  Store,
  StoreStats,
  UpdateOptions,
  UpdateResult,
  Watch,
  WatchEvent,
  WatchOptions,
} from '../types.js';
import { Maintenance } from './maintenance.js';
import { KIND_CREATE, KIND_DELETE, KIND_UPDATE, openDatabase, type SyncMode } from './schema.js';
import { prepareStatements, type Statements } from './statements.js';

export interface SqliteStoreOptions {
  /** Database file path (created when absent). */
  readonly path: string;
  /** 'normal' (default): acknowledged writes survive a process crash; 'full' also survives power loss. */
  readonly sync?: SyncMode;
  /** How many revisions of history stay readable and watchable. Default 1000. */
  readonly historyRevisions?: number;
  /** How often TTL expiry, compaction and file maintenance run. Default 1000 ms. */
  readonly maintenanceIntervalMs?: number;
  /** Events a watcher may have waiting before it goes back to reading the log. Default 10,000. */
  readonly watchBufferLimit?: number;
  /** Clock for TTLs (ms since the epoch). */
  readonly now?: () => number;
}

type WriteOp =
  | { kind: 'create'; key: string; value: string; expiresAt: number | null }
  | { kind: 'update'; key: string; value: string; expiresAt: number | null; expectedRevision?: number }
  | { kind: 'delete'; key: string; expectedRevision?: number };

interface PendingWrite {
  op: WriteOp;
  resolve: (result: KeyValue | UpdateResult | DeleteResult) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; result: KeyValue | UpdateResult | DeleteResult } | { ok: false; error: unknown };

/** Writes queued in one event-loop turn commit together, up to this many per transaction. */
const MAX_BATCH = 1000;

/** The SQLite implementation of {@link Store}. */
export class SqliteStore implements Store, WatchSource {
  private readonly statements: Statements;
  private revision: number;
  private compacted: number;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private readonly watchers = new Set<StoreWatch>();
  private readonly allWatches = new Set<StoreWatch>();
  private readonly maintenance: Maintenance;
  private readonly now: () => number;
  private readonly watchBufferLimit: number;
  private closed = false;
  /** One transaction applying a batch of writes, made once: better-sqlite3 builds a wrapper per call to transaction(). */
  private readonly applyBatch: (batch: PendingWrite[], outcomes: Outcome[], events: WatchEvent[]) => void;

  static open(options: SqliteStoreOptions): SqliteStore {
    return new SqliteStore(openDatabase(options.path, options.sync ?? 'normal'), options);
  }

  private constructor(
    private readonly db: Database.Database,
    private readonly options: SqliteStoreOptions,
  ) {
    this.statements = prepareStatements(db);
    this.applyBatch = db.transaction((batch: PendingWrite[], outcomes: Outcome[], events: WatchEvent[]) => {
      for (const { op } of batch) outcomes.push(this.apply(op, events));
    });
    this.compacted = this.statements.getMeta.pluck().get('compacted_rev') as number;
    const maxRev = (this.statements.maxRevision.pluck().get() as number | null) ?? 0;
    this.revision = Math.max(maxRev, this.compacted);
    this.now = options.now ?? Date.now;
    this.watchBufferLimit = options.watchBufferLimit ?? 10_000;
    this.maintenance = new Maintenance(db, this.statements, {
      historyRevisions: options.historyRevisions ?? 1000,
      intervalMs: options.maintenanceIntervalMs ?? 1000,
      path: options.path,
      now: this.now,
      currentRevision: () => this.revision,
      setCompactedRevision: (revision) => {
        this.compacted = revision;
      },
      expire: (key, modRevision) => this.delete(key, { expectedRevision: modRevision }),
    });
  }

  currentRevision(): number {
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  // ---- reads ---------------------------------------------------------------------------

  async get(key: string, options: ReadOptions = {}): Promise<KeyValue | undefined> {
    this.assertOpen();
    const revision = this.readRevision(options.revision);
    if (revision === this.revision) {
      const row = this.statements.getCurrent.get(key) as CurrentRow | undefined;
      return row && toKeyValue(key, row);
    }
    return this.getAt(key, revision);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    let revision: number;
    let start = prefix;
    if (options.continue !== undefined) {
      const position = decodeContinue(options.continue);
      revision = this.readRevision(position.revision);
      start = prefix + position.start;
    } else {
      revision = this.readRevision(options.revision);
    }
    const end = prefixEnd(prefix);
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    const fetch = limit === undefined ? -1 : limit + 1;
    const items =
      revision === this.revision
        ? (this.statements.listCurrent.raw().all(start, end, fetch) as ListRow[]).map(rowToKeyValue)
        : this.listAt(start, end, revision, fetch);
    if (limit !== undefined && items.length > limit) {
      items.length = limit;
      const next = `${items[limit - 1]!.key}\0`;
      return { items, revision, continue: encodeContinue({ revision, start: next.slice(prefix.length) }) };
    }
    return { items, revision };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    return this.statements.countRange.pluck().get(prefix, prefixEnd(prefix)) as number;
  }

  // ---- writes (group commit) -------------------------------------------------------------

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

  // ---- watch ---------------------------------------------------------------------------

  watch(key: string, options: WatchOptions): Watch {
    this.assertOpen();
    const range: KeyRange = options.prefix ? { start: key, end: prefixEnd(key) } : { start: key };
    const watch = new StoreWatch(this, range, options.afterRevision, this.watchBufferLimit);
    this.allWatches.add(watch);
    return watch;
  }

  readHistory(range: KeyRange, after: number, upTo: number, limit: number): WatchEvent[] {
    const rows = (
      range.end === undefined
        ? this.statements.historyForKey.raw().all(range.start, after, upTo, limit)
        : this.statements.historyForRange.raw().all(after, upTo, range.start, range.end, limit)
    ) as HistoryRow[];
    return rows.map(historyRowToEvent);
  }

  subscribe(watch: StoreWatch): void {
    this.watchers.add(watch);
  }

  unsubscribe(watch: StoreWatch): void {
    this.watchers.delete(watch);
  }

  // ---- maintenance and lifecycle ---------------------------------------------------------

  async maintain(): Promise<void> {
    this.assertOpen();
    await this.maintenance.runNow();
  }

  stats(): StoreStats {
    const size = (path: string): number => {
      try {
        return statSync(path).size;
      } catch {
        return 0;
      }
    };
    return {
      revision: this.revision,
      compactedRevision: this.compacted,
      keys: this.statements.countAll.pluck().get() as number,
      databaseBytes: size(this.options.path),
      walBytes: size(`${this.options.path}-wal`),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.maintenance.stop();
    while (this.pending.length > 0) this.flush();
    this.closed = true;
    for (const watch of this.allWatches) watch.storeClosed();
    this.allWatches.clear();
    this.watchers.clear();
    await this.maintenance.idle();
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.close();
  }

  // ---- internals -------------------------------------------------------------------------

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError();
  }

  private expiry(options: PutOptions): number | null {
    return options.ttlSeconds !== undefined && options.ttlSeconds > 0
      ? this.now() + options.ttlSeconds * 1000
      : null;
  }

  /** Validates a requested read revision; undefined or 0 mean the current one. */
  private readRevision(requested: number | undefined): number {
    if (requested === undefined || requested === 0) return this.revision;
    if (requested < this.compacted) throw new CompactedError(requested, this.compacted);
    if (requested > this.revision) throw new FutureRevisionError(requested, this.revision);
    return requested;
  }

  private getAt(key: string, revision: number): KeyValue | undefined {
    const row = this.statements.getAt.raw().get(key, revision) as AtRow | undefined;
    if (!row || row[1] === KIND_DELETE) return undefined;
    return { key, modRevision: row[0], value: row[2]!, createRevision: row[3] };
  }

  /**
   * A list at an older revision: keys untouched since then come from current state; keys
   * written since are looked up in the log. The cost grows with the writes after `revision`
   * (bounded by the history window), never with the total history.
   */
  private listAt(start: string, end: string, revision: number, fetch: number): KeyValue[] {
    const unchanged = (
      this.statements.listUnchangedSince.raw().all(start, end, revision, fetch) as ListRow[]
    ).map(rowToKeyValue);
    const changedKeys = (
      this.statements.keysChangedSince.pluck().all(revision, start, end) as string[]
    ).sort();
    const wanted = fetch < 0 ? Number.POSITIVE_INFINITY : fetch;
    const merged: KeyValue[] = [];
    let u = 0;
    let c = 0;
    while (merged.length < wanted && (u < unchanged.length || c < changedKeys.length)) {
      const changedKey = changedKeys[c];
      if (changedKey === undefined || (u < unchanged.length && unchanged[u]!.key < changedKey)) {
        merged.push(unchanged[u++]!);
        continue;
      }
      c++;
      const kv = this.getAt(changedKey, revision);
      if (kv) merged.push(kv);
    }
    return merged;
  }

  private enqueue(op: WriteOp): Promise<KeyValue | UpdateResult | DeleteResult> {
    if (this.closed) return Promise.reject(new StoreClosedError());
    return new Promise((resolve, reject) => {
      this.pending.push({ op, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          this.flushAll();
        });
      }
    });
  }

  private flushAll(): void {
    while (this.pending.length > 0) this.flush();
  }

  /** Commits up to MAX_BATCH queued writes in one transaction, then publishes their events. */
  private flush(): void {
    const batch = this.pending.splice(0, MAX_BATCH);
    const outcomes: Outcome[] = [];
    const events: WatchEvent[] = [];
    const startRevision = this.revision;
    try {
      this.applyBatch(batch, outcomes, events);
    } catch (error) {
      this.revision = startRevision;
      for (const write of batch) write.reject(error);
      return;
    }
    if (events.length > 0) {
      for (const watch of this.watchers) watch.deliver(events);
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) write.resolve(outcome.result);
      else write.reject(outcome.error);
    });
  }

  /** Applies one write inside the batch transaction. A failed precondition writes nothing. */
  private apply(op: WriteOp, events: WatchEvent[]): Outcome {
    const s = this.statements;
    const current = s.getCurrent.get(op.key) as CurrentRow | undefined;
    if (op.kind === 'create') {
      if (current) return { ok: false, error: new KeyExistsError(op.key) };
      const revision = ++this.revision;
      s.insertLog.run(revision, op.key, KIND_CREATE, op.value, revision, null);
      s.upsertKv.run(op.key, revision, revision, op.expiresAt);
      events.push({ type: 'create', key: op.key, revision, value: op.value, createRevision: revision });
      return {
        ok: true,
        result: { key: op.key, value: op.value, createRevision: revision, modRevision: revision },
      };
    }
    if (!current) return { ok: false, error: new KeyNotFoundError(op.key) };
    if (op.expectedRevision !== undefined && op.expectedRevision !== current.mod_rev) {
      return { ok: false, error: new ConflictError(op.key, op.expectedRevision, current.mod_rev) };
    }
    const previous = toKeyValue(op.key, current);
    const revision = ++this.revision;
    if (op.kind === 'update') {
      s.insertLog.run(revision, op.key, KIND_UPDATE, op.value, current.create_rev, current.mod_rev);
      s.upsertKv.run(op.key, current.create_rev, revision, op.expiresAt);
      events.push({
        type: 'update',
        key: op.key,
        revision,
        value: op.value,
        createRevision: current.create_rev,
        prevValue: previous.value,
        prevRevision: previous.modRevision,
      });
      const updated = {
        key: op.key,
        value: op.value,
        createRevision: current.create_rev,
        modRevision: revision,
      };
      return { ok: true, result: { current: updated, previous } };
    }
    s.insertLog.run(revision, op.key, KIND_DELETE, null, current.create_rev, current.mod_rev);
    s.deleteKv.run(op.key);
    events.push({
      type: 'delete',
      key: op.key,
      revision,
      createRevision: current.create_rev,
      prevValue: previous.value,
      prevRevision: previous.modRevision,
    });
    return { ok: true, result: { revision, previous } };
  }
}

interface CurrentRow {
  create_rev: number;
  mod_rev: number;
  value: string;
}
/** [key, value, create_rev, mod_rev] */
type ListRow = [string, string, number, number];
/** [rev, kind, value, create_rev] */
type AtRow = [number, number, string | null, number];
/** [rev, key, kind, value, create_rev, prev_rev, prev_value] */
type HistoryRow = [number, string, number, string | null, number, number | null, string | null];

function toKeyValue(key: string, row: CurrentRow): KeyValue {
  return { key, value: row.value, createRevision: row.create_rev, modRevision: row.mod_rev };
}

function rowToKeyValue(row: ListRow): KeyValue {
  return { key: row[0], value: row[1], createRevision: row[2], modRevision: row[3] };
}

function historyRowToEvent(row: HistoryRow): WatchEvent {
  const [revision, key, kind, value, createRevision, prevRevision, prevValue] = row;
  if (kind === KIND_CREATE) return { type: 'create', key, revision, value: value!, createRevision };
  const prev = { prevValue: prevValue ?? undefined, prevRevision: prevRevision ?? undefined };
  if (kind === KIND_UPDATE) return { type: 'update', key, revision, value: value!, createRevision, ...prev };
  return { type: 'delete', key, revision, createRevision, ...prev };
}
