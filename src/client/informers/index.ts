export {
  apiErrorCode,
  apiErrorReason,
  isExpiredError,
  isNotFoundError,
  WatchStatusError,
} from './api-errors.js';
export { Backoff, type BackoffOptions } from './backoff.js';
export {
  type InformerOptions,
  SharedInformerFactory,
  type SharedInformerFactoryOptions,
} from './factory.js';
export { Indexer, type Indexers, type IndexFunc, NAMESPACE_INDEX, namespaceIndexFunc } from './indexer.js';
export { keyOf, splitKey } from './keys.js';
export { Lister } from './lister.js';
export { Reflector, type ReflectorOptions, type ReflectorStore } from './reflector.js';
export {
  type EventHandler,
  type HandlerOptions,
  type HandlerRegistration,
  SharedInformer,
  type SharedInformerOptions,
  type SyncSource,
} from './shared-informer.js';
export { sleep } from './sleep.js';
export { DeletedFinalStateUnknown, objectOf } from './tombstone.js';
export { stripManagedFields } from './transforms.js';
export { waitForCacheSync } from './wait-for-sync.js';
