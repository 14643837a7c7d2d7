// An in-memory ResourceClient for the client runtime's tests: a revisioned store with a history,
// list pagination, watches that can be ended, expired (410) or compacted on demand.
import { parseLabelSelector } from '../../../src/api/selectors/index.js';
import type { Status } from '../../../src/api/types/meta-v1.generated.js';
import type {
  ApiObject,
  Client,
  DeleteOptions,
  ListOptions,
  ObjectList,
  PatchType,
  ResourceClient,
  ResourceRef,
  WatchEvent,
  WatchOptions,
} from '../../../src/client/types.js';

export class FakeApiError extends Error {
  readonly status: Status;
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
  }
}

export function goneError(): FakeApiError {
  return new FakeApiError(410, 'Expired', 'too old resource version');
}

type Stored<T> = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; revision: number; object: T };

interface ActiveWatch<T extends ApiObject> {
  readonly push: (event: WatchEvent<T> | { end: 'close' } | { end: 'throw'; error: unknown }) => void;
  readonly matches: (object: T) => boolean;
  readonly namespace: string;
}

const clone = <V>(value: V): V => structuredClone(value);

export class FakeResourceClient<T extends ApiObject> implements ResourceClient<T> {
  private readonly objects = new Map<string, T>();
  private readonly history: Stored<T>[] = [];
  private revision = 100;
  private compactedThrough = 0;
  private readonly watches = new Set<ActiveWatch<T>>();
  readonly listCalls: ListOptions[] = [];
  readonly watchCalls: WatchOptions[] = [];
  /** Errors the next calls of a verb throw, in order. */
  readonly failures: Partial<Record<'list' | 'watch' | 'create' | 'update' | 'patch' | 'get', unknown[]>> =
    {};
  readonly patches: { namespace: string; name: string; type: PatchType; patch: unknown }[] = [];

  constructor(readonly ref: ResourceRef) {}

  // --- test controls ---

  /** Writes an object as a client would; returns the stored copy. */
  put(object: T): T {
    const key = this.keyOf(object);
    const type = this.objects.has(key) ? 'MODIFIED' : 'ADDED';
    return this.store(type, object);
  }

  remove(namespace: string, name: string): void {
    const key = namespace ? `${namespace}/${name}` : name;
    const object = this.objects.get(key);
    if (object === undefined) throw new FakeApiError(404, 'NotFound', `"${name}" not found`);
    this.objects.delete(key);
    this.record('DELETED', object);
  }

  /** While true, open watches get no events (a partitioned connection). */
  deaf = false;

  /** Forgets the history so far: watches and lists at older versions answer 410. */
  compact(): void {
    this.compactedThrough = this.revision;
  }

  /** Ends every open watch as a server timeout would. */
  closeWatches(): void {
    for (const watch of this.watches) watch.push({ end: 'close' });
  }

  /** Ends every open watch with 410: thrown, or as an ERROR event. */
  expireWatches(how: 'throw' | 'event'): void {
    for (const watch of this.watches) {
      if (how === 'throw') watch.push({ end: 'throw', error: goneError() });
      else {
        watch.push({ type: 'ERROR', object: goneError().status });
        watch.push({ end: 'close' });
      }
    }
  }

  /** Sends open watches a BOOKMARK at the current revision (after writes they did not see). */
  bookmark(): void {
    const object = { metadata: { resourceVersion: String(this.revision) } } as T;
    for (const watch of this.watches) watch.push({ type: 'BOOKMARK', object });
  }

  get openWatches(): number {
    return this.watches.size;
  }

  get currentRevision(): number {
    return this.revision;
  }

  stored(namespace: string, name: string): T | undefined {
    return this.objects.get(namespace ? `${namespace}/${name}` : name);
  }

  // --- ResourceClient ---

  async get(namespace: string, name: string): Promise<T> {
    this.maybeFail('get');
    const object = this.stored(namespace, name);
    if (object === undefined)
      throw new FakeApiError(404, 'NotFound', `${this.ref.resource} "${name}" not found`);
    return clone(object);
  }

  async list(namespace: string, options: ListOptions = {}): Promise<ObjectList<T>> {
    this.listCalls.push(options);
    this.maybeFail('list');
    const rv = options.resourceVersion;
    if (rv && rv !== '0' && Number(rv) < this.compactedThrough) throw goneError();
    const selector = parseLabelSelector(options.labelSelector ?? '');
    const all = [...this.objects.entries()]
      .filter(([, object]) => this.inNamespace(object, namespace))
      .filter(([, object]) => selector.matches(object.metadata?.labels ?? {}))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    let start = 0;
    let listRevision = this.revision;
    if (options.continue) {
      const token = JSON.parse(options.continue) as { start: number; revision: number };
      if (token.revision < this.compactedThrough) throw goneError();
      start = token.start;
      listRevision = token.revision;
    }
    const end = options.limit ? Math.min(all.length, start + options.limit) : all.length;
    const items = all.slice(start, end).map(([, object]) => clone(object));
    const more = end < all.length;
    return {
      apiVersion: 'v1',
      kind: `${this.ref.kind}List`,
      metadata: {
        resourceVersion: String(listRevision),
        ...(more ? { continue: JSON.stringify({ start: end, revision: listRevision }) } : {}),
      },
      items,
    };
  }

  watch(namespace: string, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    this.watchCalls.push(options);
    const failure = this.takeFailure('watch');
    const from = Number(options.resourceVersion ?? this.revision);
    const selector = parseLabelSelector(options.labelSelector ?? '');
    const matches = (object: T) =>
      this.inNamespace(object, namespace) && selector.matches(object.metadata?.labels ?? {});
    const watches = this.watches;
    const compacted = from < this.compactedThrough;
    const backlog = this.history.filter((event) => event.revision > from && matches(event.object));
    return {
      [Symbol.asyncIterator]: async function* (this: void) {
        if (failure !== undefined) throw failure;
        if (compacted) throw goneError();
        type Item = WatchEvent<T> | { end: 'close' } | { end: 'throw'; error: unknown };
        const pending: Item[] = backlog.map((event) => ({ type: event.type, object: clone(event.object) }));
        let wake: (() => void) | undefined;
        const watch: ActiveWatch<T> = {
          push: (item) => {
            pending.push(item);
            wake?.();
          },
          matches,
          namespace,
        };
        const onAbort = () => wake?.();
        options.signal?.addEventListener('abort', onAbort);
        watches.add(watch);
        try {
          for (;;) {
            if (options.signal?.aborted) return;
            const item = pending.shift();
            if (item === undefined) {
              await new Promise<void>((resolve) => {
                wake = resolve;
              });
              wake = undefined;
              continue;
            }
            if ('end' in item) {
              if (item.end === 'throw') throw item.error;
              return;
            }
            yield item;
          }
        } finally {
          watches.delete(watch);
          options.signal?.removeEventListener('abort', onAbort);
        }
      },
    };
  }

  async create(object: T): Promise<T> {
    this.maybeFail('create');
    if (this.objects.has(this.keyOf(object))) {
      throw new FakeApiError(
        409,
        'AlreadyExists',
        `${this.ref.resource} "${object.metadata?.name}" already exists`,
      );
    }
    return clone(this.store('ADDED', object));
  }

  async update(object: T): Promise<T> {
    this.maybeFail('update');
    const current = this.objects.get(this.keyOf(object));
    if (current === undefined)
      throw new FakeApiError(404, 'NotFound', `"${object.metadata?.name}" not found`);
    const rv = object.metadata?.resourceVersion;
    if (rv && rv !== current.metadata?.resourceVersion) {
      throw new FakeApiError(
        409,
        'Conflict',
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    return clone(this.store('MODIFIED', object));
  }

  updateStatus(object: T): Promise<T> {
    return this.update(object);
  }

  async patch(namespace: string, name: string, type: PatchType, patch: unknown): Promise<T> {
    this.patches.push({ namespace, name, type, patch });
    this.maybeFail('patch');
    const current = this.stored(namespace, name);
    if (current === undefined) throw new FakeApiError(404, 'NotFound', `"${name}" not found`);
    const merged = { ...clone(current), ...(patch as object) } as T;
    return clone(this.store('MODIFIED', merged));
  }

  async delete(namespace: string, name: string, _options?: DeleteOptions): Promise<T | Status> {
    const object = await this.get(namespace, name);
    this.remove(namespace, name);
    return object;
  }

  async deleteCollection(): Promise<void> {
    throw new Error('not implemented');
  }

  async createSubresource<R extends ApiObject>(): Promise<R> {
    throw new Error('not implemented');
  }

  async getSubresource<R extends ApiObject>(): Promise<R> {
    throw new Error('not implemented');
  }

  // --- internals ---

  private keyOf(object: ApiObject): string {
    const namespace = object.metadata?.namespace;
    const name = object.metadata?.name ?? '';
    return namespace ? `${namespace}/${name}` : name;
  }

  private inNamespace(object: T, namespace: string): boolean {
    return namespace === '' || object.metadata?.namespace === namespace;
  }

  private store(type: 'ADDED' | 'MODIFIED', object: T): T {
    const stored = clone(object);
    this.revision++;
    stored.metadata = { ...stored.metadata, resourceVersion: String(this.revision) };
    this.objects.set(this.keyOf(stored), stored);
    this.history.push({ type, revision: this.revision, object: stored });
    this.broadcast(type, stored);
    return stored;
  }

  private record(type: 'DELETED', object: T): void {
    this.revision++;
    const final = {
      ...clone(object),
      metadata: { ...object.metadata, resourceVersion: String(this.revision) },
    };
    this.history.push({ type, revision: this.revision, object: final });
    this.broadcast(type, final);
  }

  private broadcast(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void {
    if (this.deaf) return;
    for (const watch of this.watches) {
      if (watch.matches(object)) watch.push({ type, object: clone(object) });
    }
  }

  private takeFailure(verb: keyof FakeResourceClient<T>['failures']): unknown {
    return this.failures[verb]?.shift();
  }

  private maybeFail(verb: keyof FakeResourceClient<T>['failures']): void {
    const failure = this.takeFailure(verb);
    if (failure !== undefined) throw failure;
  }
}

/** A Client handing out one FakeResourceClient per resource. */
export class FakeClient implements Client {
  readonly identity = 'test';
  private readonly resources = new Map<string, FakeResourceClient<ApiObject>>();

  resource<T extends ApiObject>(ref: ResourceRef): FakeResourceClient<T> {
    const key = `${ref.group}/${ref.version}/${ref.resource}`;
    let client = this.resources.get(key);
    if (client === undefined) {
      client = new FakeResourceClient<ApiObject>(ref);
      this.resources.set(key, client);
    }
    return client as unknown as FakeResourceClient<T>;
  }

  async close(): Promise<void> {}
}

/** Resolves once `condition` holds, polling on the event loop (fails after `ms`). */
export async function eventually(condition: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
