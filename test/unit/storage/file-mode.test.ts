// The database holds every Secret: its file, WAL and shared memory are the owner's alone (issue 21).
import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SqliteStore } from '../../../src/storage/index.js';
import { tempDir } from '../../support/temp.js';

const modeOf = (file: string) => statSync(file).mode & 0o777;

describe('database file mode', () => {
  it('creates the database and its WAL 0600 whatever the umask', async () => {
    const previous = process.umask(0o000);
    try {
      const path = join(tempDir(), 'state.db');
      const store = SqliteStore.open({ path, maintenanceIntervalMs: 60_000 });
      onTestFinished(() => store.close());
      await store.create('/r/a', 'secret');
      const files = [path, `${path}-wal`, `${path}-shm`].filter((file) => existsSync(file));
      expect(files).toContain(`${path}-wal`);
      for (const file of files) expect(modeOf(file), file).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });

  it('narrows a database an older version left readable by others', async () => {
    const path = join(tempDir(), 'state.db');
    const first = SqliteStore.open({ path, maintenanceIntervalMs: 60_000 });
    await first.create('/r/a', 'secret');
    await first.close();
    chmodSync(path, 0o644);
    const store = SqliteStore.open({ path, maintenanceIntervalMs: 60_000 });
    onTestFinished(() => store.close());
    expect(await store.get('/r/a')).toMatchObject({ value: 'secret' });
    expect(modeOf(path)).toBe(0o600);
    for (const file of [`${path}-wal`, `${path}-shm`].filter((f) => existsSync(f)))
      expect(modeOf(file), file).toBe(0o600);
  });
});
