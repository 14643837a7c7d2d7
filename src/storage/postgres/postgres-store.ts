/**
 * The PostgreSQL implementation of {@link Store}, in the manner of kine's pgsql driver
 * (k3s-io/kine): every write appends to one log table under a counter-row lock, the live
 * keys sit in their own table, LISTEN/NOTIFY wakes the other processes' watchers, and
 * compaction drops log rows no readable revision needs. Writes queued in one event-loop
 * turn commit in one transaction (group commit), as in the SQLite store.
 */
import pg from 'pg';
import { listPage, listPosition, pageLimit } from '../continue-token.js';
import {
  CompactedError,
  DatastoreUnavailableError,
  FutureRevisionError,
  InvalidContinueError,
  driverMessage as messageOf,
  StoreClosedError,
  StoreError,
  StoreOpenError,
} from '../errors.js';
import { prefixEnd } from '../keys.js';
import { eventKind, KIND_DELETE, logEntryToEvent } from '../kine/log-entry.js';
import { LogStore } from '../kine/log-store.js';
import { applyWriteOp, type Outcome, type PendingWrite, settle } from '../kine/write-op.js';
import type { KeyRange } from '../store-watch.js';
import type {
  KeyValue,
  ListOptions,
  ListResult,
  ReadOptions,
  Store,
  StoreStats,
  UpdateResult,
  WatchEvent,
} from '../types.js';
import { ensureSchema } from './schema.js';

export interface PostgresStoreOptions {
  /** A libpq-style URL: postgres://user:password@host:port/database?sslmode=... */
  readonly url: string;
  /** How many revisions of history stay readable and watchable. Default 1000. */
  readonly historyRevisions?: number;
  /** How often TTL expiry and compaction run. Default 1000 ms. */
  readonly maintenanceIntervalMs?: number;
  /** Events a watcher may have waiting before it goes back to reading the log. Default 10,000. */
  readonly watchBufferLimit?: number;
  /** Connections for reads and writes. Default 8. */
  readonly poolSize?: number;
  /** Give up connecting at open after this long. Default 10,000 ms. */
  readonly connectTimeoutMs?: number;
  /** Clock for TTLs (ms since the epoch). */
  readonly now?: () => number;
}

/** The channel a commit notifies with its last revision. */
const CHANNEL = 'tkube_log';
const MAX_BATCH = 1000;
const EXPIRY_STEP = 1000;
const COMPACTION_STEP = 2000;
const LISTEN_RETRY_MS = 500;

/** BIGINT columns come back as numbers: revisions and times stay far below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as never,
};

interface LiveRow {
  create_rev: number;
  mod_rev: number;
  value: string;
}

interface LogRow {
  rev: number;
  key: string;
  kind: number;
  value: string | null;
  create_rev: number;
  prev_rev: number | null;
  prev_value: string | null;
}

export class PostgresStore extends LogStore implements Store {
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private listener: pg.Client | undefined;
  private readonly timer: NodeJS.Timeout;
  private maintenanceRound: Promise<void> | undefined;
  private readonly historyRevisions: number;

  /** Connects, creates or checks the schema, and starts listening for other writers' commits. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const where = describeUrl(options.url);
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 8,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      types,
    });
    // An idle connection that breaks is dropped by the pool; the next query opens another.
    pool.on('error', () => {});
    // A checked-out connection that breaks fails its query; its 'error' event needs a listener too.
    pool.on('connect', (client) => client.on('error', () => {}));
    try {
      const client = await pool.connect();
      try {
        await ensureSchema(client, where);
        const meta = await client.query<{ name: string; value: number }>(
          'SELECT name, value FROM tkube_meta',
        );
        const values = new Map(meta.rows.map((row) => [row.name, row.value]));
        const store = new PostgresStore(pool, options, values.get('revision')!, values.get('compacted_rev')!);
        await store.listen();
        return store;
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => {});
      if (error instanceof StoreOpenError) throw error;
      throw new StoreOpenError(`cannot open the PostgreSQL datastore ${where}: ${messageOf(error)}`);
    }
  }

  private constructor(
    private readonly pool: pg.Pool,
    private readonly options: PostgresStoreOptions,
    revision: number,
    compacted: number,
  ) {
    super(options);
    this.revision = revision;
    this.compacted = compacted;
    this.historyRevisions = options.historyRevisions ?? 1000;
    this.timer = setInterval(() => {
      this.maintain().catch(() => {});
    }, options.maintenanceIntervalMs ?? 1000);
    this.timer.unref();
    // Keys whose TTL ran out while no process had the store open expire right away.
    setImmediate(() => {
      if (!this.closed) this.maintain().catch(() => {});
    });
  }

  // ---- reads ---------------------------------------------------------------------------

  async get(key: string, options: ReadOptions = {}): Promise<KeyValue | undefined> {
    this.assertOpen();
    if (options.revision === undefined || options.revision === 0) {
      // One statement sees one snapshot: the revision and the row agree.
      const { rows } = await this.query<LiveRow & { rev: number }>(
        `SELECT m.value AS rev, x.create_rev, x.mod_rev, x.value FROM tkube_meta m
         LEFT JOIN LATERAL (SELECT k.create_rev, k.mod_rev, l.value FROM tkube_kv k
           JOIN tkube_log l ON l.rev = k.mod_rev WHERE k.key = $1) x ON true
         WHERE m.name = 'revision'`,
        [key],
      );
      const row = rows[0]!;
      await this.published(row.rev);
      return row.mod_rev === null ? undefined : liveToKeyValue(key, row);
    }
    const revision = await this.readRevision(options.revision);
    return (await this.readAt(key, undefined, revision, 1, 'key ='))[0];
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    const position = listPosition(prefix, options);
    const requested = position.revision;
    let start = position.start;
    // A continue token starts just after a key (that key + NUL); PostgreSQL text holds no NUL.
    let after = false;
    if (start.endsWith('\0')) {
      start = start.slice(0, -1);
      after = true;
    }
    if (start.includes('\0')) throw new InvalidContinueError('continue key holds a NUL character');
    const from = after ? 'key >' : 'key >=';
    const end = prefixEnd(prefix);
    const limit = pageLimit(options.limit);
    const fetch = limit === undefined ? null : limit + 1;
    let revision: number;
    let items: KeyValue[];
    if (requested === undefined || requested === 0) {
      const { rows } = await this.query<{
        rev: number;
        items: [string, string, number, number][] | null;
      }>(
        `SELECT m.value AS rev, (SELECT json_agg(json_build_array(x.key, x.value, x.create_rev, x.mod_rev))
           FROM (SELECT k.key, l.value, k.create_rev, k.mod_rev FROM tkube_kv k
             JOIN tkube_log l ON l.rev = k.mod_rev
             WHERE k.${from} $1 AND k.key < $2 ORDER BY k.key LIMIT $3) x) AS items
         FROM tkube_meta m WHERE m.name = 'revision'`,
        [start, end, fetch],
      );
      revision = rows[0]!.rev;
      await this.published(revision);
      items = (rows[0]!.items ?? []).map(([key, value, createRevision, modRevision]) => ({
        key,
        value,
        createRevision,
        modRevision,
      }));
    } else {
      revision = await this.readRevision(requested);
      items = await this.readAt(start, end, revision, fetch, from);
    }
    return listPage(items, prefix, revision, limit);
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    const { rows } = await this.query<{ n: number }>(
      'SELECT count(*)::bigint AS n FROM tkube_kv WHERE key >= $1 AND key < $2',
      [prefix, prefixEnd(prefix)],
    );
    return rows[0]!.n;
  }

  async readHistory(range: KeyRange, after: number, upTo: number, limit: number): Promise<WatchEvent[]> {
    const end = range.end;
    const { rows } = await this.query<LogRow>(
      `SELECT l.rev, l.key, l.kind, l.value, l.create_rev, l.prev_rev, p.value AS prev_value
       FROM tkube_log l LEFT JOIN tkube_log p ON p.rev = l.prev_rev
       WHERE l.rev > $1 AND l.rev <= $2 AND ${end === undefined ? 'l.key = $3' : 'l.key >= $3 AND l.key < $5'}
       ORDER BY l.rev LIMIT $4`,
      end === undefined ? [after, upTo, range.start, limit] : [after, upTo, range.start, limit, end],
    );
    return rows.map(logRowToEvent);
  }

  // ---- maintenance and lifecycle ---------------------------------------------------------

  /** TTL expiry and compaction; one round at a time. */
  maintain(): Promise<void> {
    if (this.closed) return Promise.reject(new StoreClosedError());
    const round = (this.maintenanceRound ?? Promise.resolve())
      .catch(() => {})
      .then(async () => {
        if (this.closed) return;
        await this.expireKeys();
        if (this.closed) return;
        await this.compact();
      });
    this.maintenanceRound = round;
    return round;
  }

  stats(): StoreStats {
    // The server manages its own files; sizes are not this process's to report.
    return {
      revision: this.revision,
      compactedRevision: this.compacted,
      keys: -1,
      databaseBytes: 0,
      walBytes: 0,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.timer);
    // Let queued writes commit before the connections go.
    while (this.pending.length > 0 || this.writing) await new Promise((resolve) => setImmediate(resolve));
    this.closeWatches();
    await this.maintenanceRound?.catch(() => {});
    await this.pumping?.catch(() => {});
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
    await this.pool.end();
  }

  // ---- internals -------------------------------------------------------------------------

  /** A query on the pool; a connection failure becomes DatastoreUnavailableError (503). */
  private async query<R extends pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  /** Validates a requested read revision (not 0); one just committed elsewhere is waited for. */
  private async readRevision(requested: number): Promise<number> {
    if (requested < this.compacted) throw new CompactedError(requested, this.compacted);
    if (requested > this.revision) await this.pump();
    if (requested > this.revision) throw new FutureRevisionError(requested, this.revision);
    return requested;
  }

  /** A read saw revision `revision`: publish it (and what led to it) before answering. */
  private async published(revision: number): Promise<void> {
    if (revision > this.revision) await this.pump();
  }

  /**
   * Live keys in [start, end) as of `revision`, from the log alone: the newest row of each
   * key at or below the revision, unless it is a delete. Compaction keeps exactly these rows
   * for every revision at or above the compacted one.
   */
  private async readAt(
    start: string,
    end: string | undefined,
    revision: number,
    fetch: number | null,
    from: 'key =' | 'key >' | 'key >=',
  ): Promise<KeyValue[]> {
    const { rows } = await this.query<{ key: string; value: string; create_rev: number; rev: number }>(
      `SELECT key, value, create_rev, rev FROM (
         SELECT DISTINCT ON (key) key, kind, value, create_rev, rev FROM tkube_log
         WHERE ${from} $1 AND key < $2 AND rev <= $3
         ORDER BY key, rev DESC) newest
       WHERE kind <> ${KIND_DELETE} ORDER BY key LIMIT $4`,
      // One exact key: the range [key, key + NUL) in bytewise order, written without the NUL.
      [start, end ?? prefixEnd(`${start} `), revision, fetch],
    );
    return rows.map((row) => ({
      key: row.key,
      value: row.value,
      createRevision: row.create_rev,
      modRevision: row.rev,
    }));
  }

  protected startWriting(): void {
    setImmediate(() => {
      this.writeLoop().catch(() => {});
    });
  }

  /** One batch in flight at a time; writes queued meanwhile form the next batch. */
  private async writeLoop(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        try {
          const { outcomes, events, base } = await this.commit(batch);
          this.publish(base, events);
          settle(batch, outcomes);
        } catch (error) {
          const failure =
            error instanceof StoreError ? error : new DatastoreUnavailableError(messageOf(error));
          for (const write of batch) write.reject(failure);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** Applies a batch in one transaction: the revision counter's row lock orders all writers. */
  private async commit(
    batch: PendingWrite[],
  ): Promise<{ outcomes: Outcome[]; events: WatchEvent[]; base: number }> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      // One round trip: open the transaction and take the counter row's lock.
      const [, counter] = (await client.query(
        `BEGIN; SELECT value FROM tkube_meta WHERE name = 'revision' FOR UPDATE`,
      )) as unknown as [pg.QueryResult, pg.QueryResult<{ value: number }>];
      const base = counter.rows[0]!.value;
      const keys = [...new Set(batch.map((write) => write.op.key))];
      const current = await client.query<LiveRow & { key: string }>(
        `SELECT k.key, k.create_rev, k.mod_rev, l.value FROM tkube_kv k JOIN tkube_log l ON l.rev = k.mod_rev
         WHERE k.key = ANY($1::text[])`,
        [keys],
      );
      const state = new Map<string, LiveRow | undefined>(current.rows.map((row) => [row.key, row]));
      const expires = new Map<string, number | null>();
      const outcomes: Outcome[] = [];
      const events: WatchEvent[] = [];
      let revision = base;
      for (const { op } of batch) {
        const row = state.get(op.key);
        const outcome = applyWriteOp(op, row && liveToKeyValue(op.key, row), () => ++revision, events);
        outcomes.push(outcome);
        if (!outcome.ok) continue;
        if (op.kind === 'delete') {
          state.set(op.key, undefined);
          expires.delete(op.key);
        } else {
          const kv = (
            op.kind === 'create' ? outcome.result : (outcome.result as UpdateResult).current
          ) as KeyValue;
          state.set(op.key, { create_rev: kv.createRevision, mod_rev: kv.modRevision, value: kv.value });
          expires.set(op.key, op.expiresAt);
        }
      }
      if (events.length > 0) {
        const live = [...state].filter(([key, row]) => row !== undefined && expires.has(key)) as [
          string,
          LiveRow,
        ][];
        const gone = [...state].filter(([, row]) => row === undefined).map(([key]) => key);
        // One statement (one round trip) writes the log, the live keys, the counter and the notice.
        await client.query(
          `WITH log AS (
             INSERT INTO tkube_log (rev, key, kind, value, create_rev, prev_rev)
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::smallint[], $4::text[], $5::bigint[], $6::bigint[])),
           live AS (
             INSERT INTO tkube_kv (key, create_rev, mod_rev, expires_at)
             SELECT * FROM unnest($7::text[], $8::bigint[], $9::bigint[], $10::bigint[])
             ON CONFLICT (key) DO UPDATE SET create_rev = excluded.create_rev, mod_rev = excluded.mod_rev,
               expires_at = excluded.expires_at),
           gone AS (DELETE FROM tkube_kv WHERE key = ANY($11::text[])),
           counter AS (UPDATE tkube_meta SET value = $12 WHERE name = 'revision')
           SELECT pg_notify('${CHANNEL}', $12::text)`,
          [
            events.map((e) => e.revision),
            events.map((e) => e.key),
            events.map(eventKind),
            events.map((e) => e.value ?? null),
            events.map((e) => e.createRevision),
            events.map((e) => e.prevRevision ?? null),
            live.map(([key]) => key),
            live.map(([, row]) => row.create_rev),
            live.map(([, row]) => row.mod_rev),
            live.map(([key]) => expires.get(key) ?? null),
            gone,
            revision,
          ],
        );
      }
      await client.query('COMMIT');
      return { outcomes, events, base };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Makes a commit's events visible: at once when they follow the last published revision,
   * else (another process wrote in between) through the log, in revision order.
   */
  private publish(base: number, events: WatchEvent[]): void {
    if (events.length === 0) return;
    const last = events[events.length - 1]!.revision;
    if (last <= this.revision) return;
    if (base === this.revision) {
      this.revision = last;
      this.deliver(events);
    } else {
      this.pump().catch(() => {});
    }
  }

  /** Reads and publishes every committed revision beyond the published one. One pump at a time. */
  private pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    const run = async () => {
      do {
        this.pumpAgain = false;
        for (;;) {
          const from = this.revision;
          const { rows } = await this.query<LogRow>(
            `SELECT l.rev, l.key, l.kind, l.value, l.create_rev, l.prev_rev, p.value AS prev_value
             FROM tkube_log l LEFT JOIN tkube_log p ON p.rev = l.prev_rev
             WHERE l.rev > $1 ORDER BY l.rev LIMIT $2`,
            [from, MAX_BATCH],
          );
          if (this.closed) return;
          const events = rows.map(logRowToEvent).filter((event) => event.revision > this.revision);
          if (events.length > 0) {
            this.revision = events[events.length - 1]!.revision;
            this.deliver(events);
          }
          if (rows.length < MAX_BATCH) break;
        }
      } while (this.pumpAgain && !this.closed);
    };
    this.pumping = run().finally(() => {
      this.pumping = undefined;
    });
    return this.pumping;
  }

  /** A dedicated connection LISTENs for commits; it reconnects (and catches up) when it breaks. */
  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, types });
    const retry = () => {
      if (this.listener !== client || this.closed) return;
      this.listener = undefined;
      client.end().catch(() => {});
      setTimeout(() => {
        if (!this.closed) this.listen().catch(() => {});
      }, LISTEN_RETRY_MS).unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (message) => {
      if (Number(message.payload) > this.revision) this.pump().catch(() => {});
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      retry();
      throw error;
    }
    // Commits made while not listening.
    await this.pump();
  }

  private async expireKeys(): Promise<void> {
    for (;;) {
      const { rows } = await this.query<{ key: string; mod_rev: number }>(
        'SELECT key, mod_rev FROM tkube_kv WHERE expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at LIMIT $2',
        [this.now(), EXPIRY_STEP],
      );
      if (rows.length === 0) return;
      const results = await Promise.allSettled(
        rows.map((row) => this.delete(row.key, { expectedRevision: row.mod_rev })),
      );
      // A conflict or not-found means the key changed or went away meanwhile: nothing to expire.
      const unexpected = results.find((r) => r.status === 'rejected' && !(r.reason instanceof StoreError));
      if (unexpected) throw (unexpected as PromiseRejectedResult).reason;
      if (rows.length < EXPIRY_STEP || this.closed) return;
    }
  }

  /**
   * Compaction to revision C keeps every state at revisions >= C readable: each row in the
   * newly compacted range deletes its predecessor, and a delete marker deletes itself (the
   * SQLite store's rule). Progress is kept in tkube_meta, so a restart resumes it.
   */
  private async compact(): Promise<void> {
    const target = this.revision - this.historyRevisions;
    const { rows } = await this.query<{ compacted: number; done: number }>(
      `UPDATE tkube_meta SET value = GREATEST(value, $1) WHERE name = 'compacted_rev'
       RETURNING value AS compacted, (SELECT value FROM tkube_meta WHERE name = 'compaction_done_rev') AS done`,
      [target],
    );
    const { compacted } = rows[0]!;
    if (compacted > this.compacted) this.compacted = compacted;
    let done = rows[0]!.done;
    while (done < compacted && !this.closed) {
      const to = Math.min(compacted, done + COMPACTION_STEP);
      await this.pool.query(
        `WITH step AS (SELECT rev, kind, prev_rev FROM tkube_log WHERE rev > $1 AND rev <= $2)
         DELETE FROM tkube_log WHERE rev IN (SELECT prev_rev FROM step WHERE prev_rev IS NOT NULL)
           OR rev IN (SELECT rev FROM step WHERE kind = ${KIND_DELETE})`,
        [done, to],
      );
      await this.pool.query(
        `UPDATE tkube_meta SET value = GREATEST(value, $1) WHERE name = 'compaction_done_rev'`,
        [to],
      );
      done = to;
    }
  }
}

function liveToKeyValue(key: string, row: LiveRow): KeyValue {
  return { key, value: row.value, createRevision: row.create_rev, modRevision: row.mod_rev };
}

function logRowToEvent(row: LogRow): WatchEvent {
  return logEntryToEvent({
    revision: row.rev,
    key: row.key,
    kind: row.kind,
    value: row.value,
    createRevision: row.create_rev,
    prevRevision: row.prev_rev,
    prevValue: row.prev_value,
  });
}

/** The URL without its password, for messages. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

/**
 * Connection failures (no server, dropped connection; SQLSTATE classes 08, 53 and 57P: shutdown,
 * too many connections) are the datastore being unavailable; other errors are faults.
 */
function unavailableOr(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  const sqlState = (error as { severity?: unknown }).severity !== undefined && typeof code === 'string';
  if (sqlState && !/^(08|53|57P)/.test(code)) return error;
  return new DatastoreUnavailableError(messageOf(error));
}
