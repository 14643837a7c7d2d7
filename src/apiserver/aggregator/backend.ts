// How kube-aggregator reaches the server behind a service-backed APIService: the service's port
// resolved to a ready endpoint address (upstream's ResolveEndpoint, as with
// --enable-aggregator-routing: the host has no route to ClusterIPs), dialed through the node
// tunnels where needed, over TLS verified with the APIService's caBundle against the name
// `<service>.<namespace>.svc`, presenting the front-proxy client certificate.
import type { IncomingMessage } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import { dialErrorText } from '../../api/go-net-errors.js';
import type { KubeObject } from '../../api/object.js';
import { goQuote } from '../../api/selectors/go-text.js';
import type { APIService } from '../../api/types/apiregistration-v1.generated.js';
import type { Endpoints, Service } from '../../api/types/core-v1.generated.js';
import { secureConnection } from '../../api/upgrade-proxy.js';
import type { IssuedCertificate } from '../../pki/certificates.js';
import { caOrDefaultTrust } from '../../pki/deferred-default-trust.js';
import { sendToKubelet } from '../handlers/kubelet-connection.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { Dial } from '../tunnel/dialer.js';

export interface BackendDeps {
  readonly services: () => ResourceStore;
  readonly endpoints: () => ResourceStore;
  readonly dial: Dial;
  /** The front-proxy client certificate. */
  readonly proxyClient: () => Promise<IssuedCertificate>;
}

/** A resolution failure, worded as upstream's resolver words it. */
export class ResolveError extends Error {
  override readonly name = 'ResolveError';
}

const SUPPORTED_TYPES = ['ClusterIP', 'LoadBalancer', 'NodePort'];

/** `https://<ip>:<port>` of a ready endpoint of the APIService's service port. */
export async function resolveEndpoint(deps: BackendDeps, apiService: APIService): Promise<URL> {
  const ref = apiService.spec?.service;
  const namespace = ref?.namespace ?? '';
  const name = ref?.name ?? '';
  const port = ref?.port ?? 443;
  const service = (await deps.services().find(namespace, name)) as KubeObject as Service | undefined;
  if (!service) throw new ResolveError(`service ${goQuote(name)} not found`);
  const type = service.spec?.type ?? 'ClusterIP';
  if (!SUPPORTED_TYPES.includes(type)) throw new ResolveError(`unsupported service type ${goQuote(type)}`);
  const servicePort = service.spec?.ports?.find((candidate) => candidate.port === port);
  if (!servicePort) throw new ResolveError(`no service port ${port} found for service ${goQuote(name)}`);
  const endpoints = (await deps.endpoints().find(namespace, name)) as KubeObject as Endpoints | undefined;
  if (!endpoints) throw new ResolveError(`endpoints ${goQuote(name)} not found`);
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) throw new ResolveError(`no endpoints available for service ${goQuote(name)}`);
  const seed = Math.floor(Math.random() * subsets.length);
  for (let s = 0; s < subsets.length; s++) {
    const subset = subsets[(seed + s) % subsets.length]!;
    const addresses = subset.addresses ?? [];
    for (const candidate of subset.ports ?? []) {
      if ((candidate.name ?? '') !== (servicePort.name ?? '') || addresses.length === 0) continue;
      const address = addresses[Math.floor(Math.random() * addresses.length)]!;
      return new URL(
        `https://${address.ip.includes(':') ? `[${address.ip}]` : address.ip}:${candidate.port}`,
      );
    }
  }
  throw new ResolveError(`no endpoints available for service ${goQuote(name)}`);
}

export interface BackendRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Record<string, string | string[]>;
  readonly body?: Readable;
  readonly signal: { once(event: 'close', listener: () => void): unknown };
}

/** A TLS connection to the server (for upgrades, joined byte for byte to the client's). */
export async function dialApiService(deps: BackendDeps, apiService: APIService, url: URL): Promise<Duplex> {
  const ref = apiService.spec?.service;
  const client = await deps.proxyClient();
  const caBundle = apiService.spec?.caBundle;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || 443);
  let raw: Duplex;
  try {
    raw = await deps.dial(host, port);
  } catch (error) {
    throw new Error(dialErrorText(`${url.hostname}:${port}`, error));
  }
  return secureConnection(
    {
      host,
      servername: `${ref?.name ?? ''}.${ref?.namespace ?? ''}.svc`,
      ca:
        apiService.spec?.insecureSkipTLSVerify === true
          ? undefined
          : caOrDefaultTrust(caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined),
      cert: client.certificatePem,
      key: client.privateKeyPem,
      rejectUnauthorized: apiService.spec?.insecureSkipTLSVerify !== true,
    },
    raw,
  );
}

/** Sends one request to the APIService's server; rejects with the dial or TLS error's text. */
export async function sendToApiService(
  deps: BackendDeps,
  apiService: APIService,
  request: BackendRequest,
): Promise<IncomingMessage> {
  const ref = apiService.spec?.service;
  const client = await deps.proxyClient();
  const caBundle = apiService.spec?.caBundle;
  return sendToKubelet(
    {
      ...request,
      credentials: {
        certificatePem: client.certificatePem,
        privateKeyPem: client.privateKeyPem,
        caPem: caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : '',
      },
      insecureSkipVerify: apiService.spec?.insecureSkipTLSVerify === true,
      serverName: `${ref?.name ?? ''}.${ref?.namespace ?? ''}.svc`,
      dial: deps.dial,
    },
    (text) => new Error(text),
  );
}
