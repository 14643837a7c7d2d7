export { decodeContinue, encodeContinue } from './continue-token.js';
export {
  DATASTORE_CONNECT_TIMEOUT_MS,
  type DatastoreEndpoint,
  openDatastore,
  parseDatastoreEndpoint,
} from './datastore-endpoint.js';
export * from './errors.js';
export { prefixEnd } from './keys.js';
export { SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
export type * from './types.js';
