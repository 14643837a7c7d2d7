// Storage benchmark: `npm run bench:storage`. Prints a table, then one JSON line.
// Every figure comes from a fresh database file in a temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { SqliteStore, type SqliteStoreOptions } from '../../src/storage/index.js';
import { percentile, printTable } from './report.js';
import { compareStorageBackends } from './storage-backends.js';

const VALUE_1KB = JSON.stringify({ data: 'x'.repeat(1024 - 12) });
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-storage-'));
let fileCounter = 0;

function freshStore(options: Partial<SqliteStoreOptions> = {}): SqliteStore {
  return SqliteStore.open({ path: join(dir, `store-${fileCounter++}.db`), ...options });
}

async function inFlight(
  total: number,
  concurrency: number,
  write: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < total) await write(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function createsPerSecond(count: number, concurrency: number): Promise<number> {
  const store = freshStore();
  const started = performance.now();
  await inFlight(count, concurrency, (i) => store.create(`/registry/configmaps/default/cm-${i}`, VALUE_1KB));
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return count / seconds;
}

async function updatesPerSecond(keys: number, count: number): Promise<number> {
  const store = freshStore();
  await inFlight(keys, 64, (i) => store.create(`/registry/configmaps/default/cm-${i}`, VALUE_1KB));
  const started = performance.now();
  await inFlight(count, 64, (i) => store.update(`/registry/configmaps/default/cm-${i % keys}`, VALUE_1KB));
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return count / seconds;
}

async function listMilliseconds(keys: number): Promise<{ median: number; min: number }> {
  const store = freshStore();
  await inFlight(keys, 64, (i) => store.create(`/registry/configmaps/default/cm-${i}`, VALUE_1KB));
  // Other resources around the listed prefix, as in a real cluster.
  await inFlight(keys, 64, (i) => store.create(`/registry/secrets/default/s-${i}`, VALUE_1KB));
  const times: number[] = [];
  // Two warm-up lists (page cache, JIT), then 11 timed ones.
  for (let run = 0; run < 13; run++) {
    const started = performance.now();
    const { items } = await store.list('/registry/configmaps/');
    if (run >= 2) times.push(performance.now() - started);
    if (items.length !== keys) throw new Error(`listed ${items.length} of ${keys}`);
  }
  await store.close();
  return { median: percentile(times, 50), min: Math.min(...times) };
}

interface WatchFigures {
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Watch delivery to `watchers` consumers. `writesPerSecond` undefined: writers saturate the
 * store (64 in flight) and latency includes queueing for the group commit; a number: writes
 * are paced at that rate, the delivery latency a cluster sees under steady load.
 */
async function watchDelivery(
  watchers: number,
  events: number,
  writesPerSecond?: number,
): Promise<WatchFigures> {
  const store = freshStore();
  const submitted = new Map<string, number>();
  const latencies: number[] = [];
  let delivered = 0;
  const from = store.currentRevision();
  const consumers = Array.from({ length: watchers }, async () => {
    const watch = store.watch('/registry/configmaps/', { afterRevision: from, prefix: true });
    let seen = 0;
    for await (const batch of watch) {
      const now = performance.now();
      for (const event of batch) latencies.push(now - submitted.get(event.key)!);
      seen += batch.length;
      delivered += batch.length;
      if (seen >= events) watch.close();
    }
  });
  const started = performance.now();
  const write = (i: number) => {
    const key = `/registry/configmaps/default/cm-${i}`;
    submitted.set(key, performance.now());
    return store.create(key, VALUE_1KB);
  };
  if (writesPerSecond === undefined) {
    await inFlight(events, 64, write);
  } else {
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < events; i++) {
      const due = started + (i * 1000) / writesPerSecond;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      writes.push(write(i));
    }
    await Promise.all(writes);
  }
  await Promise.all(consumers);
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return {
    eventsPerSecond: delivered / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

interface ChurnFigures {
  databaseBytes: number;
  walBytes: number;
  liveBytes: number;
  ratio: number;
  historyRevisions: number;
}

async function churn(keys: number, updates: number): Promise<ChurnFigures> {
  const store = freshStore({ maintenanceIntervalMs: 250 });
  await inFlight(keys, 64, (i) => store.create(`/registry/configmaps/default/cm-${i}`, VALUE_1KB));
  await inFlight(updates, 64, (i) =>
    store.update(`/registry/configmaps/default/cm-${(i * 7919) % keys}`, VALUE_1KB),
  );
  // Let the automatic maintenance (not an explicit call) settle: wait until two readings agree.
  let previous = -1;
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { databaseBytes, walBytes } = store.stats();
    if (databaseBytes + walBytes === previous) break;
    previous = databaseBytes + walBytes;
  }
  const { databaseBytes, walBytes } = store.stats();
  const liveBytes = keys * (VALUE_1KB.length + '/registry/configmaps/default/cm-000'.length);
  await store.close();
  return {
    databaseBytes,
    walBytes,
    liveBytes,
    ratio: (databaseBytes + walBytes) / liveBytes,
    historyRevisions: 1000,
  };
}

/** The same inserts through better-sqlite3 directly, same pragmas: one row per transaction. */
function rawInsertsPerSecond(count: number, perTransaction: number): number {
  const db = new Database(join(dir, `raw-${fileCounter++}.db`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE kv (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
  const batch = db.transaction((start: number, end: number) => {
    for (let i = start; i < end; i++) insert.run(`/registry/configmaps/default/cm-${i}`, VALUE_1KB);
  });
  const started = performance.now();
  for (let i = 0; i < count; i += perTransaction) batch(i, Math.min(count, i + perTransaction));
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return count / seconds;
}

try {
  const createsSequential = await createsPerSecond(10_000, 1);
  const creates64 = await createsPerSecond(20_000, 64);
  const updates64 = await updatesPerSecond(1000, 20_000);
  const list10k = await listMilliseconds(10_000);
  const watch = await watchDelivery(100, 5000);
  const watchSteady = await watchDelivery(100, 5000, 2000);
  const churnFigures = await churn(1000, 100_000);
  const rawAutocommit = rawInsertsPerSecond(20_000, 1);
  const rawBatched = rawInsertsPerSecond(20_000, 1000);

  printTable('tkube storage (SQLite, WAL, synchronous=NORMAL, 1 KiB values)', [
    ['creates/s, sequential', createsSequential.toFixed(0), 'target ≥ 10,000/s with 64 in flight'],
    ['creates/s, 64 in flight', creates64.toFixed(0), ''],
    ['updates/s, 64 in flight', updates64.toFixed(0), '1,000 keys'],
    [
      'list 10,000 keys (ms, median / min of 11)',
      `${list10k.median.toFixed(1)} / ${list10k.min.toFixed(1)}`,
      'target ≤ 50 ms',
    ],
    [
      'watch events/s delivered (100 watchers)',
      watch.eventsPerSecond.toFixed(0),
      '5,000 writes, 64 in flight',
    ],
    [
      'watch p50 / p99 (ms), writes saturating',
      `${watch.p50Ms.toFixed(2)} / ${watch.p99Ms.toFixed(2)}`,
      'submitted → received, incl. commit queueing',
    ],
    [
      'watch p50 / p99 (ms), 2,000 writes/s',
      `${watchSteady.p50Ms.toFixed(2)} / ${watchSteady.p99Ms.toFixed(2)}`,
      'target p99 ≤ 10 ms with 100 watchers',
    ],
    [
      'db+WAL after 100,000 updates of 1,000 keys',
      `${(churnFigures.databaseBytes / 1024).toFixed(0)} KiB + ${(churnFigures.walBytes / 1024).toFixed(0)} KiB`,
      `${churnFigures.ratio.toFixed(2)}× live data (target ≤ 3×)`,
    ],
    ['raw better-sqlite3 inserts/s, 1 per txn', rawAutocommit.toFixed(0), 'baseline'],
    ['raw better-sqlite3 inserts/s, 1000 per txn', rawBatched.toFixed(0), 'ceiling'],
    ['tkube 64-in-flight creates / raw 1-per-txn', (creates64 / rawAutocommit).toFixed(2), 'ratio'],
    ['tkube 64-in-flight creates / raw batched', (creates64 / rawBatched).toFixed(2), 'ratio'],
  ]);
  console.log(
    JSON.stringify({
      createsPerSecSequential: Math.round(createsSequential),
      createsPerSec64InFlight: Math.round(creates64),
      updatesPerSec64InFlight: Math.round(updates64),
      list10kMs: Number(list10k.median.toFixed(2)),
      list10kMinMs: Number(list10k.min.toFixed(2)),
      watchEventsPerSec100Watchers: Math.round(watch.eventsPerSecond),
      watchSaturatedP50Ms: Number(watch.p50Ms.toFixed(3)),
      watchSaturatedP99Ms: Number(watch.p99Ms.toFixed(3)),
      watchP50Ms: Number(watchSteady.p50Ms.toFixed(3)),
      watchP99Ms: Number(watchSteady.p99Ms.toFixed(3)),
      churnDatabaseBytes: churnFigures.databaseBytes,
      churnWalBytes: churnFigures.walBytes,
      churnLiveBytes: churnFigures.liveBytes,
      churnRatio: Number(churnFigures.ratio.toFixed(3)),
      rawInsertsPerSecAutocommit: Math.round(rawAutocommit),
      rawInsertsPerSecBatched: Math.round(rawBatched),
      ratioToRawAutocommit: Number((creates64 / rawAutocommit).toFixed(3)),
      ratioToRawBatched: Number((creates64 / rawBatched).toFixed(3)),
    }),
  );
  console.log(JSON.stringify({ backends: await compareStorageBackends() }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
