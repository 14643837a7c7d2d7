import type { ApiObject } from '../types.js';
import { DeletedFinalStateUnknown } from './tombstone.js';

/** `namespace/name`, or `name` for cluster-scoped objects; a tombstone's own key. */
export function keyOf(object: ApiObject | DeletedFinalStateUnknown<ApiObject>): string {
  if (object instanceof DeletedFinalStateUnknown) return object.key;
  const namespace = object.metadata?.namespace;
  const name = object.metadata?.name ?? '';
  return namespace ? `${namespace}/${name}` : name;
}

/** The parts of a key made by {@link keyOf}; `namespace` is `''` for cluster-scoped keys. */
export function splitKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: key };
  if (parts.length === 2) return { namespace: parts[0]!, name: parts[1]! };
  throw new Error(`unexpected key format: "${key}"`);
}
