// A Client holding a few objects in memory: gets answer from the map (404 Status otherwise) and
// serviceaccounts/token answers with a made-up token, counting requests.

import { ApiError } from '../../../src/client/rest/index.js';
import type { ApiObject, Client, ResourceClient, ResourceRef } from '../../../src/client/types.js';

export class FakeClient implements Client {
  readonly identity = 'system:node:test-node';
  readonly objects = new Map<string, ApiObject>();
  readonly tokenRequests: { namespace: string; name: string; body: ApiObject }[] = [];
  /** Seconds the issued tokens live. */
  tokenLifetimeSeconds = 3600;
  now = () => Date.now();

  put(resource: string, namespace: string, name: string, object: ApiObject): void {
    this.objects.set(`${resource}/${namespace}/${name}`, object);
  }

  resource<T extends ApiObject>(ref: ResourceRef): ResourceClient<T> {
    const get = async (namespace: string, name: string): Promise<T> => {
      const found = this.objects.get(`${ref.resource}/${namespace}/${name}`);
      if (!found) {
        throw new ApiError({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
          message: `${ref.resource} "${name}" not found`,
        });
      }
      return structuredClone(found) as T;
    };
    const createSubresource = async <R extends ApiObject>(
      namespace: string,
      name: string,
      subresource: string,
      body: ApiObject,
    ): Promise<R> => {
      if (ref.resource !== 'serviceaccounts' || subresource !== 'token') throw new Error('not faked');
      await get(namespace, name);
      this.tokenRequests.push({ namespace, name, body });
      const spec = (body as { spec: { expirationSeconds?: number } }).spec;
      const lifetime = spec.expirationSeconds ?? this.tokenLifetimeSeconds;
      return {
        ...body,
        spec: { ...spec, expirationSeconds: lifetime },
        status: {
          token: `token-${this.tokenRequests.length}`,
          expirationTimestamp: new Date(this.now() + lifetime * 1000).toISOString(),
        },
      } as unknown as R;
    };
    return { ref, get, createSubresource } as unknown as ResourceClient<T>;
  }

  async close(): Promise<void> {}
}
