// `tkube up --datastore-endpoint postgres://...` (issue 30): a cluster on a private PostgreSQL
// server, and the refusals: an unreachable server, an engine tkube lacks, a newer schema.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tkube } from '../../support/cli.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import {
  freePort,
  type PostgresServer,
  postgresSkipReason,
  startPostgres,
} from '../../support/postgres-server.js';

const skipReason = postgresSkipReason();

describe.skipIf(skipReason !== undefined)(
  `tkube up on PostgreSQL${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let server: PostgresServer;
    let cluster: TestCluster | undefined;
    const dir = mkdtempSync(join(tmpdir(), 'tkube-ds-'));
    const env = { TKUBE_HOME: join(dir, 'home'), KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir, CI: 'true' };

    beforeAll(async () => {
      server = await startPostgres();
    }, 120_000);

    afterAll(async () => {
      await cluster?.down();
      server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('keeps the cluster state in the database it is pointed at', async () => {
      const url = await server.createDatabase('cluster_state');
      cluster = await startTestCluster('ds-pg', { upArgs: ['--datastore-endpoint', url] });
      const created = await cluster.kubectl(['create', 'configmap', 'kept', '--from-literal=a=b']);
      expect(created.stderr).toBe('');
      const got = await cluster.kubectl(['get', 'configmap', 'kept', '-o', 'jsonpath={.data.a}']);
      expect(got.stdout).toBe('b');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query(
          `SELECT l.value FROM tkube_kv k JOIN tkube_log l ON l.rev = k.mod_rev WHERE k.key = '/registry/configmaps/default/kept'`,
        );
        expect(JSON.parse(rows[0].value).data).toEqual({ a: 'b' });
      } finally {
        await client.end();
      }
    }, 180_000);

    it('refuses an unreachable datastore within 10 s, naming it', async () => {
      const port = await freePort();
      const started = Date.now();
      const up = await tkube(
        [
          'up',
          'ds-gone',
          '--nodes',
          '0',
          '--datastore-endpoint',
          `postgres://tkube:secret@127.0.0.1:${port}/x`,
        ],
        env,
      );
      expect(Date.now() - started).toBeLessThan(10_000 + 5_000); // 10 s for the datastore, the rest is the CLI's start
      expect(up.exitCode).not.toBe(0);
      expect(up.stderr).toMatch(
        /cannot open the PostgreSQL datastore postgres:\/\/tkube:\*\*\*@127\.0\.0\.1/,
      );
      expect(up.stderr).not.toContain('secret');
    }, 60_000);

    it('refuses an engine it does not have before creating anything', async () => {
      const up = await tkube(
        ['up', 'ds-mysql', '--nodes', '0', '--datastore-endpoint', 'mysql://root@127.0.0.1:3306/k'],
        env,
      );
      expect(up.exitCode).not.toBe(0);
      expect(up.stderr).toContain('scheme mysql:// is not supported');
      const list = await tkube(['list'], env);
      expect(list.stdout).not.toContain('ds-mysql');
    }, 60_000);

    it('refuses a database written by a newer tkube and leaves it untouched', async () => {
      const url = await server.createDatabase('newer_schema');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE TABLE tkube_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)`);
        await client.query(`INSERT INTO tkube_meta VALUES ('schema_version', 99)`);
        const up = await tkube(['up', 'ds-newer', '--nodes', '0', '--datastore-endpoint', url], env);
        expect(up.exitCode).not.toBe(0);
        expect(up.stderr).toContain('has schema version 99; this tkube understands version 1');
        const tables = await client.query(
          `SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'tkube_%'`,
        );
        expect(tables.rows[0].n).toBe(1);
      } finally {
        await client.end();
      }
    }, 60_000);
  },
);
