// `tkube up --datastore-endpoint etcd://...` (issue 30): a fake-node cluster on a private etcd
// server (keys under /registry as kube-apiserver writes them), create/list/watch through
// kubectl, etcd stopped mid-run (503/504, then recovery), and an unreachable etcd at up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdStore } from '../../../src/storage/etcd/etcd-store.js';
import { tkube } from '../../support/cli.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { type EtcdServer, etcdSkipReason, startEtcd } from '../../support/etcd-server.js';
import { freePort } from '../../support/postgres-server.js';

const skipReason = etcdSkipReason();

describe.skipIf(skipReason !== undefined)(
  `tkube up on etcd${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let server: EtcdServer;
    let cluster: TestCluster;
    const dir = mkdtempSync(join(tmpdir(), 'tkube-ds-'));
    const env = { TKUBE_HOME: join(dir, 'home'), KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir, CI: 'true' };

    beforeAll(async () => {
      server = await startEtcd();
      const hostPort = server.endpoint.slice('http://'.length);
      cluster = await startTestCluster('et-etcd', {
        fakeNodes: 1,
        upArgs: ['--datastore-endpoint', `etcd://${hostPort}`],
      });
    }, 180_000);

    afterAll(async () => {
      await cluster?.down();
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('creates, lists and watches objects kept in etcd under /registry', async () => {
      const watch = execa(
        'kubectl',
        ['--kubeconfig', cluster.kubeconfig, 'get', 'configmaps', '--watch-only', '-o', 'name'],
        {
          reject: false,
          env: cluster.env,
          timeout: 60_000,
        },
      );
      let seen = '';
      watch.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
      });
      // The watch is open before the write it must see.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const created = await cluster.kubectl(['create', 'configmap', 'kept', '--from-literal=a=b']);
      expect(created.stderr).toBe('');
      for (let waited = 0; !seen.includes('configmap/kept') && waited < 20_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      watch.kill();
      expect(seen).toContain('configmap/kept');
      const listed = await cluster.kubectl(['get', 'configmaps', '-o', 'jsonpath={.items[*].metadata.name}']);
      expect(listed.stdout.split(' ')).toContain('kept');
      const nodes = await cluster.kubectl(['get', 'nodes', '-o', 'name']);
      expect(nodes.stdout).toMatch(/^node\//m);

      const store = await EtcdStore.open({ endpoints: [server.endpoint] });
      try {
        const kv = await store.get('/registry/configmaps/default/kept');
        expect(JSON.parse(kv!.value).data).toEqual({ a: 'b' });
        const got = await cluster.kubectl([
          'get',
          'configmap',
          'kept',
          '-o',
          'jsonpath={.metadata.resourceVersion}',
        ]);
        expect(got.stdout).toBe(String(kv!.modRevision));
      } finally {
        await store.close();
      }
    }, 120_000);

    it('answers 503/504 while etcd is stopped and recovers when it returns', async () => {
      await server.pause();
      try {
        const failed = await cluster.kubectl(['get', 'configmap', 'kept', '--request-timeout=20s', '-v=6']);
        expect(failed.exitCode).not.toBe(0);
        // 503 ServiceUnavailable, or 504 when the request outlives the datastore's deadline.
        expect(failed.stderr).toMatch(/status="(503 Service Unavailable|504 Gateway Timeout)"/);
        expect(failed.stderr).toMatch(
          /^Error from server \((ServiceUnavailable|Timeout)\): the datastore is unavailable/m,
        );
      } finally {
        await server.resume();
      }
      let got = { exitCode: -1, stdout: '', stderr: '' };
      for (let attempt = 0; attempt < 60 && got.exitCode !== 0; attempt++) {
        got = await cluster.kubectl(['get', 'configmap', 'kept', '-o', 'jsonpath={.data.a}']);
        if (got.exitCode !== 0) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(got.stdout).toBe('b');
      const created = await cluster.kubectl(['create', 'configmap', 'after-outage']);
      expect(created.exitCode).toBe(0);
    }, 120_000);

    it('refuses an unreachable etcd within 10 s with a one-line error, creating nothing', async () => {
      const port = await freePort();
      const started = Date.now();
      const up = await tkube(
        ['up', 'et-gone', '--nodes', '0', '--datastore-endpoint', `etcd://127.0.0.1:${port}`],
        env,
      );
      expect(Date.now() - started).toBeLessThan(10_000 + 5_000); // 10 s for the datastore, the rest is the CLI's start
      expect(up.exitCode).not.toBe(0);
      expect(up.stderr).toContain(`cannot open the etcd datastore http://127.0.0.1:${port}`);
      const list = await tkube(['list'], env);
      expect(list.stdout).not.toContain('et-gone');
    }, 60_000);
  },
);
