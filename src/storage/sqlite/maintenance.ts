import { statSync } from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { StoreError } from '../errors.js';
import { KIND_DELETE } from '../kine/log-entry.js';
import type { Statements } from './statements.js';

export interface MaintenanceOptions {
  readonly historyRevisions: number;
  readonly intervalMs: number;
  readonly path: string;
  readonly now: () => number;
  currentRevision(): number;
  setCompactedRevision(revision: number): void;
  /** Deletes an expired key through the normal write path, unless it changed since. */
  expire(key: string, modRevision: number): Promise<unknown>;
}

/** Rows handled per compaction transaction: keeps each step to a few milliseconds. */
const COMPACTION_STEP = 2000;
const EXPIRY_STEP = 1000;
/**
 * Free pages tolerated before an incremental vacuum gives them back to the file system:
 * a few, or 1/16 of the file. Some slack is reused by the next writes at no cost.
 */
const FREE_PAGES_TOLERATED = 16;
const FREE_FRACTION_TOLERATED = 1 / 16;
/** While busy: free pages are left to the next writes unless they are half the file. */
const FREE_FRACTION_TOLERATED_WHILE_BUSY = 1 / 2;
const WAL_BYTES_TOLERATED_WHILE_BUSY = 8 * 1024 * 1024;

/**
 * The background work that keeps the store bounded: TTL expiry, compaction of history
 * older than the window, and giving space back (incremental vacuum, WAL truncation).
 * Each piece runs in small transactions with event-loop turns between them, so writers
 * and readers are never held up for long.
 */
export class Maintenance {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;
  private stopped = false;
  private revisionAtLastRun = -1;

  constructor(
    private readonly db: Database.Database,
    private readonly statements: Statements,
    private readonly options: MaintenanceOptions,
  ) {
    this.timer = setInterval(() => {
      this.runNow().catch(() => {});
    }, options.intervalMs);
    this.timer.unref();
    // Keys whose TTL ran out while the store was closed expire right after it opens.
    setImmediate(() => {
      this.runNow().catch(() => {});
    });
  }

  /** Runs one full round now, or waits for the round in progress and then runs one. */
  runNow(): Promise<void> {
    const round = (this.running ?? Promise.resolve()).catch(() => {}).then(() => this.round());
    this.running = round;
    return round;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  async idle(): Promise<void> {
    await this.running?.catch(() => {});
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    await this.expireKeys();
    if (this.stopped) return;
    await this.compact();
    if (this.stopped) return;
    this.reclaimSpace();
  }

  private async expireKeys(): Promise<void> {
    for (;;) {
      const due = this.statements.expired.raw().all(this.options.now(), EXPIRY_STEP) as [string, number][];
      if (due.length === 0) return;
      const results = await Promise.allSettled(
        due.map(([key, modRevision]) => this.options.expire(key, modRevision)),
      );
      // A conflict or not-found means the key changed or went away meanwhile: nothing to expire.
      const unexpected = results.find((r) => r.status === 'rejected' && !(r.reason instanceof StoreError));
      if (unexpected) throw (unexpected as PromiseRejectedResult).reason;
      if (due.length < EXPIRY_STEP || this.stopped) return;
    }
  }

  /**
   * Compaction to revision C keeps every state at revisions >= C readable. A log row is
   * no longer needed once the row that superseded it (the next version of its key) is at
   * or below C, and a delete marker once it is itself at or below C. So each row in the
   * newly compacted range deletes its predecessor, and a delete marker deletes itself:
   * every row is visited once, whatever the size of the history.
   */
  private async compact(): Promise<void> {
    const s = this.statements;
    const target = this.options.currentRevision() - this.options.historyRevisions;
    let compacted = s.getMeta.pluck().get('compacted_rev') as number;
    if (target > compacted) {
      s.setMeta.run(target, 'compacted_rev');
      compacted = target;
      this.options.setCompactedRevision(target);
    }
    let done = s.getMeta.pluck().get('compaction_done_rev') as number;
    while (done < compacted && !this.stopped) {
      const from = done;
      done = this.db.transaction(() => {
        const rows = s.compactionRows.raw().all(from, compacted, COMPACTION_STEP) as [
          number,
          number,
          number | null,
        ][];
        for (const [rev, kind, prevRev] of rows) {
          if (prevRev !== null) s.deleteLogRow.run(prevRev);
          if (kind === KIND_DELETE) s.deleteLogRow.run(rev);
        }
        const reached = rows.length === COMPACTION_STEP ? rows[rows.length - 1]![0] : compacted;
        s.setMeta.run(reached, 'compaction_done_rev');
        return reached;
      })();
      await yieldToEventLoop();
    }
  }

  private reclaimSpace(): void {
    const revision = this.options.currentRevision();
    const idle = revision === this.revisionAtLastRun;
    this.revisionAtLastRun = revision;
    const freePages = this.db.pragma('freelist_count', { simple: true }) as number;
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    // While writes go on they reuse free pages at no cost; a vacuum then would only move pages
    // about (measured: 1 % of the apiserver's thread under load) for the file to grow back.
    const tolerated = idle
      ? Math.max(FREE_PAGES_TOLERATED, pages * FREE_FRACTION_TOLERATED)
      : pages * FREE_FRACTION_TOLERATED_WHILE_BUSY;
    if (freePages > tolerated) this.db.pragma(`incremental_vacuum(${freePages})`);
    let walBytes = 0;
    try {
      walBytes = statSync(`${this.options.path}-wal`).size;
    } catch {
      return;
    }
    // While idle, fold the WAL into the database and truncate it; while busy, only when large.
    if ((idle && walBytes > 0) || walBytes > WAL_BYTES_TOLERATED_WHILE_BUSY) {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
  }
}
