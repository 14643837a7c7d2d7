// The etcd datastore going away mid-run (issue 30): reads and writes fail with
// DatastoreUnavailableError (the apiserver's 503) while it is gone, nothing acknowledged is
// lost, and the store works again, watches included, once the server is back.
import { afterAll, describe, expect, it } from 'vitest';
import { EtcdStore } from '../../../src/storage/etcd/etcd-store.js';
import { DatastoreUnavailableError, StoreOpenError } from '../../../src/storage/index.js';
import { type EtcdServer, etcdSkipReason, startEtcd } from '../../support/etcd-server.js';
import { freePort } from '../../support/postgres-server.js';
import { collect } from './support.js';

const skipReason = etcdSkipReason();

describe.skipIf(skipReason !== undefined)(
  `etcd outage${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let server: EtcdServer | undefined;
    afterAll(() => server?.stop());

    it('fails requests while the server is gone and recovers when it returns', async () => {
      server = await startEtcd();
      const store = await EtcdStore.open({ endpoints: [server.endpoint], connectTimeoutMs: 2000 });
      try {
        const before = await store.create('/r/a', '1');
        const watch = store.watch('/r/', { afterRevision: before.modRevision, prefix: true });
        await server.pause();
        await expect(store.get('/r/a')).rejects.toBeInstanceOf(DatastoreUnavailableError);
        await expect(store.create('/r/b', '1')).rejects.toBeInstanceOf(DatastoreUnavailableError);
        await expect(store.list('/r/')).rejects.toBeInstanceOf(DatastoreUnavailableError);
        await server.resume();
        // The client's circuit breaker lets requests through again a few seconds after failures.
        let got: unknown;
        for (let attempt = 0; attempt < 100; attempt++) {
          try {
            got = await store.get('/r/a');
            break;
          } catch (error) {
            if (!(error instanceof DatastoreUnavailableError)) throw error;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
        expect(got).toEqual(before);
        expect(await store.get('/r/b')).toBeUndefined();
        const after = await store.create('/r/c', '1');
        expect(after.modRevision).toBe(before.modRevision + 1);
        const [event] = await collect(watch, 1, 30_000);
        expect(event).toMatchObject({ type: 'create', key: '/r/c', revision: after.modRevision });
        watch.close();
      } finally {
        await store.close();
      }
    }, 120_000);

    it('refuses an unreachable server at open within the connect timeout, naming it', async () => {
      const endpoint = `http://127.0.0.1:${await freePort()}`;
      const started = Date.now();
      const opening = EtcdStore.open({ endpoints: [endpoint], connectTimeoutMs: 3000 });
      await expect(opening).rejects.toBeInstanceOf(StoreOpenError);
      await expect(opening).rejects.toThrow(`cannot open the etcd datastore ${endpoint}`);
      expect(Date.now() - started).toBeLessThan(8000);
    }, 30_000);
  },
);
