/**
 * A `--datastore-endpoint` URL read into the engine and its settings (datastore-endpoint.ts
 * opens it), apart from the stores so that `tkube up` checks its flag without loading them.
 */
import { StoreOpenError } from './errors.js';
import type { EtcdTls } from './etcd/etcd-store.js';

export type DatastoreEndpoint =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string }
  | { kind: 'etcd'; endpoints: string[]; tls?: EtcdTls };

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
