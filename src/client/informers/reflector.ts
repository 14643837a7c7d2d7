// The reflector (client-go tools/cache/reflector.go): lists a resource, then watches it from the
// list's resourceVersion, feeding both into a store. A watch that ends is resumed from the last
// resourceVersion seen; an expired one (410) or any other failure leads to a relist after a
// jittered backoff.
import { isJsonObject } from '../../api/object.js';
import type { ApiObject, ListOptions, ResourceClient } from '../types.js';
import { apiErrorCode, isExpiredError, WatchStatusError } from './api-errors.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { sleep } from './sleep.js';

/** Where a reflector puts what it sees. */
export interface ReflectorStore<T extends ApiObject> {
  /** The full content, from a (re)list. */
  replace(objects: readonly T[], resourceVersion: string): void;
  add(object: T): void;
  update(object: T): void;
  delete(object: T): void;
}

export interface ReflectorOptions {
  /** `''` (default) for all namespaces or a cluster-scoped resource. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size of lists from the watch cache or of a full relist (client-go's pager: 500). */
  readonly pageSize?: number;
  /** Watches ask the server to end them after a random time between this and twice it (300 s). */
  readonly minWatchTimeoutSeconds?: number;
  readonly backoff?: BackoffOptions;
  /** For log lines (default: the resource's plural and group). */
  readonly name?: string;
  readonly log?: (message: string) => void;
  /** client-go's TransformFunc: applied to every listed or watched object before the store takes it. */
  readonly transform?: (object: ApiObject) => ApiObject;
  readonly now?: () => number;
  readonly random?: () => number;
}

/** A watch that closed at once with nothing in it is a failure, not a normal end. */
const SHORT_WATCH_MS = 1000;

export class Reflector<T extends ApiObject> {
  private lastSyncResourceVersion = '';
  /** The last list or watch was refused as too old: list the most recent state next. */
  private resourceVersionUnavailable = false;
  /** The server paged a list from the cache, so it pages; keep asking it to. */
  private paginatedResult = false;
  private readonly backoff: Backoff;
  private readonly name: string;
  private readonly log: (message: string) => void;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    private readonly client: ResourceClient<T>,
    private readonly store: ReflectorStore<T>,
    private readonly options: ReflectorOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.backoff = new Backoff(options.backoff, this.now, this.random);
    const { resource, group } = client.ref;
    this.name = options.name ?? (group ? `${resource}.${group}` : resource);
    this.log = options.log ?? ((message) => console.error(message));
  }

  /** The resourceVersion of the last list or watch event applied to the store. */
  get resourceVersion(): string {
    return this.lastSyncResourceVersion;
  }

  /** Lists and watches until the signal aborts, backing off between failed rounds. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.listAndWatch(signal);
      } catch (error) {
        if (signal.aborted) break;
        this.log(`reflector ${this.name}: ${errorText(error)}`);
      }
      await sleep(this.backoff.next(), signal);
    }
  }

  /** One round: a list into the store, then watches until one fails. */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    await this.list(signal);
    if (!signal.aborted) await this.watch(signal);
  }

  private async list(signal: AbortSignal): Promise<void> {
    const resourceVersion = this.relistResourceVersion();
    let result: ListResult<T>;
    try {
      result = await this.listPages(resourceVersion);
    } catch (error) {
      if (!isExpiredError(error) && !isTooLargeResourceVersionError(error)) {
        throw new Error(`failed to list ${this.name}: ${errorText(error)}`);
      }
      // The version we hold is gone (or the server has not reached it): take the latest state.
      this.resourceVersionUnavailable = true;
      try {
        result = await this.listPages(this.relistResourceVersion());
      } catch (retryError) {
        throw new Error(`failed to list ${this.name}: ${errorText(retryError)}`);
      }
    }
    if (resourceVersion === '0' && result.paginated) this.paginatedResult = true;
    this.resourceVersionUnavailable = false;
    if (signal.aborted) return;
    const transform = this.options.transform;
    this.store.replace(
      transform ? result.items.map((item) => transform(item) as T) : result.items,
      result.resourceVersion,
    );
    this.lastSyncResourceVersion = result.resourceVersion;
  }

  /**
   * A complete list, page by page. Like client-go, it pages lists served from the cache (`0`)
   * or the latest state (`''`), and lists at a given version in one go unless the server was
   * seen paging.
   */
  private async listPages(resourceVersion: string): Promise<ListResult<T>> {
    const pageSize = this.options.pageSize ?? 500;
    const paged = resourceVersion === '' || resourceVersion === '0' || this.paginatedResult;
    const selectors = this.selectors();
    let options: ListOptions = {
      ...selectors,
      ...(resourceVersion ? { resourceVersion } : {}),
      ...(paged ? { limit: pageSize } : {}),
    };
    const items: T[] = [];
    let pages = 0;
    for (;;) {
      let page: Awaited<ReturnType<ResourceClient<T>['list']>>;
      try {
        page = await this.client.list(this.namespace(), options);
      } catch (error) {
        // An expired continue token: fall back to one full list of the latest state.
        if (options.continue === undefined || !isExpiredError(error)) throw error;
        const full = await this.client.list(this.namespace(), selectors);
        return { items: full.items, resourceVersion: full.metadata.resourceVersion ?? '', paginated: false };
      }
      pages++;
      items.push(...page.items);
      const next = page.metadata.continue;
      if (!next) {
        return { items, resourceVersion: page.metadata.resourceVersion ?? '', paginated: pages > 1 };
      }
      // Continuation pages carry their version in the token; a resourceVersion is refused.
      options = { ...selectors, limit: pageSize, continue: next };
    }
  }

  /** Watches from the last resourceVersion, again and again, until one fails or the signal aborts. */
  private async watch(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const started = this.now();
      let events = 0;
      const minTimeout = this.options.minWatchTimeoutSeconds ?? 300;
      try {
        const stream = this.client.watch(this.namespace(), {
          ...this.selectors(),
          resourceVersion: this.lastSyncResourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: Math.floor(minTimeout + this.random() * minTimeout),
          signal,
        });
        for await (const event of stream) {
          if (signal.aborted) return;
          if (event.type === 'ERROR') throw new WatchStatusError(event.object);
          if (!isJsonObject(event.object)) continue;
          const object = (this.options.transform?.(event.object) ?? event.object) as T;
          if (event.type === 'ADDED') this.store.add(object);
          else if (event.type === 'MODIFIED') this.store.update(object);
          else if (event.type === 'DELETED') this.store.delete(object);
          const resourceVersion = object.metadata?.resourceVersion;
          if (resourceVersion) this.lastSyncResourceVersion = resourceVersion;
          events++;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (isExpiredError(error)) return; // relist from the last version seen
        if (apiErrorCode(error) === 429) {
          await sleep(this.backoff.next(), signal);
          continue;
        }
        this.log(`reflector ${this.name}: watch ended with error: ${errorText(error)}`);
        return;
      }
      if (signal.aborted) return;
      if (events === 0 && this.now() - started < SHORT_WATCH_MS) {
        throw new Error(
          `very short watch: ${this.name}: Unexpected watch close - watch lasted less than a second and no items received`,
        );
      }
    }
  }

  /** `0` (any cached state) at first, the last version seen afterwards, `''` when that is gone. */
  private relistResourceVersion(): string {
    if (this.resourceVersionUnavailable) return '';
    return this.lastSyncResourceVersion === '' ? '0' : this.lastSyncResourceVersion;
  }

  private namespace(): string {
    return this.options.namespace ?? '';
  }

  private selectors(): { labelSelector?: string; fieldSelector?: string } {
    const { labelSelector, fieldSelector } = this.options;
    return {
      ...(labelSelector ? { labelSelector } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
    };
  }
}

interface ListResult<T> {
  readonly items: T[];
  readonly resourceVersion: string;
  readonly paginated: boolean;
}

/** The server has not yet reached the resourceVersion asked for (client-go treats it like 410). */
function isTooLargeResourceVersionError(error: unknown): boolean {
  const status = (error as { status?: { details?: { causes?: { type?: string; message?: string }[] } } })
    ?.status;
  return (status?.details?.causes ?? []).some(
    (cause) => cause.type === 'ResourceVersionTooLarge' || cause.message === 'Too large resource version',
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
