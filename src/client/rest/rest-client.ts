import type { ClientHttp2Session } from 'node:http2';
import { KUBERNETES_GIT_VERSION } from '../../api/version.js';
import type { ApiObject, Client, ResourceClient, ResourceRef } from '../types.js';
import { Http2Connection } from './connection.js';
import { RestResourceClient } from './resource-client.js';

export interface RestClientOptions {
  /** The user the server will see, for logs. */
  readonly identity: string;
  /** Names the program in the user agent: `deployment-controller` → `tkube-deployment-controller/...`. */
  readonly component: string;
  /** Opens an HTTP/2 session to the apiserver (TLS or in-memory h2c). */
  readonly connect: () => ClientHttp2Session;
  /** A bearer token, sent with every request. */
  readonly token?: string;
  readonly maxConcurrentRequests?: number;
}

/** A Client over one multiplexed HTTP/2 connection. */
export function createRestClient(options: RestClientOptions): Client {
  const headers: Record<string, string> = { 'user-agent': userAgent(options.component) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const connection = new Http2Connection({
    connect: options.connect,
    headers,
    maxConcurrentRequests: options.maxConcurrentRequests,
  });
  return {
    identity: options.identity,
    resource: <T extends ApiObject>(ref: ResourceRef): ResourceClient<T> =>
      new RestResourceClient<T>(ref, connection),
    close: () => connection.close(),
  };
}

const GOARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };

/** client-go's shape: `<program>/<version> (<os>/<arch>) <build>`. */
export function userAgent(component: string): string {
  const arch = GOARCH[process.arch] ?? process.arch;
  return `tkube-${component}/${KUBERNETES_GIT_VERSION} (${process.platform}/${arch}) tkube`;
}
