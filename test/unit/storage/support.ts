// The store suite runs once per backend (issue 30): each backend opens a fresh, empty store
// for a test and can open a second store on the same data (a restart).
import { join } from 'node:path';
import { afterAll, describe, onTestFinished } from 'vitest';
import { EtcdStore } from '../../../src/storage/etcd/etcd-store.js';
import { SqliteStore, type Store, type Watch, type WatchEvent } from '../../../src/storage/index.js';
import { PostgresStore } from '../../../src/storage/postgres/postgres-store.js';
import { type EtcdServer, etcdSkipReason, startEtcd } from '../../support/etcd-server.js';
import { type PostgresServer, postgresSkipReason, startPostgres } from '../../support/postgres-server.js';
import { tempDir } from '../../support/temp.js';

/** The options every backend takes (the subset of SqliteStoreOptions that is not about files). */
export interface StoreTestOptions {
  readonly historyRevisions?: number;
  readonly watchBufferLimit?: number;
  readonly now?: () => number;
}

export interface OpenedStore {
  readonly store: Store;
  /** Opens another store on the same data, as a restarted process would (closed when the test ends). */
  reopen(options?: StoreTestOptions): Promise<Store>;
}

export interface StoreBackend {
  readonly name: string;
  /** Set when this machine cannot run the backend (its server binaries are absent). */
  readonly skipReason?: string;
  open(options?: StoreTestOptions): Promise<OpenedStore>;
  /** Per-test time limit: a server backend pays a round trip per write on a loaded machine. */
  readonly testTimeoutMs?: number;
  /** False when TTLs run on the server's own clock, so a test's `now` cannot move them. */
  readonly clockDrivenTtl?: boolean;
  /** Releases what the backend started for this test file (a server). */
  shutdown?(): Promise<void>;
}

/** Maintenance runs when a test calls maintain(), not on a timer racing the test. */
const QUIET_MAINTENANCE_MS = 60_000;

export const sqliteBackend: StoreBackend = {
  name: 'sqlite',
  async open(options = {}) {
    const path = join(tempDir(), 'state.db');
    const openAt = (o: StoreTestOptions) => {
      const store = SqliteStore.open({ maintenanceIntervalMs: QUIET_MAINTENANCE_MS, ...o, path });
      onTestFinished(() => store.close());
      return store;
    };
    return { store: openAt(options), reopen: async (o = options) => openAt(o) };
  },
};

/** A fresh SQLite store, for tests of the layers above the store (they need no backend choice). */
export function openStore(options: StoreTestOptions = {}): { store: SqliteStore; path: string } {
  const path = join(tempDir(), 'state.db');
  const store = SqliteStore.open({ maintenanceIntervalMs: QUIET_MAINTENANCE_MS, ...options, path });
  onTestFinished(() => store.close());
  return { store, path };
}

let postgres: Promise<PostgresServer> | undefined;
let databases = 0;

/** One private PostgreSQL server per test file, started on first use; a fresh database per test. */
export const postgresBackend: StoreBackend = {
  name: 'postgres',
  testTimeoutMs: 120_000,
  skipReason: postgresSkipReason(),
  async open(options = {}) {
    postgres ??= startPostgres();
    const url = await (await postgres).createDatabase(`store_${process.pid}_${++databases}`);
    const openAt = async (o: StoreTestOptions) => {
      const store = await PostgresStore.open({ maintenanceIntervalMs: QUIET_MAINTENANCE_MS, ...o, url });
      onTestFinished(() => store.close());
      return store;
    };
    return { store: await openAt(options), reopen: (o = options) => openAt(o) };
  },
  async shutdown() {
    const server = postgres;
    postgres = undefined;
    (await server)?.stop();
  },
};

/** A fresh etcd server per test (etcd's revisions are server-wide); compaction on maintain(). */
export const etcdBackend: StoreBackend = {
  name: 'etcd',
  testTimeoutMs: 120_000,
  skipReason: etcdSkipReason(),
  clockDrivenTtl: false,
  async open(options = {}) {
    const server: EtcdServer = await startEtcd();
    onTestFinished(() => server.stop());
    const openAt = async (o: StoreTestOptions) => {
      const store = await EtcdStore.open({
        maintenanceIntervalMs: QUIET_MAINTENANCE_MS,
        historyRevisions: o.historyRevisions,
        watchBufferLimit: o.watchBufferLimit,
        endpoints: [server.endpoint],
      });
      onTestFinished(() => store.close());
      return store;
    };
    return { store: await openAt(options), reopen: (o = options) => openAt(o) };
  },
};

export const storeBackends: StoreBackend[] = [sqliteBackend, postgresBackend, etcdBackend];

/** Declares `title` once per backend; a backend this machine cannot run is skipped with its reason. */
export function describeEachStore(title: string, body: (backend: StoreBackend) => void): void {
  for (const backend of storeBackends) {
    const name = backend.skipReason
      ? `${title} on ${backend.name} (skipped: ${backend.skipReason})`
      : `${title} on ${backend.name}`;
    describe.skipIf(backend.skipReason !== undefined)(name, { timeout: backend.testTimeoutMs }, () => {
      afterAll(async () => backend.shutdown?.());
      body(backend);
    });
  }
}

/** Reads events from a watch until `count` have arrived (or the timeout passes). */
export async function collect(watch: Watch, count: number, timeoutMs = 5000): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  const iterator = watch[Symbol.asyncIterator]();
  const deadline = Date.now() + timeoutMs;
  while (events.length < count) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`timed out after ${events.length} of ${count} events`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`timed out after ${events.length} of ${count} events`)),
        remaining,
      );
    });
    try {
      const result = await Promise.race([iterator.next(), timeout]);
      if (result.done) break;
      events.push(...result.value);
    } finally {
      clearTimeout(timer);
    }
  }
  return events;
}

export function kb(n: number, fill = 'x'): string {
  return JSON.stringify({ data: fill.repeat(Math.max(0, n * 1024 - 12)) });
}
