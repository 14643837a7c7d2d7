// NamespaceLifecycle's view of namespaces, kept in memory from a watch as kube-apiserver keeps
// it in an informer: a create in an existing namespace costs no store read. A namespace missing
// from the cache is looked up live (it may have been created a moment ago), as upstream does.
import type { Store, WatchEvent } from '../../storage/index.js';
import { StoreFollower } from '../auth/store-follower.js';

const PREFIX = '/registry/namespaces/';

export type NamespaceState = 'Active' | 'Terminating';

export class NamespaceCache {
  private readonly states = new Map<string, NamespaceState>();
  private readonly follower: StoreFollower;

  constructor(private readonly store: Store) {
    this.follower = new StoreFollower(store, PREFIX, {
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

  /** The namespace's state, or undefined when it does not exist. */
  async state(name: string): Promise<NamespaceState | undefined> {
    const cached = this.states.get(name);
    if (cached !== undefined) return cached;
    const kv = await this.store.get(`${PREFIX}${name}`);
    return kv ? stateOf(kv.value) : undefined;
  }

  private async load(): Promise<number> {
    const page = await this.store.list(PREFIX);
    this.states.clear();
    for (const item of page.items) this.states.set(item.key.slice(PREFIX.length), stateOf(item.value));
    return page.revision;
  }

  private apply(event: WatchEvent): void {
    const name = event.key.slice(PREFIX.length);
    if (event.type === 'delete') this.states.delete(name);
    else this.states.set(name, stateOf(event.value!));
  }
}

/** Only a namespace being deleted has a deletionTimestamp: no need to parse the rest. */
function stateOf(value: string): NamespaceState {
  return value.includes('"deletionTimestamp"') && /"deletionTimestamp":"[^"]/.test(value)
    ? 'Terminating'
    : 'Active';
}
