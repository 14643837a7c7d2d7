// The client's contract: what controllers, the scheduler and the agent program against. One
// implementation serves both transports (HTTPS to a remote apiserver, in-process loopback).
import type { ResourceInfo } from '../api/resources/types.js';
import type { ListMeta, ObjectMeta, Status } from '../api/types/meta-v1.generated.js';

/** Enough of a resource's facts to address it: one row of the built-in resource table, or a CRD's. */
export type ResourceRef = Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>;

/** Any object the API serves: generated types (Pod, Deployment ...) satisfy this. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface ObjectList<T extends ApiObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One watch event; for ERROR the object is a Status. */
export type WatchEvent<T extends ApiObject> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; readonly object: T }
  | { readonly type: 'ERROR'; readonly object: Status };

export interface ListOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface WatchOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly resourceVersion?: string;
  readonly allowWatchBookmarks?: boolean;
  readonly timeoutSeconds?: number;
  /** Ends the watch (the iterator then finishes without error). */
  readonly signal?: AbortSignal;
}

export interface WriteOptions {
  readonly dryRun?: boolean;
  readonly fieldManager?: string;
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

export interface UpdateOptions extends WriteOptions {
  /** PUT to a subresource instead (`finalize` for namespaces); `updateStatus` is the `status` case. */
  readonly subresource?: string;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface PatchOptions extends WriteOptions {
  /** Server-side apply: take ownership of conflicting fields. */
  readonly force?: boolean;
  /** `status`, `scale` ... */
  readonly subresource?: string;
}

export interface DeleteOptions {
  readonly gracePeriodSeconds?: number;
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly dryRun?: boolean;
}

/**
 * The verbs of one resource. `namespace` is `''` for cluster-scoped resources (and for lists
 * and watches across all namespaces).
 */
export interface ResourceClient<T extends ApiObject> {
  readonly ref: ResourceRef;
  get(namespace: string, name: string): Promise<T>;
  list(namespace: string, options?: ListOptions): Promise<ObjectList<T>>;
  /** Events until the signal aborts, the server ends the watch or an error (thrown as ApiError). */
  watch(namespace: string, options?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  create(object: T, options?: WriteOptions): Promise<T>;
  update(object: T, options?: UpdateOptions): Promise<T>;
  updateStatus(object: T, options?: WriteOptions): Promise<T>;
  patch(namespace: string, name: string, type: PatchType, patch: unknown, options?: PatchOptions): Promise<T>;
  /** The object as the server returned it (with deletionTimestamp while finalizers remain), or its Status. */
  delete(namespace: string, name: string, options?: DeleteOptions): Promise<T | Status>;
  deleteCollection(namespace: string, options?: DeleteOptions & ListOptions): Promise<void>;
  /** POST to a subresource: `pods/binding`, `pods/eviction`, `serviceaccounts/token` ... */
  createSubresource<R extends ApiObject>(
    namespace: string,
    name: string,
    subresource: string,
    body: ApiObject,
    options?: WriteOptions,
  ): Promise<R>;
  getSubresource<R extends ApiObject>(namespace: string, name: string, subresource: string): Promise<R>;
}

/** A client for one identity. */
export interface Client {
  /** The user the server sees, for logs (`system:serviceaccount:kube-system:deployment-controller`). */
  readonly identity: string;
  resource<T extends ApiObject>(ref: ResourceRef): ResourceClient<T>;
  /** Closes connections; pending calls fail, watches end. */
  close(): Promise<void>;
}
