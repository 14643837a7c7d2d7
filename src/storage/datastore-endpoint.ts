/**
 * `--datastore-endpoint URL` (k3s's flag of the same name): which engine holds the cluster's
 * state. `sqlite://PATH` (the default, in the state directory), `postgres://...`, or
 * `etcd://HOST:PORT[,HOST:PORT...]` with TLS files as query parameters (`?cacert=&cert=&key=`,
 * the files k3s takes as --datastore-cafile, --datastore-certfile and --datastore-keyfile).
 */
import { type DatastoreEndpoint, parseDatastoreEndpoint } from './datastore-endpoint-url.js';
import { StoreOpenError } from './errors.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './types.js';

export { type DatastoreEndpoint, parseDatastoreEndpoint };

/** A clear error within this time when the server does not answer (issue 30). */
export const DATASTORE_CONNECT_TIMEOUT_MS = 8000;

export interface OpenDatastoreOptions {
  readonly historyRevisions?: number;
}

export async function openDatastore(
  endpoint: DatastoreEndpoint,
  options: OpenDatastoreOptions = {},
): Promise<Store> {
  if (endpoint.kind === 'sqlite') {
    return SqliteStore.open({ path: endpoint.path, historyRevisions: options.historyRevisions });
  }
  // The clients are loaded on demand: they cost start-up time and memory a SQLite cluster never
  // uses (pg's module alone made every start load Node's fetch, ~40 ms, to ask if it runs on
  // Cloudflare; etcd's pulls in gRPC).
  if (endpoint.kind === 'etcd') {
    const etcd = await loadClient('etcd', () => import('./etcd/etcd-store.js'));
    return etcd.EtcdStore.open({
      endpoints: endpoint.endpoints,
      tls: endpoint.tls,
      historyRevisions: options.historyRevisions,
      connectTimeoutMs: DATASTORE_CONNECT_TIMEOUT_MS,
    });
  }
  const postgres = await loadClient('PostgreSQL', () => import('./postgres/postgres-store.js'));
  return postgres.PostgresStore.open({
    url: endpoint.url,
    historyRevisions: options.historyRevisions,
    connectTimeoutMs: DATASTORE_CONNECT_TIMEOUT_MS,
  });
}

async function loadClient<T>(engine: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new StoreOpenError(
      `the ${engine} client cannot be loaded in this build: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
