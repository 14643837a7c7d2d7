// One informer per (resource, namespace, label selector, field selector) for a whole process, so
// every controller interested in pods shares one list and one watch (client-go's
// SharedInformerFactory).
import { setMaxListeners } from 'node:events';
import type { ApiObject, Client, ResourceRef } from '../types.js';
import type { Indexers } from './indexer.js';
import type { Lister } from './lister.js';
import type { ReflectorOptions } from './reflector.js';
import { SharedInformer } from './shared-informer.js';
import { waitForCacheSync } from './wait-for-sync.js';

export interface InformerOptions<T extends ApiObject> {
  /** `''` (default: the factory's) for all namespaces. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Indexes the caller needs; added to a shared informer that lacks them. */
  readonly indexers?: Indexers<T>;
}

export interface SharedInformerFactoryOptions
  extends Pick<ReflectorOptions, 'backoff' | 'pageSize' | 'minWatchTimeoutSeconds' | 'log' | 'transform'> {
  /** Default resync period of every handler; 0 (default) for none. */
  readonly resyncPeriodMs?: number;
  /** Restrict every informer to one namespace. */
  readonly namespace?: string;
}

interface Entry {
  readonly informer: SharedInformer<ApiObject>;
  running?: Promise<void>;
}

export class SharedInformerFactory {
  private readonly entries = new Map<string, Entry>();
  private readonly abort = new AbortController();

  constructor(
    readonly client: Client,
    private readonly options: SharedInformerFactoryOptions = {},
  ) {
    // Every informer's watch listens for the stop: dozens of listeners are expected.
    setMaxListeners(0, this.abort.signal);
  }

  /** The shared informer of a resource (created on first request, started by `start`). */
  informerFor<T extends ApiObject>(ref: ResourceRef, options: InformerOptions<T> = {}): SharedInformer<T> {
    const namespace = options.namespace ?? this.options.namespace ?? '';
    const { labelSelector = '', fieldSelector = '' } = options;
    const key = [ref.group, ref.version, ref.resource, namespace, labelSelector, fieldSelector].join('|');
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const informer = new SharedInformer<T>(this.client.resource<T>(ref), {
        namespace,
        labelSelector,
        fieldSelector,
        resyncPeriodMs: this.options.resyncPeriodMs,
        backoff: this.options.backoff,
        pageSize: this.options.pageSize,
        minWatchTimeoutSeconds: this.options.minWatchTimeoutSeconds,
        log: this.options.log,
        transform: this.options.transform,
      });
      entry = { informer: informer as unknown as SharedInformer<ApiObject> };
      this.entries.set(key, entry);
    }
    const informer = entry.informer as unknown as SharedInformer<T>;
    const missing = Object.entries(options.indexers ?? {}).filter(
      ([name]) => !informer.indexer.listIndexNames().includes(name),
    );
    if (missing.length > 0) informer.addIndexers(Object.fromEntries(missing));
    return informer;
  }

  listerFor<T extends ApiObject>(ref: ResourceRef, options: InformerOptions<T> = {}): Lister<T> {
    return this.informerFor<T>(ref, options).lister;
  }

  /**
   * Starts every informer not running yet; call again after asking for more informers. They run
   * until `stop`, or until the signal aborts.
   */
  start(signal?: AbortSignal): void {
    if (this.abort.signal.aborted) throw new Error('the informer factory was stopped');
    signal?.addEventListener('abort', () => this.abort.abort(), { once: true });
    for (const entry of this.entries.values()) {
      entry.running ??= entry.informer.run(this.abort.signal);
    }
  }

  /** True once every started informer has synced; false when the signal aborts first. */
  waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const started = [...this.entries.values()].filter((entry) => entry.running !== undefined);
    return waitForCacheSync(
      signal,
      started.map((entry) => entry.informer),
    );
  }

  /** Stops every informer and waits for their watches to end. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all([...this.entries.values()].map((entry) => entry.running));
  }
}
