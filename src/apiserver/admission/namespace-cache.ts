// NamespaceLifecycle's view of namespaces: their state read from the namespaces' object cache, as
// kube-apiserver reads it from an informer, so a create in an existing namespace costs no store
// read. A namespace missing from the cache is looked up live (it may have been created a moment
// ago), as upstream does.
import type { ObjectCache } from './object-cache.js';

export type NamespaceState = 'Active' | 'Terminating';

export class NamespaceCache {
  /** `namespaces`: the object cache of `/registry/namespaces/`. */
  constructor(private readonly namespaces: ObjectCache) {}

  /** The namespace's state, or undefined when it does not exist. */
  async state(name: string): Promise<NamespaceState | undefined> {
    const text = await this.namespaces.findText('', name);
    return text === undefined ? undefined : stateOf(text);
  }
}

/** Only a namespace being deleted has a deletionTimestamp: no need to parse the rest. */
function stateOf(value: string): NamespaceState {
  return value.includes('"deletionTimestamp"') && /"deletionTimestamp":"[^"]/.test(value)
    ? 'Terminating'
    : 'Active';
}
