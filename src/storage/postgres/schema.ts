/**
 * The PostgreSQL schema of the store, after kine's (k3s-io/kine pkg/drivers/pgsql): a log
 * table holding one row per revision, plus a table of live keys and a few counters. Keys
 * use the "C" collation so that ranges compare bytewise, as etcd's and SQLite's do.
 */
import type pg from 'pg';
import { StoreOpenError } from '../errors.js';

export const SCHEMA_VERSION = 1;

/**
 * `revision` is a counter row rather than a sequence: a writer locks it for its transaction,
 * so revisions are gap-free and commit in revision order, which watchers rely on (a sequence
 * hands out numbers that commit out of order and leaves gaps on rollback).
 */
const DDL = `
CREATE TABLE tkube_log (
  rev        BIGINT   PRIMARY KEY,
  key        TEXT     COLLATE "C" NOT NULL,
  kind       SMALLINT NOT NULL,
  value      TEXT,
  create_rev BIGINT   NOT NULL,
  prev_rev   BIGINT
);
CREATE INDEX tkube_log_key_rev ON tkube_log (key, rev);
CREATE TABLE tkube_kv (
  key        TEXT   COLLATE "C" PRIMARY KEY,
  create_rev BIGINT NOT NULL,
  mod_rev    BIGINT NOT NULL,
  expires_at BIGINT
);
CREATE INDEX tkube_kv_expires_at ON tkube_kv (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE tkube_meta (
  name  TEXT   PRIMARY KEY,
  value BIGINT NOT NULL
);
INSERT INTO tkube_meta (name, value) VALUES
  ('schema_version', ${SCHEMA_VERSION}), ('revision', 1), ('compacted_rev', 1), ('compaction_done_rev', 1);
`;

/** Serialises schema creation between processes opening the same empty database at once. */
const SCHEMA_LOCK = 0x746b7562;

/**
 * Creates the tables in an empty database, or checks that existing ones are this version's.
 * A database written by a newer tkube is refused untouched.
 */
export async function ensureSchema(client: pg.ClientBase, where: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    const exists = await client.query<{ present: boolean }>(
      `SELECT to_regclass('tkube_meta') IS NOT NULL AS present`,
    );
    if (!exists.rows[0]!.present) {
      await client.query(DDL);
    } else {
      const version = await client.query<{ value: number }>(
        `SELECT value FROM tkube_meta WHERE name = 'schema_version'`,
      );
      const found = version.rows[0]?.value;
      if (found !== SCHEMA_VERSION) {
        throw new StoreOpenError(
          `${where} has schema version ${found ?? 'unknown'}; this tkube understands version ${SCHEMA_VERSION}; nothing was changed`,
        );
      }
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
