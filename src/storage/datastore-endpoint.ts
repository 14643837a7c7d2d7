/**
 * `--datastore-endpoint URL` (k3s's flag of the same name): which engine holds the cluster's
 * state. `sqlite://PATH` (the default, in the state directory), `postgres://...`, or
 * `etcd://HOST:PORT[,HOST:PORT...]` with TLS files as query parameters (`?cacert=&cert=&key=`,
 * the files k3s takes as --datastore-cafile, --datastore-certfile and --datastore-keyfile).
 */
import { StoreOpenError } from './errors.js';
import type { EtcdTls } from './etcd/etcd-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './types.js';

export type DatastoreEndpoint =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string }
  | { kind: 'etcd'; endpoints: string[]; tls?: EtcdTls };

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
  if (scheme === 'etcd') return parseEtcdEndpoint(endpoint);
  throw new StoreOpenError(
    `datastore endpoint ${scheme ? `scheme ${scheme}://` : 'without a scheme'} is not supported; use sqlite://PATH, postgres://USER:PASSWORD@HOST:PORT/DATABASE or etcd://HOST:PORT[,HOST:PORT...]`,
  );
}

const ETCD_PARAMETERS = new Set(['cacert', 'cert', 'key']);

/** etcd://HOST:PORT[,HOST:PORT...][?cacert=FILE[&cert=FILE&key=FILE]]: TLS when a CA is given. */
function parseEtcdEndpoint(endpoint: string): DatastoreEndpoint {
  const rest = endpoint.slice('etcd://'.length);
  const query = rest.indexOf('?');
  const hosts = (query < 0 ? rest : rest.slice(0, query)).replace(/\/$/, '');
  const parameters = new URLSearchParams(query < 0 ? '' : rest.slice(query + 1));
  for (const name of parameters.keys()) {
    if (!ETCD_PARAMETERS.has(name)) {
      throw new StoreOpenError(
        `datastore endpoint etcd://: unknown parameter ${name} (use cacert, cert, key)`,
      );
    }
  }
  const members = hosts.split(',');
  for (const member of members) {
    const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})$/i.exec(member);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535) {
      throw new StoreOpenError(
        `datastore endpoint etcd://: ${member ? `"${member}" is not HOST:PORT` : 'needs HOST:PORT'} (etcd://HOST:PORT[,HOST:PORT...])`,
      );
    }
  }
  const caFile = parameters.get('cacert') ?? undefined;
  const certFile = parameters.get('cert') ?? undefined;
  const keyFile = parameters.get('key') ?? undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new StoreOpenError('datastore endpoint etcd://: cert and key go together');
  }
  if (certFile !== undefined && caFile === undefined) {
    throw new StoreOpenError('datastore endpoint etcd://: a client certificate needs cacert (TLS)');
  }
  const protocol = caFile === undefined ? 'http' : 'https';
  return {
    kind: 'etcd',
    endpoints: members.map((member) => `${protocol}://${member}`),
    ...(caFile !== undefined && { tls: { caFile, certFile, keyFile } }),
  };
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
