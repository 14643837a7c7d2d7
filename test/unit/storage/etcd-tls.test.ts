// The etcd datastore over TLS (issue 30): `etcd://HOST:PORT?cacert=&cert=&key=` reaches a
// server that asks for client certificates; without the client certificate it is refused.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { EtcdStore } from '../../../src/storage/etcd/etcd-store.js';
import { openDatastore, parseDatastoreEndpoint, StoreOpenError } from '../../../src/storage/index.js';
import { type EtcdServer, etcdSkipReason, startEtcd } from '../../support/etcd-server.js';
import { tempDir } from '../../support/temp.js';

const skipReason = etcdSkipReason();

describe.skipIf(skipReason !== undefined)(
  `etcd over TLS${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let server: EtcdServer | undefined;
    afterAll(() => server?.stop());

    it('connects with the CA and a client certificate, and is refused without the certificate', async () => {
      const pki = await ensureClusterPki(join(tempDir(), 'pki'));
      const files = {
        caFile: pki.ca.certificatePath,
        certFile: join(pki.dir, 'apiserver.crt'),
        keyFile: join(pki.dir, 'apiserver.key'),
      };
      server = await startEtcd({ tls: files });
      const hostPort = server.endpoint.slice('https://'.length);
      const admin = { cert: join(pki.dir, 'admin.crt'), key: join(pki.dir, 'admin.key') };
      const endpoint = parseDatastoreEndpoint(
        `etcd://${hostPort}?cacert=${files.caFile}&cert=${admin.cert}&key=${admin.key}`,
      );
      let store: Awaited<ReturnType<typeof openDatastore>> | undefined;
      for (let attempt = 0; !store; attempt++) {
        try {
          store = await openDatastore(endpoint);
        } catch (error) {
          if (attempt > 20) throw error;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      try {
        const created = await store.create('/registry/configmaps/default/tls', 'v');
        expect((await store.get('/registry/configmaps/default/tls'))?.modRevision).toBe(created.modRevision);
      } finally {
        await store.close();
      }
      await expect(
        EtcdStore.open({
          endpoints: [server.endpoint],
          tls: { caFile: files.caFile },
          connectTimeoutMs: 3000,
        }),
      ).rejects.toBeInstanceOf(StoreOpenError);
    }, 60_000);
  },
);
