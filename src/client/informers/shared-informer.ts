// A shared informer (client-go tools/cache/shared_informer.go): one reflector filling one
// indexed cache, and any number of event handlers told about every change. Handlers run
// synchronously after the cache has been updated, so a handler sees the cache with the change in
// it; they should be quick (enqueue a key) and must not throw.
import type { ApiObject, ResourceClient } from '../types.js';
import { Indexer, type Indexers } from './indexer.js';
import { Lister } from './lister.js';
import { Reflector, type ReflectorOptions, type ReflectorStore } from './reflector.js';
import { DeletedFinalStateUnknown } from './tombstone.js';

export interface EventHandler<T extends ApiObject> {
  /** A new object; `isInInitialList` when it came with the informer's first list. */
  onAdd?(object: T, isInInitialList: boolean): void;
  /** A changed object; also called with the same object twice on resync and on relist. */
  onUpdate?(oldObject: T, newObject: T): void;
  /** A deleted object, or a tombstone when the deletion happened while not watching. */
  onDelete?(object: T | DeletedFinalStateUnknown<T>): void;
}

/** Something that can say whether it has seen the initial list. */
export interface SyncSource {
  hasSynced(): boolean;
  /** Resolves once synced. */
  whenSynced(): Promise<void>;
}

export interface HandlerRegistration extends SyncSource {
  /** Stops notifying the handler. */
  remove(): void;
}

export interface HandlerOptions {
  /** Re-deliver every cached object as an update this often; 0 never (default: the informer's). */
  readonly resyncPeriodMs?: number;
}

export interface SharedInformerOptions<T extends ApiObject> extends ReflectorOptions {
  /** The resync period of handlers that do not set their own; 0 (default) for none. */
  readonly resyncPeriodMs?: number;
  readonly indexers?: Indexers<T>;
}

/** client-go refuses resync periods below one second. */
const MIN_RESYNC_MS = 1000;

class Listener<T extends ApiObject> {
  /** Set once the handler has been told about the objects cached when it registered. */
  active = false;
  resyncTimer?: NodeJS.Timeout;
  readonly activated: Promise<void>;
  private resolveActivated!: () => void;

  constructor(
    readonly handler: EventHandler<T>,
    readonly resyncPeriodMs: number,
  ) {
    this.activated = new Promise((resolve) => {
      this.resolveActivated = resolve;
    });
  }

  activate(): void {
    this.active = true;
    this.resolveActivated();
  }
}

export class SharedInformer<T extends ApiObject> implements ReflectorStore<T>, SyncSource {
  readonly indexer: Indexer<T>;
  readonly lister: Lister<T>;
  private readonly reflector: Reflector<T>;
  private readonly listeners = new Set<Listener<T>>();
  private readonly log: (message: string) => void;
  private synced = false;
  private readonly syncWaiters: (() => void)[] = [];
  private state: 'new' | 'running' | 'stopped' = 'new';

  constructor(
    readonly client: ResourceClient<T>,
    private readonly options: SharedInformerOptions<T> = {},
  ) {
    this.indexer = new Indexer<T>(options.indexers);
    this.lister = new Lister(this.indexer);
    this.log = options.log ?? ((message) => console.error(message));
    this.reflector = new Reflector(client, this, options);
  }

  /**
   * Adds a handler. Once the informer is running, it first receives an add for every cached
   * object (`isInInitialList` true), then every change.
   */
  addEventHandler(handler: EventHandler<T>, options: HandlerOptions = {}): HandlerRegistration {
    const period = options.resyncPeriodMs ?? this.options.resyncPeriodMs ?? 0;
    const listener = new Listener(handler, period > 0 ? Math.max(period, MIN_RESYNC_MS) : 0);
    this.listeners.add(listener);
    if (this.state === 'running') {
      // A microtask later, so the caller finishes its set-up before the first callback; the
      // snapshot and the switch to live events happen together, so nothing is missed or doubled.
      queueMicrotask(() => {
        if (!this.listeners.has(listener)) return;
        for (const object of this.indexer.list()) this.call(listener, 'onAdd', object, true);
        listener.activate();
        this.startResync(listener);
      });
    } else {
      listener.activate();
    }
    return {
      remove: () => {
        this.listeners.delete(listener);
        clearInterval(listener.resyncTimer);
        listener.activate(); // nobody waits for a removed handler
      },
      hasSynced: () => this.synced && listener.active,
      whenSynced: async () => {
        await this.whenSynced();
        await listener.activated;
      },
    };
  }

  /** More indexes on the cache (indexing what is already cached). */
  addIndexers(indexers: Indexers<T>): void {
    this.indexer.addIndexers(indexers);
  }

  /** Lists, watches and notifies until the signal aborts. An informer runs once. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.state !== 'new') throw new Error('an informer can only be run once');
    this.state = 'running';
    for (const listener of this.listeners) this.startResync(listener);
    try {
      await this.reflector.run(signal);
    } finally {
      this.state = 'stopped';
      for (const listener of this.listeners) clearInterval(listener.resyncTimer);
    }
  }

  hasSynced(): boolean {
    return this.synced;
  }

  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get isRunning(): boolean {
    return this.state === 'running';
  }

  /** The resourceVersion the cache reflects. */
  get lastSyncResourceVersion(): string {
    return this.reflector.resourceVersion;
  }

  // ReflectorStore: the cache is updated first, then the handlers are told.

  replace(objects: readonly T[], _resourceVersion: string): void {
    const initial = !this.synced;
    const listed = new Set<string>();
    for (const object of objects) {
      const key = this.indexer.keyFunc(object);
      listed.add(key);
      const old = this.indexer.getByKey(key);
      this.indexer.add(object);
      if (old === undefined) this.notify('onAdd', object, initial);
      else this.notify('onUpdate', old, object);
    }
    for (const key of this.indexer.listKeys()) {
      if (listed.has(key)) continue;
      const last = this.indexer.getByKey(key)!;
      this.indexer.deleteKey(key);
      this.notify('onDelete', new DeletedFinalStateUnknown(key, last));
    }
    if (initial) {
      this.synced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  add(object: T): void {
    const old = this.indexer.get(object);
    this.indexer.add(object);
    if (old === undefined) this.notify('onAdd', object, false);
    else this.notify('onUpdate', old, object);
  }

  update(object: T): void {
    this.add(object);
  }

  delete(object: T): void {
    this.indexer.delete(object);
    this.notify('onDelete', object);
  }

  private notify<K extends keyof EventHandler<T>>(
    method: K,
    ...args: Parameters<NonNullable<EventHandler<T>[K]>>
  ): void {
    for (const listener of this.listeners) {
      if (listener.active) this.call(listener, method, ...args);
    }
  }

  private call<K extends keyof EventHandler<T>>(
    listener: Listener<T>,
    method: K,
    ...args: Parameters<NonNullable<EventHandler<T>[K]>>
  ): void {
    const callback = listener.handler[method] as ((...a: typeof args) => void) | undefined;
    if (callback === undefined) return;
    try {
      callback.apply(listener.handler, args);
    } catch (error) {
      this.log(`informer ${this.client.ref.resource}: event handler ${method} failed: ${String(error)}`);
    }
  }

  private startResync(listener: Listener<T>): void {
    if (listener.resyncPeriodMs === 0 || listener.resyncTimer !== undefined || !listener.active) return;
    listener.resyncTimer = setInterval(() => {
      if (!this.synced) return;
      for (const object of this.indexer.list()) this.call(listener, 'onUpdate', object, object);
    }, listener.resyncPeriodMs);
    listener.resyncTimer.unref();
  }
}
