import { chmodSync, closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { StoreOpenError } from '../errors.js';

/** 'tkub' in ASCII: marks a database file as tkube's (PRAGMA application_id). */
export const APPLICATION_ID = 0x746b7562;
export const SCHEMA_VERSION = 1;

/**
 * Two tables keep current state apart from history, so that reading the present never
 * pays for the past:
 * - `log`: one row per revision (the event log; values are stored only here);
 * - `kv`: one row per live key, pointing at the log row of its latest revision.
 * Compaction deletes log rows that no readable revision needs any more.
 */
const DDL = `
CREATE TABLE log (
  rev        INTEGER PRIMARY KEY,
  key        TEXT    NOT NULL,
  kind       INTEGER NOT NULL,
  value      TEXT,
  create_rev INTEGER NOT NULL,
  prev_rev   INTEGER
);
CREATE INDEX log_key_rev ON log (key, rev);
CREATE TABLE kv (
  key        TEXT    PRIMARY KEY,
  create_rev INTEGER NOT NULL,
  mod_rev    INTEGER NOT NULL,
  expires_at INTEGER
) WITHOUT ROWID;
CREATE INDEX kv_expires_at ON kv (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE meta (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (name, value) VALUES ('compacted_rev', 1), ('compaction_done_rev', 1);
`;

export type SyncMode = 'normal' | 'full';

const SQLITE_MAGIC = 'SQLite format 3\0';

function describeOpenFailure(path: string, error: unknown): StoreOpenError {
  const code = (error as { code?: string }).code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new StoreOpenError(`database ${path} is in use by another process (${message})`);
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new StoreOpenError(
      `database ${path} is damaged (${message}); move it aside to start afresh, nothing was changed`,
    );
  }
  return new StoreOpenError(`cannot open database ${path}: ${message}`);
}

function checkMagic(path: string): void {
  if (!existsSync(path) || statSync(path).size === 0) return;
  const header = Buffer.alloc(16);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString('latin1') !== SQLITE_MAGIC) {
    throw new StoreOpenError(`${path} is not a tkube database (not an SQLite file); nothing was changed`);
  }
}

/** Owner-only access to the database file, the secret keys' mode. */
export const DATABASE_FILE_MODE = 0o600;

/**
 * Creates the database file 0600 before SQLite does (SQLite gives its WAL and shared-memory
 * files the database file's mode), and narrows files an older version left wider.
 */
function restrictToOwner(path: string): void {
  if (path === ':memory:' || path === '') return;
  closeSync(openSync(path, 'a', DATABASE_FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    if (existsSync(file)) chmodSync(file, DATABASE_FILE_MODE);
  }
}

/**
 * Opens (or creates) the database file, refusing damaged and foreign files rather than
 * resetting them. The connection holds an exclusive lock for its lifetime: this process
 * is the only writer, so no other process can ever make it see "database is locked".
 */
export function openDatabase(path: string, sync: SyncMode): Database.Database {
  checkMagic(path);
  restrictToOwner(path);
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    const fresh = (db.pragma('page_count', { simple: true }) as number) === 0;
    if (fresh) {
      // Page size and auto_vacuum must be chosen before the first table exists. 8 KiB pages
      // pack the typical 1-4 KiB objects with less slack than 4 KiB ones.
      db.pragma('page_size = 8192');
      db.pragma('auto_vacuum = INCREMENTAL');
      db.pragma('journal_mode = WAL');
      db.exec('BEGIN IMMEDIATE');
      db.exec(DDL);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      db.exec('COMMIT');
    } else {
      verifyExisting(path, db);
      db.pragma('journal_mode = WAL');
    }
    db.pragma(`synchronous = ${sync === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma('cache_size = -65536');
    db.pragma('temp_store = MEMORY');
    // Reads straight from the page cache's mapping: a third faster for large lists.
    db.pragma(`mmap_size = ${256 * 1024 * 1024}`);
    // A checkpoint copies the WAL's pages into the database inside some commit: its cost is
    // that commit's (and every waiting watcher's) latency. Small, frequent ones (1 MiB) keep
    // the stall to a few milliseconds; measured: 32 MiB gave 40-70 ms stalls.
    db.pragma('wal_autocheckpoint = 128');
    db.pragma(`journal_size_limit = ${8 * 1024 * 1024}`);
    // Take the exclusive lock now, so a second process fails here and not mid-flight.
    db.exec('BEGIN IMMEDIATE; COMMIT');
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof StoreOpenError) throw error;
    throw describeOpenFailure(path, error);
  }
}

function verifyExisting(path: string, db: Database.Database): void {
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  if (applicationId !== APPLICATION_ID) {
    throw new StoreOpenError(
      `${path} is an SQLite database that tkube did not create (application_id ${applicationId}); nothing was changed`,
    );
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== SCHEMA_VERSION) {
    throw new StoreOpenError(
      `${path} has schema version ${version}; this tkube understands version ${SCHEMA_VERSION}`,
    );
  }
  const check = db.pragma('quick_check', { simple: true }) as string;
  if (check !== 'ok') {
    throw new StoreOpenError(`database ${path} is damaged (quick_check: ${check}); nothing was changed`);
  }
}
