// The PostgreSQL datastore going away mid-run (issue 30): reads and writes fail with
// DatastoreUnavailableError (the apiserver's 503) while it is gone, nothing acknowledged is
// lost, and the store works again, watches included, once the server is back.
import { afterAll, describe, expect, it } from 'vitest';
import { DatastoreUnavailableError } from '../../../src/storage/index.js';
import { PostgresStore } from '../../../src/storage/postgres/postgres-store.js';
import { type PostgresServer, postgresSkipReason, startPostgres } from '../../support/postgres-server.js';
import { collect } from './support.js';

const skipReason = postgresSkipReason();

describe.skipIf(skipReason !== undefined)(
  `PostgreSQL outage${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let server: PostgresServer | undefined;
    afterAll(() => server?.stop());

    it('fails requests while the server is gone and recovers when it returns', async () => {
      server = await startPostgres();
      const url = await server.createDatabase('outage');
      const store = await PostgresStore.open({ url, maintenanceIntervalMs: 60_000, connectTimeoutMs: 2000 });
      try {
        const before = await store.create('/r/a', '1');
        const watch = store.watch('/r/', { afterRevision: before.modRevision, prefix: true });
        server.pause();
        await expect(store.get('/r/a')).rejects.toBeInstanceOf(DatastoreUnavailableError);
        await expect(store.create('/r/b', '1')).rejects.toBeInstanceOf(DatastoreUnavailableError);
        await expect(store.list('/r/')).rejects.toBeInstanceOf(DatastoreUnavailableError);
        server.resume();
        expect(await store.get('/r/a')).toEqual(before);
        expect(await store.get('/r/b')).toBeUndefined();
        const after = await store.create('/r/c', '1');
        expect(after.modRevision).toBe(before.modRevision + 1);
        const [event] = await collect(watch, 1, 20_000);
        expect(event).toMatchObject({ type: 'create', key: '/r/c', revision: after.modRevision });
        watch.close();
      } finally {
        await store.close();
      }
    }, 120_000);
  },
);
