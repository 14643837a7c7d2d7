import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { listPage, listPosition, pageLimit } from '../continue-token.js';
import { CompactedError, FutureRevisionError } from '../errors.js';
import { prefixEnd } from '../keys.js';
import { KIND_CREATE, KIND_DELETE, KIND_UPDATE, logEntryToEvent } from '../kine/log-entry.js';
import { LogStore } from '../kine/log-store.js';
import { applyWriteOp, type Outcome, type PendingWrite, settle, type WriteOp } from '../kine/write-op.js';
import type { KeyRange } from '../store-watch.js';
import type {
  KeyValue,
  ListOptions,
  ListResult,
  ReadOptions,
  Store,
  StoreStats,
  WatchEvent,
} from '../types.js';
import { Maintenance } from './maintenance.js';
import { openDatabase, type SyncMode } from './schema.js';
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

/** Writes queued in one event-loop turn commit together, up to this many per transaction. */
const MAX_BATCH = 1000;

/** The SQLite implementation of {@link Store}. */
export class SqliteStore extends LogStore implements Store {
  private readonly statements: Statements;
  private readonly maintenance: Maintenance;
  /** One transaction applying a batch of writes, made once: better-sqlite3 builds a wrapper per call to transaction(). */
  private readonly applyBatch: (batch: PendingWrite[], outcomes: Outcome[], events: WatchEvent[]) => void;

  static open(options: SqliteStoreOptions): SqliteStore {
    return new SqliteStore(openDatabase(options.path, options.sync ?? 'normal'), options);
  }

  private constructor(
    private readonly db: Database.Database,
    private readonly options: SqliteStoreOptions,
  ) {
    super(options);
    this.statements = prepareStatements(db);
    this.applyBatch = db.transaction((batch: PendingWrite[], outcomes: Outcome[], events: WatchEvent[]) => {
      for (const { op } of batch) outcomes.push(this.apply(op, events));
    });
    this.compacted = this.statements.getMeta.pluck().get('compacted_rev') as number;
    const maxRev = (this.statements.maxRevision.pluck().get() as number | null) ?? 0;
    this.revision = Math.max(maxRev, this.compacted);
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
    const position = listPosition(prefix, options);
    const revision = this.readRevision(position.revision);
    const end = prefixEnd(prefix);
    const limit = pageLimit(options.limit);
    const fetch = limit === undefined ? -1 : limit + 1;
    const items =
      revision === this.revision
        ? (this.statements.listCurrent.raw().all(position.start, end, fetch) as ListRow[]).map(rowToKeyValue)
        : this.listAt(position.start, end, revision, fetch);
    return listPage(items, prefix, revision, limit);
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    return this.statements.countRange.pluck().get(prefix, prefixEnd(prefix)) as number;
  }

  readHistory(range: KeyRange, after: number, upTo: number, limit: number): WatchEvent[] {
    const rows = (
      range.end === undefined
        ? this.statements.historyForKey.raw().all(range.start, after, upTo, limit)
        : this.statements.historyForRange.raw().all(after, upTo, range.start, range.end, limit)
    ) as HistoryRow[];
    return rows.map(historyRowToEvent);
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
    this.closeWatches();
    await this.maintenance.idle();
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.close();
  }

  // ---- internals -------------------------------------------------------------------------

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

  protected startWriting(): void {
    setImmediate(() => {
      this.writing = false;
      this.flushAll();
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
    if (events.length > 0) this.deliver(events);
    settle(batch, outcomes);
  }

  /** Applies one write inside the batch transaction. A failed precondition writes nothing. */
  private apply(op: WriteOp, events: WatchEvent[]): Outcome {
    const s = this.statements;
    const row = s.getCurrent.get(op.key) as CurrentRow | undefined;
    const outcome = applyWriteOp(op, row && toKeyValue(op.key, row), () => ++this.revision, events);
    if (!outcome.ok) return outcome;
    const event = events[events.length - 1]!;
    const { revision, createRevision } = event;
    if (event.type === 'delete') {
      s.insertLog.run(revision, op.key, KIND_DELETE, null, createRevision, event.prevRevision);
      s.deleteKv.run(op.key);
    } else {
      const kind = event.type === 'create' ? KIND_CREATE : KIND_UPDATE;
      s.insertLog.run(revision, op.key, kind, event.value, createRevision, event.prevRevision ?? null);
      s.upsertKv.run(op.key, createRevision, revision, op.kind === 'delete' ? null : op.expiresAt);
    }
    return outcome;
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
  return logEntryToEvent({ revision, key, kind, value, createRevision, prevRevision, prevValue });
}
