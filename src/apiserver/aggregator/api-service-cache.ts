// The APIServices in memory, kept current from a store watch, as kube-aggregator's lister: the
// request path asks it, without a store read, whether a group/version goes to a service.
import type { KubeObject } from '../../api/object.js';
import type { APIService } from '../../api/types/apiregistration-v1.generated.js';
import type { Store, WatchEvent } from '../../storage/index.js';
import { StoreFollower } from '../auth/store-follower.js';

export class ApiServiceCache {
  private readonly objects = new Map<string, APIService>();
  private readonly follower: StoreFollower;
  private readonly listeners = new Set<(name: string) => void>();

  /** `prefix`: the APIServices' key prefix in the store. */
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

  get(name: string): APIService | undefined {
    return this.objects.get(name);
  }

  all(): APIService[] {
    return [...this.objects.values()];
  }

  /** Runs `listener` with an APIService's name after each change of it. */
  onChange(listener: (name: string) => void): void {
    this.listeners.add(listener);
  }

  private async load(): Promise<number> {
    const page = await this.store.list(this.prefix);
    this.objects.clear();
    for (const item of page.items) this.put(item.key, item.value);
    for (const name of this.objects.keys()) this.notify(name);
    return page.revision;
  }

  private apply(event: WatchEvent): void {
    const name = event.key.slice(this.prefix.length);
    if (event.type === 'delete') this.objects.delete(name);
    else this.put(event.key, event.value!);
    this.notify(name);
  }

  private put(key: string, value: string): void {
    this.objects.set(key.slice(this.prefix.length), JSON.parse(value) as KubeObject as APIService);
  }

  private notify(name: string): void {
    for (const listener of this.listeners) listener(name);
  }
}
