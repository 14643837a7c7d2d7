// The informer's cache (client-go tools/cache thread_safe_store + index): objects by key, plus
// named indexes mapping index values to keys. JavaScript runs one thing at a time, so every
// method sees and leaves a consistent state.
import type { ApiObject } from '../types.js';
import { keyOf } from './keys.js';

/** The values an object is indexed under (several for multi-valued indexes). */
export type IndexFunc<T> = (object: T) => readonly string[];
export type Indexers<T> = Readonly<Record<string, IndexFunc<T>>>;

/** The built-in index: objects by namespace (`''` for cluster-scoped ones). */
export const NAMESPACE_INDEX = 'namespace';

export function namespaceIndexFunc(object: ApiObject): string[] {
  return [object.metadata?.namespace ?? ''];
}

type Index = Map<string, Set<string>>;

export class Indexer<T extends ApiObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  private readonly indices = new Map<string, Index>();

  constructor(
    indexers: Indexers<T> = {},
    readonly keyFunc: (object: T) => string = keyOf,
  ) {
    this.addIndexers({ [NAMESPACE_INDEX]: namespaceIndexFunc, ...indexers });
  }

  /** Adds indexes, indexing the objects already stored. A name already in use is an error. */
  addIndexers(indexers: Indexers<T>): void {
    for (const [name, indexFunc] of Object.entries(indexers)) {
      if (this.indexers.has(name)) throw new Error(`indexer conflict: ${name}`);
      this.indexers.set(name, indexFunc);
      const index: Index = new Map();
      this.indices.set(name, index);
      for (const [key, object] of this.items) addToIndex(index, indexFunc(object), key);
    }
  }

  /** Adds or replaces the object under its key. */
  add(object: T): void {
    const key = this.keyFunc(object);
    const old = this.items.get(key);
    this.items.set(key, object);
    this.reindex(key, old, object);
  }

  update(object: T): void {
    this.add(object);
  }

  delete(object: T): void {
    this.deleteKey(this.keyFunc(object));
  }

  deleteKey(key: string): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.items.delete(key);
    this.reindex(key, old, undefined);
  }

  /** Replaces the whole content. */
  replace(objects: readonly T[]): void {
    this.items.clear();
    for (const index of this.indices.values()) index.clear();
    for (const object of objects) this.add(object);
  }

  get(object: T): T | undefined {
    return this.items.get(this.keyFunc(object));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  get size(): number {
    return this.items.size;
  }

  /** The objects indexed under `value` in index `indexName`. */
  byIndex(indexName: string, value: string): T[] {
    return this.indexKeys(indexName, value).map((key) => this.items.get(key)!);
  }

  /** The keys indexed under `value` in index `indexName`. */
  indexKeys(indexName: string, value: string): string[] {
    return [...(this.indexOf(indexName).get(value) ?? [])];
  }

  /** The objects sharing any index value with `object` in index `indexName`. */
  index(indexName: string, object: T): T[] {
    const index = this.indexOf(indexName);
    const keys = new Set<string>();
    for (const value of this.indexers.get(indexName)!(object)) {
      for (const key of index.get(value) ?? []) keys.add(key);
    }
    return [...keys].map((key) => this.items.get(key)!);
  }

  /** The names of the indexes. */
  listIndexNames(): string[] {
    return [...this.indexers.keys()];
  }

  /** Every value index `indexName` holds. */
  listIndexFuncValues(indexName: string): string[] {
    return [...this.indexOf(indexName).keys()];
  }

  private indexOf(indexName: string): Index {
    const index = this.indices.get(indexName);
    if (index === undefined) throw new Error(`Index with name ${indexName} does not exist`);
    return index;
  }

  private reindex(key: string, old: T | undefined, current: T | undefined): void {
    for (const [name, indexFunc] of this.indexers) {
      const index = this.indices.get(name)!;
      const oldValues = old === undefined ? [] : indexFunc(old);
      const newValues = current === undefined ? [] : indexFunc(current);
      // Most updates leave index values alone (the common case for the namespace index).
      if (sameValues(oldValues, newValues)) continue;
      removeFromIndex(index, oldValues, key);
      addToIndex(index, newValues, key);
    }
  }
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function addToIndex(index: Index, values: readonly string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (keys === undefined) {
      keys = new Set();
      index.set(value, keys);
    }
    keys.add(key);
  }
}

function removeFromIndex(index: Index, values: readonly string[], key: string): void {
  for (const value of values) {
    const keys = index.get(value);
    if (keys === undefined) continue;
    keys.delete(key);
    // Empty sets would let high-cardinality indexes (by uid, by node) grow without bound.
    if (keys.size === 0) index.delete(value);
  }
}
