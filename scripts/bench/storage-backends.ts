// The store on each backend side by side (issue 30): SQLite (the default), PostgreSQL
// (a private server with its default, durable settings) and etcd (a private server, Debian's
// etcd with its defaults: fsync on), same workload, same run.
// Called from scripts/bench/storage.ts; a server backend is left out, with the reason, when
// its binaries are absent.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdStore } from '../../src/storage/etcd/etcd-store.js';
import { SqliteStore, type Store } from '../../src/storage/index.js';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { type EtcdServer, etcdSkipReason, startEtcd } from '../../test/support/etcd-server.js';
import { postgresSkipReason, startPostgres } from '../../test/support/postgres-server.js';

const VALUE_1KB = JSON.stringify({ data: 'x'.repeat(1024 - 12) });

interface BackendFigures {
  createsSequential: number;
  creates64: number;
  updates64: number;
  list10kMedianMs: number;
}

async function inFlight(total: number, concurrency: number, write: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await write(next++);
    }),
  );
}

async function perSecond(count: number, run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return count / ((performance.now() - started) / 1000);
}

async function measure(open: () => Promise<Store>): Promise<BackendFigures> {
  const sequential = await open();
  const createsSequential = await perSecond(2000, () =>
    inFlight(2000, 1, (i) => sequential.create(`/registry/configmaps/default/s-${i}`, VALUE_1KB)),
  );
  await sequential.close();
  const store = await open();
  const creates64 = await perSecond(10_000, () =>
    inFlight(10_000, 64, (i) => store.create(`/registry/configmaps/default/cm-${i}`, VALUE_1KB)),
  );
  const updates64 = await perSecond(10_000, () =>
    inFlight(10_000, 64, (i) => store.update(`/registry/configmaps/default/cm-${i % 1000}`, VALUE_1KB)),
  );
  const times: number[] = [];
  for (let run = 0; run < 7; run++) {
    const started = performance.now();
    await store.list('/registry/configmaps/');
    if (run >= 2) times.push(performance.now() - started);
  }
  await store.close();
  times.sort((a, b) => a - b);
  return { createsSequential, creates64, updates64, list10kMedianMs: times[Math.floor(times.length / 2)]! };
}

/** Prints the side-by-side table; returns the figures for the JSON line. */
export async function compareStorageBackends(): Promise<Record<string, BackendFigures | string>> {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-backends-'));
  const results: Record<string, BackendFigures | string> = {};
  let files = 0;
  try {
    results.sqlite = await measure(async () => SqliteStore.open({ path: join(dir, `s-${files++}.db`) }));
    const skip = postgresSkipReason();
    if (skip) results.postgres = `skipped: ${skip}`;
    else {
      const server = await startPostgres({ durable: true });
      try {
        let databases = 0;
        results.postgres = await measure(async () =>
          PostgresStore.open({ url: await server.createDatabase(`bench_${databases++}`) }),
        );
      } finally {
        server.stop();
      }
    }
    const etcdSkip = etcdSkipReason();
    if (etcdSkip) results.etcd = `skipped: ${etcdSkip}`;
    else {
      // etcd's revisions and keys are server-wide: each measurement gets a fresh server.
      const servers: EtcdServer[] = [];
      try {
        results.etcd = await measure(async () => {
          const server = await startEtcd();
          servers.push(server);
          return EtcdStore.open({ endpoints: [server.endpoint] });
        });
      } finally {
        for (const server of servers) await server.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const backends = ['sqlite', 'postgres', 'etcd'];
  const rows: [string, (f: BackendFigures) => string][] = [
    ['creates/s, sequential', (f) => f.createsSequential.toFixed(0)],
    ['creates/s, 64 in flight', (f) => f.creates64.toFixed(0)],
    ['updates/s, 64 in flight (1,000 keys)', (f) => f.updates64.toFixed(0)],
    ['list 10,000 keys, median ms', (f) => f.list10kMedianMs.toFixed(1)],
  ];
  const cell = (name: string, format: (f: BackendFigures) => string) => {
    const figures = results[name];
    return typeof figures === 'string' || figures === undefined ? '-' : format(figures);
  };
  console.log(
    '\nstore backends side by side (1 KiB values; PostgreSQL and etcd with their default durable settings)',
  );
  console.log(`${'figure'.padEnd(40)}${backends.map((name) => name.padStart(12)).join('')}`);
  for (const [label, format] of rows) {
    console.log(`${label.padEnd(40)}${backends.map((name) => cell(name, format).padStart(12)).join('')}`);
  }
  for (const name of backends) {
    const figures = results[name];
    if (typeof figures === 'string') console.log(`${name} ${figures}`);
  }
  console.log('reference: kube-apiserver on etcd, ~700 creates/s through the API on this machine class');
  return results;
}
