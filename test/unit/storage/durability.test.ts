import { spawn } from 'node:child_process';
import { closeSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteStore, StoreOpenError } from '../../../src/storage/index.js';
import { tempDir } from '../../support/temp.js';

const stormScript = fileURLToPath(new URL('./fixtures/write-storm.ts', import.meta.url));

/** Runs the write storm until `acks` writes are acknowledged, then kill -9. */
function stormAndKill(path: string, acks: number): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', stormScript, path], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acked = new Map<string, number>();
    let partial = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const [key, revision] = line.split(' ');
        acked.set(key!, Number(revision));
      }
      if (acked.size >= acks && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`write storm exited on its own: ${stderr}`));
    });
  });
}

describe('store durability', () => {
  it('keeps every acknowledged write through kill -9 in a write storm', async () => {
    const path = join(tempDir(), 'state.db');
    const acked = await stormAndKill(path, 3000);
    expect(acked.size).toBeGreaterThanOrEqual(3000);
    const store = SqliteStore.open({ path, maintenanceIntervalMs: 60_000 });
    try {
      for (const [key, revision] of acked) {
        const kv = await store.get(key);
        expect(kv?.modRevision, key).toBe(revision);
      }
      const maxAcked = Math.max(...acked.values());
      expect(store.currentRevision()).toBeGreaterThanOrEqual(maxAcked);
      // Revisions are gap-free: every committed revision holds one key.
      expect(await store.count('/registry/')).toBe(store.currentRevision() - 1);
      const next = await store.create('/registry/after', 'x');
      expect(next.modRevision).toBe(store.currentRevision());
      expect(next.modRevision).toBeGreaterThan(maxAcked);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('refuses a file that is not SQLite, and leaves it untouched', async () => {
    const path = join(tempDir(), 'state.db');
    const text = 'this is not a database at all, just some text';
    writeFileSync(path, text);
    expect(() => SqliteStore.open({ path })).toThrow(StoreOpenError);
    expect(() => SqliteStore.open({ path })).toThrow(/not a tkube database/);
    expect(statSync(path).size).toBe(text.length);
  });

  it('refuses an SQLite database that tkube did not create', async () => {
    const path = join(tempDir(), 'state.db');
    const foreign = new Database(path);
    foreign.exec('CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (1)');
    foreign.close();
    expect(() => SqliteStore.open({ path })).toThrow(/tkube did not create/);
    const again = new Database(path);
    expect(again.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: 1 });
    again.close();
  });

  it('refuses a damaged database with a clear error', async () => {
    const path = join(tempDir(), 'state.db');
    const store = SqliteStore.open({ path, maintenanceIntervalMs: 60_000 });
    for (let i = 0; i < 200; i++) await store.create(`/r/${i}`, 'y'.repeat(2000));
    await store.close();
    const pageSize = 8192;
    const pages = statSync(path).size / pageSize;
    const fd = openSync(path, 'r+');
    for (let page = 3; page < pages; page++) writeSync(fd, Buffer.alloc(16, 0xee), 0, 16, page * pageSize);
    closeSync(fd);
    expect(() => SqliteStore.open({ path })).toThrow(/damaged/);
  });

  it('refuses a second opener while the store is open', async () => {
    const path = join(tempDir(), 'state.db');
    const store = SqliteStore.open({ path, maintenanceIntervalMs: 60_000 });
    try {
      await store.create('/r/a', '1');
      expect(() => SqliteStore.open({ path })).toThrow(/in use by another process/);
      expect((await store.create('/r/b', '2')).modRevision).toBe(3);
    } finally {
      await store.close();
    }
  });
});
