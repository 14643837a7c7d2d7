// One resource's stored objects kept in memory from a store watch, as kube-apiserver's admission
// plugins read PriorityClasses, LimitRanges, ServiceAccounts and Namespaces from informers: a pod
// create then costs no store read. The store hands a write's events to its watchers before the
// write itself completes, so a client that saw its write answered finds it here too.
import type { KubeObject } from '../../api/object.js';
import type { Store, WatchEvent } from '../../storage/index.js';
import { StoreFollower } from '../auth/store-follower.js';

/** What admission plugins read of a resource: a ResourceStore, or this cache in front of one. */
export interface ObjectLister {
  /** The object, or undefined when it does not exist. */
  find(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Each object of the namespace ('' for cluster-scoped resources) as JSON text. */
  list(namespace: string): Promise<{ readonly items: readonly string[] }>;
}

export class ObjectCache implements ObjectLister {
  /** Stored JSON text by namespace ('' for cluster-scoped objects), then name. */
  private readonly objects = new Map<string, Map<string, string>>();
  private readonly follower: StoreFollower;
  private loaded = false;

  /** `prefix`: the resource's key prefix, such as `/registry/limitranges/`. */
  constructor(
    private readonly store: Store,
    private readonly prefix: string,
  ) {
    this.follower = new StoreFollower(store, prefix, {
      apply: (events) => {
        for (const event of events) this.apply(event);
      },
      relist: () => this.load(),
    });
  }

  async start(): Promise<void> {
    this.follower.start(await this.load());
  }

  stop(): void {
    this.follower.stop();
  }

  /**
   * Missing objects are looked up in the store, as upstream's plugins fall back to a live read
   * for an object an informer may not have yet. Before start() every read is live.
   */
  async find(namespace: string, name: string): Promise<KubeObject | undefined> {
    const text = await this.findText(namespace, name);
    return text === undefined ? undefined : (JSON.parse(text) as KubeObject);
  }

  /** The object's stored JSON text (without a resourceVersion), found as find() finds it. */
  async findText(namespace: string, name: string): Promise<string | undefined> {
    const text = this.objects.get(namespace)?.get(name);
    if (text !== undefined) return text;
    return (await this.store.get(this.key(namespace, name)))?.value;
  }

  async list(namespace: string): Promise<{ readonly items: readonly string[] }> {
    if (!this.loaded) {
      const page = await this.store.list(namespace === '' ? this.prefix : `${this.prefix}${namespace}/`);
      return { items: page.items.map((kv) => kv.value) };
    }
    return { items: [...(this.objects.get(namespace)?.values() ?? [])] };
  }

  private key(namespace: string, name: string): string {
    return namespace === '' ? `${this.prefix}${name}` : `${this.prefix}${namespace}/${name}`;
  }

  private async load(): Promise<number> {
    const page = await this.store.list(this.prefix);
    this.objects.clear();
    for (const item of page.items) this.put(item.key, item.value);
    this.loaded = true;
    return page.revision;
  }

  private apply(event: WatchEvent): void {
    if (event.type !== 'delete') {
      this.put(event.key, event.value!);
      return;
    }
    const [namespace, name] = this.split(event.key);
    const names = this.objects.get(namespace);
    names?.delete(name);
    if (names?.size === 0) this.objects.delete(namespace);
  }

  private put(key: string, value: string): void {
    const [namespace, name] = this.split(key);
    const names = this.objects.get(namespace);
    if (names) names.set(name, value);
    else this.objects.set(namespace, new Map([[name, value]]));
  }

  /** `ns/name` below the prefix for namespaced objects, `name` for cluster-scoped ones. */
  private split(key: string): [namespace: string, name: string] {
    const rest = key.slice(this.prefix.length);
    const slash = rest.indexOf('/');
    return slash < 0 ? ['', rest] : [rest.slice(0, slash), rest.slice(slash + 1)];
  }
}
