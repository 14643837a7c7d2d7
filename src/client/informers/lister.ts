import { type LabelSelector, parseLabelSelector } from '../../api/selectors/index.js';
import type { ApiObject } from '../types.js';
import { type Indexer, NAMESPACE_INDEX } from './indexer.js';

/** Reads of an informer's cache, as client-go's generated listers offer them. */
export class Lister<T extends ApiObject> {
  constructor(readonly indexer: Indexer<T>) {}

  /** The object `namespace/name` (`namespace` `''` for cluster-scoped objects). */
  get(namespace: string, name: string): T | undefined {
    return this.indexer.getByKey(namespace ? `${namespace}/${name}` : name);
  }

  /**
   * The objects of `namespace` (all namespaces when it is `''` or omitted) whose labels match the
   * selector (text such as `app=web,tier in (a,b)` or a parsed one; all when omitted).
   */
  list(namespace?: string, selector?: string | LabelSelector): T[] {
    const labels = typeof selector === 'string' ? parseLabelSelector(selector) : selector;
    const objects = namespace ? this.indexer.byIndex(NAMESPACE_INDEX, namespace) : this.indexer.list();
    if (labels === undefined || labels.isEmpty()) return objects;
    return objects.filter((object) => labels.matches(object.metadata?.labels ?? {}));
  }
}
