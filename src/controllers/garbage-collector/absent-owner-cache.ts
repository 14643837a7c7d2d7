// Owners the apiserver said do not exist (or exist with another uid), so dependents naming them
// need no second look-up: an LRU of 500 identities, as upstream's ReferenceCache.
import { LruCache } from '../../client/events/lru.js';
import { identityKey, type ObjectIdentity } from './object-identity.js';

export class AbsentOwnerCache {
  private readonly cache: LruCache<string, true>;

  constructor(capacity = 500) {
    this.cache = new LruCache(capacity);
  }

  add(identity: ObjectIdentity): void {
    this.cache.set(identityKey(identity), true);
  }

  has(identity: ObjectIdentity): boolean {
    return this.cache.get(identityKey(identity)) === true;
  }
}
