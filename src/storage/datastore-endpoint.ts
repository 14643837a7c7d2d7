/**
 * `--datastore-endpoint URL` (k3s's flag of the same name): which engine holds the cluster's
 * state. `sqlite://PATH` (the default, in the state directory) or `postgres://...`.
 */
import { StoreOpenError } from './errors.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './types.js';

export type DatastoreEndpoint = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** A clear error within this time when the server does not answer (issue 30). */
export const DATASTORE_CONNECT_TIMEOUT_MS = 8000;

/** Parses an endpoint URL, refusing engines tkube does not have. */
export function parseDatastoreEndpoint(endpoint: string): DatastoreEndpoint {
  const scheme = /^([a-z0-9+.-]+):\/\//i.exec(endpoint)?.[1]?.toLowerCase();
  if (scheme === 'sqlite') {
    const path = endpoint.slice('sqlite://'.length);
    if (!path)
      throw new StoreOpenError('datastore endpoint sqlite:// needs a file path (sqlite:///path/state.db)');
    return { kind: 'sqlite', path };
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    try {
      new URL(endpoint);
    } catch {
      throw new StoreOpenError('datastore endpoint is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: endpoint };
  }
  if (scheme === 'etcd' || scheme === 'http' || scheme === 'https') {
    throw new StoreOpenError('etcd datastores are not supported yet; use sqlite:// or postgres://');
  }
  throw new StoreOpenError(
    `datastore endpoint ${scheme ? `scheme ${scheme}://` : 'without a scheme'} is not supported; use sqlite://PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE`,
  );
}

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
  return PostgresStore.open({
    url: endpoint.url,
    historyRevisions: options.historyRevisions,
    connectTimeoutMs: DATASTORE_CONNECT_TIMEOUT_MS,
  });
}
