import type { ApiObject } from '../types.js';

/**
 * What a delete handler receives for an object that vanished while the informer was not
 * watching (found missing on a relist): its last known state, which may be stale.
 */
export class DeletedFinalStateUnknown<T extends ApiObject> {
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

/** The object itself, or the last known state a tombstone carries. */
export function objectOf<T extends ApiObject>(value: T | DeletedFinalStateUnknown<T>): T {
  return value instanceof DeletedFinalStateUnknown ? value.obj : value;
}
