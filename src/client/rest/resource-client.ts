// The verbs of one resource over an HTTP/2 connection: JSON in, JSON out, non-2xx answers
// thrown as ApiError.
import { constants } from 'node:http2';
import type { Status } from '../../api/types/meta-v1.generated.js';
import type {
  ApiObject,
  DeleteOptions,
  ListOptions,
  ObjectList,
  PatchOptions,
  PatchType,
  ResourceClient,
  ResourceRef,
  UpdateOptions,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from '../types.js';
import { errorFromResponse } from './api-error.js';
import { type Http2Connection, readText } from './connection.js';
import {
  deleteBody,
  listQuery,
  patchQuery,
  type QueryValue,
  queryString,
  resourcePath,
  watchQuery,
  writeQuery,
} from './request-url.js';
import { watchEvents } from './watch-events.js';

export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  // JSON is YAML: apply bodies may be either.
  apply: 'application/apply-patch+yaml',
};

const JSON_TYPE = 'application/json';

interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly namespace: string;
  readonly name?: string;
  readonly subresource?: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly contentType?: string;
}

export class RestResourceClient<T extends ApiObject> implements ResourceClient<T> {
  constructor(
    readonly ref: ResourceRef,
    private readonly connection: Http2Connection,
  ) {}

  get(namespace: string, name: string): Promise<T> {
    return this.call({ method: 'GET', namespace, name });
  }

  list(namespace: string, options?: ListOptions): Promise<ObjectList<T>> {
    return this.call({ method: 'GET', namespace, query: listQuery(options) });
  }

  async *watch(namespace: string, options: WatchOptions = {}): AsyncGenerator<WatchEvent<T>> {
    const { signal } = options;
    if (signal?.aborted) return;
    const path = this.path(namespace) + queryString(watchQuery(options));
    const { status, stream } = await this.connection.stream({ method: 'GET', path });
    if (status !== 200) throw errorFromResponse(status, await readText(stream), this.failed('GET'));
    const cancel = () => stream.close(constants.NGHTTP2_CANCEL);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      // The signal may have fired while the response headers were on their way.
      if (!signal?.aborted) yield* watchEvents<T>(stream);
    } finally {
      signal?.removeEventListener('abort', cancel);
      if (!stream.closed) cancel();
    }
  }

  async create(object: T, options?: WriteOptions): Promise<T> {
    return this.call({
      method: 'POST',
      namespace: this.namespaceOf(object),
      query: writeQuery(options),
      body: object,
    });
  }

  update(object: T, options?: UpdateOptions): Promise<T> {
    return this.put(object, options?.subresource ?? '', options);
  }

  updateStatus(object: T, options?: WriteOptions): Promise<T> {
    return this.put(object, 'status', options);
  }

  patch(
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    options?: PatchOptions,
  ): Promise<T> {
    return this.call({
      method: 'PATCH',
      namespace,
      name,
      subresource: options?.subresource,
      query: patchQuery(options),
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
    });
  }

  delete(namespace: string, name: string, options?: DeleteOptions): Promise<T | Status> {
    return this.call({ method: 'DELETE', namespace, name, body: deleteBody(options) });
  }

  async deleteCollection(namespace: string, options: DeleteOptions & ListOptions = {}): Promise<void> {
    await this.call({ method: 'DELETE', namespace, query: listQuery(options), body: deleteBody(options) });
  }

  createSubresource<R extends ApiObject>(
    namespace: string,
    name: string,
    subresource: string,
    body: ApiObject,
    options?: WriteOptions,
  ): Promise<R> {
    return this.call({ method: 'POST', namespace, name, subresource, query: writeQuery(options), body });
  }

  getSubresource<R extends ApiObject>(namespace: string, name: string, subresource: string): Promise<R> {
    return this.call({ method: 'GET', namespace, name, subresource });
  }

  private async put(object: T, subresource: string, options?: WriteOptions): Promise<T> {
    const name = object.metadata?.name;
    if (!name) throw new Error(`cannot update a ${this.ref.kind} without metadata.name`);
    return this.call({
      method: 'PUT',
      namespace: this.namespaceOf(object),
      name,
      subresource,
      query: writeQuery(options),
      body: object,
    });
  }

  private async call<R>(call: Call): Promise<R> {
    const { body } = call;
    const response = await this.connection.request({
      method: call.method,
      path: this.path(call.namespace, call.name, call.subresource) + queryString(call.query ?? {}),
      contentType: body === undefined ? undefined : (call.contentType ?? JSON_TYPE),
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    if (response.status < 200 || response.status > 299) {
      throw errorFromResponse(response.status, response.body, this.failed(call.method, call.name));
    }
    return JSON.parse(response.body) as R;
  }

  private path(namespace: string, name?: string, subresource?: string): string {
    return resourcePath(this.ref, namespace, name, subresource);
  }

  private namespaceOf(object: T): string {
    if (!this.ref.namespaced) return '';
    const namespace = object.metadata?.namespace;
    if (!namespace) throw new Error(`a ${this.ref.kind} needs metadata.namespace`);
    return namespace;
  }

  private failed(method: string, name = '') {
    return { method, group: this.ref.group, resource: this.ref.resource, name };
  }
}
