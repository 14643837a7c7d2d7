import type Database from 'better-sqlite3';

/** Every SQL statement the store runs, prepared once. */
export function prepareStatements(db: Database.Database) {
  return {
    getMeta: db.prepare('SELECT value FROM meta WHERE name = ?'),
    setMeta: db.prepare('UPDATE meta SET value = ? WHERE name = ?'),
    maxRevision: db.prepare('SELECT MAX(rev) FROM log'),

    getCurrent: db.prepare(
      'SELECT kv.create_rev, kv.mod_rev, log.value FROM kv JOIN log ON log.rev = kv.mod_rev WHERE kv.key = ?',
    ),
    getAt: db.prepare(
      'SELECT rev, kind, value, create_rev FROM log WHERE key = ? AND rev <= ? ORDER BY rev DESC LIMIT 1',
    ),
    listCurrent: db.prepare(
      `SELECT kv.key, log.value, kv.create_rev, kv.mod_rev FROM kv JOIN log ON log.rev = kv.mod_rev
       WHERE kv.key >= ? AND kv.key < ? ORDER BY kv.key LIMIT ?`,
    ),
    listUnchangedSince: db.prepare(
      `SELECT kv.key, log.value, kv.create_rev, kv.mod_rev FROM kv JOIN log ON log.rev = kv.mod_rev
       WHERE kv.key >= ? AND kv.key < ? AND kv.mod_rev <= ? ORDER BY kv.key LIMIT ?`,
    ),
    // The unary plus keeps SQLite on the revision range (writes since) rather than the key range (all keys).
    keysChangedSince: db.prepare('SELECT DISTINCT key FROM log WHERE rev > ? AND +key >= ? AND +key < ?'),
    countRange: db.prepare('SELECT COUNT(*) FROM kv WHERE key >= ? AND key < ?'),
    countAll: db.prepare('SELECT COUNT(*) FROM kv'),

    historyForRange: db.prepare(
      `SELECT l.rev, l.key, l.kind, l.value, l.create_rev, l.prev_rev, p.value
       FROM log l LEFT JOIN log p ON p.rev = l.prev_rev
       WHERE l.rev > ? AND l.rev <= ? AND l.key >= ? AND l.key < ? ORDER BY l.rev LIMIT ?`,
    ),
    historyForKey: db.prepare(
      `SELECT l.rev, l.key, l.kind, l.value, l.create_rev, l.prev_rev, p.value
       FROM log l LEFT JOIN log p ON p.rev = l.prev_rev
       WHERE l.key = ? AND l.rev > ? AND l.rev <= ? ORDER BY l.rev LIMIT ?`,
    ),

    insertLog: db.prepare(
      'INSERT INTO log (rev, key, kind, value, create_rev, prev_rev) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    upsertKv: db.prepare(
      `INSERT INTO kv (key, create_rev, mod_rev, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET create_rev = excluded.create_rev, mod_rev = excluded.mod_rev,
       expires_at = excluded.expires_at`,
    ),
    deleteKv: db.prepare('DELETE FROM kv WHERE key = ?'),

    expired: db.prepare(
      'SELECT key, mod_rev FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?',
    ),
    compactionRows: db.prepare(
      'SELECT rev, kind, prev_rev FROM log WHERE rev > ? AND rev <= ? ORDER BY rev LIMIT ?',
    ),
    deleteLogRow: db.prepare('DELETE FROM log WHERE rev = ?'),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
