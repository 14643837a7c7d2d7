// How kube-apiserver reaches a node's kubelet (pods/log, nodes/proxy): the address of the first
// preferred type the node reports, the port in status.daemonEndpoints, HTTPS with the apiserver's
// kubelet client certificate, and dial failures worded as Go's net package words them. The pod and
// service proxies send their requests the same way, over a connection the apiserver's dialer opened.
import type { IncomingMessage } from 'node:http';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { dialErrorText } from '../../api/go-net-errors.js';
import type { Node } from '../../api/types/core-v1.generated.js';
import { caOrDefaultTrust } from '../../pki/deferred-default-trust.js';
import type { ApiResponse } from '../http/types.js';
import { internalError } from '../status.js';

/** kube-apiserver's client identity towards kubelets, and the CA their serving certificates chain to. */
export interface KubeletClientCredentials {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  readonly caPem: string;
}

const DEFAULT_KUBELET_PORT = 10250;
/** kubeadm's --kubelet-preferred-address-types. */
const PREFERRED_ADDRESS_TYPES = ['InternalIP', 'ExternalIP', 'Hostname'];
const DIAL_TIMEOUT_MS = 30_000;

/** The kubelet's address: the first of the preferred address types the node reports. */
export function kubeletAddress(node: Node): { host: string; port: number } {
  const addresses = node.status?.addresses ?? [];
  for (const type of PREFERRED_ADDRESS_TYPES) {
    const found = addresses.find((a) => a.type === type && a.address);
    if (found) {
      const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
      return { host: found.address, port: port && port > 0 ? port : DEFAULT_KUBELET_PORT };
    }
  }
  const known = addresses.map((a) => `{${a.type} ${a.address}}`).join(' ');
  throw internalError(new Error(`no preferred addresses found; known addresses: [${known}]`));
}

export interface KubeletRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers?: Record<string, string | string[]>;
  /** HTTPS with this client identity; plain HTTP(S) without one when absent. */
  readonly credentials?: KubeletClientCredentials;
  readonly insecureSkipVerify?: boolean;
  /** The name the server's certificate must carry (an aggregated API's `<svc>.<ns>.svc`); the host otherwise. */
  readonly serverName?: string;
  readonly body?: Readable;
  /** Opens the connection (through a node's tunnel where needed); plain sockets when absent. */
  readonly dial?: (host: string, port: number) => Promise<Duplex>;
  /** Destroying the request when the client goes away. */
  readonly signal: { once(event: 'close', listener: () => void): unknown };
}

/** Sends the request; rejects with the dial error (as Go words it) when no answer comes. */
export async function sendToKubelet(
  options: KubeletRequest,
  wrapError: (dialText: string) => Error,
): Promise<IncomingMessage> {
  const { url } = options;
  const https = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (https ? 443 : 80));
  const address = `${url.hostname}:${port}`;
  const verify = options.credentials !== undefined && !options.insecureSkipVerify;
  const tls = https && {
    // No CA: the system's roots, as Go's client without RootCAs (looked up only to verify).
    ca: verify ? caOrDefaultTrust(options.credentials?.caPem) : undefined,
    cert: options.credentials?.certificatePem,
    key: options.credentials?.privateKeyPem,
    rejectUnauthorized: verify,
  };
  let connection: Duplex | undefined;
  if (options.dial) {
    try {
      connection = await options.dial(host, port);
    } catch (error) {
      throw wrapError(dialErrorText(address, error));
    }
  }
  const dialed = connection;
  const requestOptions: RequestOptions & Record<string, unknown> = {
    method: options.method,
    headers: options.headers,
    timeout: DIAL_TIMEOUT_MS,
    ...tls,
    // An agent would open its own socket: a dialed connection goes without one.
    ...(!dialed && { agent: false }),
    // TLS over the dialed connection; SNI only for names, as Go's client sends it.
    ...(dialed && {
      createConnection: () =>
        tls
          ? tlsConnect({
              ...tls,
              socket: dialed,
              host,
              ...(options.serverName
                ? { servername: options.serverName }
                : isIP(host) === 0 && { servername: host }),
            })
          : dialed,
    }),
  };
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = (https ? httpsRequest : httpRequest)(url, requestOptions);
    outgoing.on('response', (response) => {
      // Once the kubelet answers, a stream (a followed log) may stay quiet for long.
      response.socket.setTimeout(0);
      resolve(response);
    });
    outgoing.on('timeout', () =>
      outgoing.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
    );
    outgoing.on('error', (error) => {
      dialed?.destroy();
      reject(wrapError(dialErrorText(address, error)));
    });
    options.signal.once('close', () => {
      outgoing.destroy();
      dialed?.destroy();
    });
    if (options.body) options.body.pipe(outgoing);
    else outgoing.end();
  });
}

/** Copies the kubelet's answer body to the client until either side ends; headers are written. */
export async function streamResponse(response: IncomingMessage, res: ApiResponse): Promise<void> {
  await new Promise<void>((resolve) => {
    response.on('end', resolve);
    response.on('error', resolve);
    response.on('close', resolve);
    res.once('close', () => {
      response.destroy();
      resolve();
    });
    response.pipe(res as NodeJS.WritableStream);
  });
  if (!res.writableEnded) res.end();
}
