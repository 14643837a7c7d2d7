/**
 * The etcd v3 implementation of {@link Store}, mapped as kube-apiserver's storage/etcd3/store.go
 * maps its storage interface: the keys as they are (`/registry/...`), etcd's revisions (a
 * key's mod_revision is its resourceVersion), create as a Txn comparing create_revision with
 * 0, update and delete as a Txn comparing mod_revision, TTLs as leases (reused like the
 * apiserver's lease manager), and compaction of all but the last `historyRevisions`
 * revisions, as the apiserver's compactor does on a timer.
 */
import { readFileSync } from 'node:fs';
import { Etcd3, type IKeyValue, type IOptions, type IRangeRequest, type IResponseHeader } from 'etcd3';
import { listPage, listPosition, pageLimit } from '../continue-token.js';
import {
  CompactedError,
  ConflictError,
  DatastoreUnavailableError,
  FutureRevisionError,
  InvalidContinueError,
  KeyExistsError,
  KeyNotFoundError,
  driverMessage as messageOf,
  StoreClosedError,
  StoreError,
  StoreOpenError,
} from '../errors.js';
import { prefixEnd } from '../keys.js';
import type {
  DeleteOptions,
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  PutOptions,
  ReadOptions,
  Store,
  StoreStats,
  UpdateOptions,
  UpdateResult,
  Watch,
  WatchOptions,
} from '../types.js';
import { EtcdWatch } from './etcd-watch.js';
import { LeaseManager } from './lease-manager.js';

export interface EtcdTls {
  /** CA bundle that signs the servers' certificates (PEM file). */
  readonly caFile: string;
  /** Client certificate and key (PEM files), when the server asks for one. */
  readonly certFile?: string;
  readonly keyFile?: string;
}

export interface EtcdStoreOptions {
  /** Client URLs of the members: http://host:port, or https://host:port with `tls`. */
  readonly endpoints: readonly string[];
  readonly tls?: EtcdTls;
  /** How many revisions of history stay readable and watchable. Default 1000. */
  readonly historyRevisions?: number;
  /** Events a watcher may have waiting before its etcd watch is dropped. Default 10,000. */
  readonly watchBufferLimit?: number;
  /** How often compaction runs. Default 60,000 ms. */
  readonly maintenanceIntervalMs?: number;
  /** Give up connecting at open, and any request, after this long. Default 10,000 ms. */
  readonly connectTimeoutMs?: number;
}

/** The whole keyspace: a range end of one zero byte means "every key from the start". */
const ALL_KEYS_END = Buffer.from([0]);

export class EtcdStore implements Store {
  private revision: number;
  private compacted: number;
  private closed = false;
  private readonly watches = new Set<EtcdWatch>();
  /** The last write issued per key: writes to one key reach etcd in the order they were made. */
  private readonly keyTails = new Map<string, Promise<unknown>>();
  private readonly leases: LeaseManager;
  private readonly timer: NodeJS.Timeout;
  private maintenanceRound: Promise<void> | undefined;
  private readonly historyRevisions: number;
  private readonly watchBufferLimit: number;

  /** Connects and reads the current and compacted revisions. */
  static async open(options: EtcdStoreOptions): Promise<EtcdStore> {
    const where = options.endpoints.join(',');
    const timeout = options.connectTimeoutMs ?? 10_000;
    let client: Etcd3 | undefined;
    try {
      client = new Etcd3(clientOptions(options, timeout));
      const header = await rangeHeader(client, timeout);
      const revision = Number(header.revision);
      const compacted = await findCompacted(client, revision);
      return new EtcdStore(client, options, revision, compacted);
    } catch (error) {
      client?.close();
      throw new StoreOpenError(`cannot open the etcd datastore ${where}: ${messageOf(error)}`);
    }
  }

  private constructor(
    private readonly client: Etcd3,
    options: EtcdStoreOptions,
    revision: number,
    compacted: number,
  ) {
    this.revision = revision;
    this.compacted = compacted;
    this.historyRevisions = options.historyRevisions ?? 1000;
    this.watchBufferLimit = options.watchBufferLimit ?? 10_000;
    this.leases = new LeaseManager(client);
    this.timer = setInterval(() => {
      this.maintain().catch(() => {});
    }, options.maintenanceIntervalMs ?? 60_000);
    this.timer.unref();
  }

  currentRevision(): number {
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  // ---- reads ---------------------------------------------------------------------------

  async get(key: string, options: ReadOptions = {}): Promise<KeyValue | undefined> {
    this.assertOpen();
    const response = await this.range({ key: Buffer.from(key) }, options.revision);
    const kv = response.kvs[0];
    return kv && toKeyValue(kv);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    const position = listPosition(prefix, options);
    if (position.revision !== undefined && position.revision < 0) {
      throw new InvalidContinueError('continue key is not valid: negative revision');
    }
    const limit = pageLimit(options.limit);
    const response = await this.range(
      {
        key: Buffer.from(position.start),
        range_end: rangeEnd(prefix),
        limit: limit === undefined ? 0 : limit + 1,
      },
      position.revision,
    );
    // A Range's header carries the current revision, not the one a past read was served at.
    const revision = position.revision || Number(response.header.revision);
    return listPage(response.kvs.map(toKeyValue), prefix, revision, limit);
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    const response = await this.call(() =>
      this.client.kv.range({ key: Buffer.from(prefix), range_end: rangeEnd(prefix), count_only: true }),
    );
    return Number(response.count);
  }

  // ---- writes --------------------------------------------------------------------------

  create(key: string, value: string, options: PutOptions = {}): Promise<KeyValue> {
    return this.inKeyOrder(key, () => this.createNow(key, value, options));
  }

  update(key: string, value: string, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.inKeyOrder(key, () => this.updateNow(key, value, options));
  }

  delete(key: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    return this.inKeyOrder(key, () => this.deleteNow(key, options));
  }

  private async createNow(key: string, value: string, options: PutOptions): Promise<KeyValue> {
    this.assertOpen();
    const lease = await this.lease(options);
    const k = Buffer.from(key);
    const response = await this.call(() =>
      this.client.kv.txn({
        compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: k, value: Buffer.from(value), lease } }],
      }),
    );
    if (!response.succeeded) throw new KeyExistsError(key);
    const revision = Number(response.header.revision);
    return { key, value, createRevision: revision, modRevision: revision };
  }

  private async updateNow(key: string, value: string, options: UpdateOptions): Promise<UpdateResult> {
    this.assertOpen();
    const lease = await this.lease(options);
    const k = Buffer.from(key);
    const response = await this.call(() =>
      this.client.kv.txn({
        compare: this.preconditions(k, options.expectedRevision),
        success: [{ request_put: { key: k, value: Buffer.from(value), lease, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (!response.succeeded)
      throw this.preconditionFailure(key, options.expectedRevision, response.responses);
    const previous = toKeyValue(response.responses[0]!.response_put.prev_kv!);
    const current = {
      key,
      value,
      createRevision: previous.createRevision,
      modRevision: Number(response.header.revision),
    };
    return { current, previous };
  }

  private async deleteNow(key: string, options: DeleteOptions): Promise<DeleteResult> {
    this.assertOpen();
    const k = Buffer.from(key);
    const response = await this.call(() =>
      this.client.kv.txn({
        compare: this.preconditions(k, options.expectedRevision),
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (!response.succeeded)
      throw this.preconditionFailure(key, options.expectedRevision, response.responses);
    const previous = toKeyValue(response.responses[0]!.response_delete_range.prev_kvs[0]!);
    return { revision: Number(response.header.revision), previous };
  }

  // ---- watch ---------------------------------------------------------------------------

  watch(key: string, options: WatchOptions): Watch {
    this.assertOpen();
    if (options.afterRevision < this.compacted)
      throw new CompactedError(options.afterRevision, this.compacted);
    const end = options.prefix ? rangeEnd(key) : undefined;
    const watch = new EtcdWatch(this.client, Buffer.from(key), end, options.afterRevision, {
      bufferLimit: this.watchBufferLimit,
      compactedRevision: () => this.compacted,
      cancelCause: (last, reason) => this.cancelCause(last, reason),
      closed: (closed) => this.watches.delete(closed),
    });
    this.watches.add(watch);
    return watch;
  }

  // ---- maintenance and lifecycle ---------------------------------------------------------

  /** Compacts all but the last `historyRevisions` revisions; one round at a time. */
  maintain(): Promise<void> {
    if (this.closed) return Promise.reject(new StoreClosedError());
    const round = (this.maintenanceRound ?? Promise.resolve())
      .catch(() => {})
      .then(async () => {
        if (this.closed) return;
        await this.refreshRevision();
        const target = this.revision - this.historyRevisions;
        if (target <= this.compacted) return;
        try {
          await this.call(() => this.client.kv.compact({ revision: target, physical: false }));
        } catch (error) {
          // Another apiserver (or etcd's own auto-compaction) compacted further already.
          if (!(error instanceof CompactedError)) throw error;
          this.compacted = Math.max(this.compacted, await findCompacted(this.client, this.revision));
          return;
        }
        this.compacted = Math.max(this.compacted, target);
      });
    this.maintenanceRound = round;
    return round;
  }

  stats(): StoreStats {
    // The server manages its own files and key count; they are not this process's to report.
    return {
      revision: this.revision,
      compactedRevision: this.compacted,
      keys: -1,
      databaseBytes: 0,
      walBytes: 0,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const watch of [...this.watches]) watch.storeClosed();
    this.watches.clear();
    await this.maintenanceRound?.catch(() => {});
    this.client.close();
  }

  // ---- internals -------------------------------------------------------------------------

  /**
   * Runs a write after the previous write to the same key has settled: etcd serves concurrent
   * requests in any order, and a caller that issues create then update expects that order.
   */
  private inKeyOrder<R>(key: string, write: () => Promise<R>): Promise<R> {
    const previous = this.keyTails.get(key);
    const result = previous ? previous.then(write, write) : write();
    const tail = result.catch(() => {});
    this.keyTails.set(key, tail);
    tail.then(() => {
      if (this.keyTails.get(key) === tail) this.keyTails.delete(key);
    });
    return result;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError();
  }

  /** A Range at `revision` (undefined or 0: the current one), checked against compaction. */
  private async range(request: IRangeRequest, revision: number | undefined) {
    if (revision !== undefined && revision !== 0) {
      if (revision < this.compacted) throw new CompactedError(revision, this.compacted);
    }
    try {
      return await this.call(() =>
        this.client.kv.range({ ...request, revision: revision !== undefined && revision > 0 ? revision : 0 }),
      );
    } catch (error) {
      if (error instanceof FutureRevisionError) throw new FutureRevisionError(revision!, this.revision);
      if (error instanceof CompactedError) {
        this.compacted = Math.max(this.compacted, await findCompacted(this.client, this.revision));
        throw new CompactedError(revision!, this.compacted);
      }
      throw error;
    }
  }

  /** One RPC: its header's revision becomes the current one; etcd's errors become the store's. */
  private async call<R extends { header: IResponseHeader }>(rpc: () => Promise<R>): Promise<R> {
    let response: R;
    try {
      response = await rpc();
    } catch (error) {
      throw storeError(error);
    }
    const revision = Number(response.header.revision);
    if (revision > this.revision) this.revision = revision;
    return response;
  }

  private async refreshRevision(): Promise<void> {
    await this.call(() => this.client.kv.range({ key: ALL_KEYS_END, count_only: true }));
  }

  private async lease(options: PutOptions): Promise<string | undefined> {
    if (options.ttlSeconds === undefined || options.ttlSeconds <= 0) return undefined;
    try {
      return await this.leases.leaseFor(options.ttlSeconds);
    } catch (error) {
      throw storeError(error);
    }
  }

  /** The key exists (create_revision > 0) and, when asked, its mod_revision matches. */
  private preconditions(key: Buffer, expectedRevision: number | undefined) {
    const exists = { key, target: 'Create' as const, result: 'Greater' as const, create_revision: 0 };
    if (expectedRevision === undefined) return [exists];
    return [
      exists,
      { key, target: 'Mod' as const, result: 'Equal' as const, mod_revision: expectedRevision },
    ];
  }

  private preconditionFailure(
    key: string,
    expectedRevision: number | undefined,
    responses: { response_range: { kvs: IKeyValue[] } }[],
  ): StoreError {
    const current = responses[0]?.response_range.kvs[0];
    if (!current) return new KeyNotFoundError(key);
    return new ConflictError(key, expectedRevision ?? 0, Number(current.mod_revision));
  }

  /** etcd canceled a watch: compaction past its position, or something else. */
  private async cancelCause(lastRevision: number, reason: string): Promise<Error> {
    if (this.closed) return new StoreClosedError();
    const compacted = await findCompacted(this.client, this.revision).catch(() => this.compacted);
    this.compacted = Math.max(this.compacted, compacted);
    if (lastRevision + 1 < this.compacted) return new CompactedError(lastRevision, this.compacted);
    return new StoreError(`etcd canceled the watch: ${reason}`);
  }
}

function clientOptions(options: EtcdStoreOptions, timeoutMs: number): IOptions {
  const tls = options.tls;
  return {
    hosts: [...options.endpoints],
    dialTimeout: timeoutMs,
    credentials: tls && {
      rootCertificate: readFileSync(tls.caFile),
      certChain: tls.certFile ? readFileSync(tls.certFile) : undefined,
      privateKey: tls.keyFile ? readFileSync(tls.keyFile) : undefined,
    },
    // A list answers in one message however large (kube-apiserver lifts gRPC's 4 MiB limit too).
    grpcOptions: { 'grpc.max_receive_message_length': -1 },
    // Unary calls get a deadline (an unreachable server fails them); the watch stream does not.
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeoutMs }),
  };
}

/** The first Range of a connection: also proves the server answers. */
async function rangeHeader(client: Etcd3, timeoutMs: number): Promise<IResponseHeader> {
  const response = await client.kv.range(
    { key: ALL_KEYS_END, count_only: true },
    { deadline: Date.now() + timeoutMs },
  );
  return response.header;
}

/**
 * etcd does not report its compacted revision; reads below it fail. A binary search for the
 * oldest readable revision finds it in about log2(revision) Range calls.
 */
async function findCompacted(client: Etcd3, current: number): Promise<number> {
  const readable = async (revision: number) => {
    try {
      await client.kv.range({ key: ALL_KEYS_END, count_only: true, revision });
      return true;
    } catch (error) {
      if (storeError(error) instanceof CompactedError) return false;
      throw storeError(error);
    }
  };
  if (current <= 1 || (await readable(1))) return 0;
  let low = 1; // not readable
  let high = current; // readable
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await readable(middle)) high = middle;
    else low = middle;
  }
  return high;
}

/** [start, end) of every key under `prefix`; the empty prefix is the whole keyspace. */
function rangeEnd(prefix: string): Buffer {
  return prefix === '' ? ALL_KEYS_END : Buffer.from(prefixEnd(prefix));
}

function toKeyValue(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString(),
    value: kv.value.toString(),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

/**
 * etcd's answers (by their gRPC message) to the store's errors: compacted and future
 * revisions keep their meaning; a server that does not answer is unavailable (503).
 */
function storeError(error: unknown): unknown {
  if (error instanceof StoreError) return error;
  const message = messageOf(error);
  if (message.includes('required revision has been compacted')) return new CompactedError(0, 0);
  if (message.includes('required revision is a future revision')) return new FutureRevisionError(0, 0);
  const name = (error as { name?: unknown }).name;
  if (
    /Unavailable|DeadlineExceeded|Cancelled|ClientClosed|BrokenCircuit/i.test(String(name)) ||
    /unavailable|deadline|no connection|ECONNREFUSED|circuit|leader changed|timed out/i.test(message)
  ) {
    return new DatastoreUnavailableError(message);
  }
  return error;
}
