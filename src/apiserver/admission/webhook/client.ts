// Calls one webhook (k8s.io/apiserver/pkg/util/webhook: client.go, serviceresolver.go): POSTs the
// review as JSON over TLS to the clientConfig's `url`, or to `https://<svc>.<ns>.svc:<port><path>`
// resolved to a ready endpoint of the Service and dialed as the apiserver dials pods (straight or
// through the node tunnel), verifying the server against `caBundle` alone when it is set (system
// roots otherwise) with the URL's host, or the Service's DNS name, as server name. `?timeout=<n>s`
// is appended and the whole call bounded by the webhook's timeoutSeconds.
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { WebhookClientConfig } from '../../../api/types/admissionregistration-v1.generated.js';
import { caOrDefaultTrust } from '../../../pki/deferred-default-trust.js';

/** A resolved Service backend: where to dial. */
export interface ServiceBackend {
  readonly host: string;
  readonly port: number;
}

export interface WebhookClientDeps {
  /** The Service's ready endpoint for the service port; throws (a StatusError) when there is none. */
  readonly resolveService?: (namespace: string, name: string, port: number) => Promise<ServiceBackend>;
  /** Opens a connection to a pod address, straight or through the node tunnel. */
  readonly dial?: (host: string, port: number) => Promise<Duplex>;
}

/** A failure to call the webhook; its message is upstream's reason text. */
export class WebhookCallError extends Error {}

/** Largest response body read; a longer one fails the call rather than exhaust memory. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** `url` or the Service's URL, with `?timeout=` appended as upstream's rest client does. */
export function webhookUrl(config: WebhookClientConfig, timeoutSeconds: number): URL {
  let url: URL;
  if (config.url !== undefined && config.url !== '') {
    url = new URL(config.url);
  } else if (config.service !== undefined) {
    const { name, namespace, port, path } = config.service;
    url = new URL(`https://${name}.${namespace}.svc:${port ?? 443}${path ?? ''}`);
  } else {
    throw new WebhookCallError('invalid webhook configuration: neither url nor service is set');
  }
  url.searchParams.set('timeout', `${timeoutSeconds}s`);
  return url;
}

/** Go's url.String() without the default port: how upstream prints the URL in errors. */
function printable(url: URL): string {
  return url.toString();
}

const agents = new Map<string, https.Agent>();

/** One keep-alive agent per trust bundle, so repeated calls reuse TLS connections. */
function agentFor(caBundle: string | undefined): https.Agent {
  const key = caBundle ?? '';
  let agent = agents.get(key);
  if (agent === undefined) {
    const ca = caOrDefaultTrust(caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined);
    agent = new https.Agent({ keepAlive: true, maxSockets: 64, ...(ca ? { ca } : {}) });
    agents.set(key, agent);
  }
  return agent;
}

/** POSTs `body` and returns the decoded JSON response; throws WebhookCallError with upstream's reasons. */
export async function callWebhook(
  deps: WebhookClientDeps,
  config: WebhookClientConfig,
  timeoutSeconds: number,
  body: unknown,
): Promise<unknown> {
  const url = webhookUrl(config, timeoutSeconds);
  const payload = Buffer.from(JSON.stringify(body));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutSeconds * 1000);
  const failed = (detail: string) =>
    new WebhookCallError(`failed to call webhook: Post "${printable(url)}": ${detail}`);
  try {
    const options: https.RequestOptions = {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, */*',
        'content-length': payload.length,
      },
      signal: controller.signal,
    };
    if (config.service !== undefined && (config.url === undefined || config.url === '')) {
      const { name, namespace, port } = config.service;
      if (deps.resolveService === undefined || deps.dial === undefined) throw failed('no service resolver');
      let socket: tls.TLSSocket;
      try {
        const backend = await deps.resolveService(namespace, name, port ?? 443);
        const raw = await deps.dial(backend.host, backend.port);
        const ca = caOrDefaultTrust(
          config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined,
        );
        socket = tls.connect({ socket: raw, servername: url.hostname, ...(ca ? { ca } : {}) });
      } catch (error) {
        throw failed(error instanceof Error ? error.message : String(error));
      }
      // Without an agent the request runs on this connection (an agent, even `false`, would dial itself).
      options.createConnection = () => socket;
    } else {
      options.agent = agentFor(config.caBundle);
    }
    const text = await new Promise<string>((resolve, reject) => {
      const request = https.request(url, options, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            response.destroy();
            reject(failed(`response body larger than ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', (error) => reject(failed(error.message)));
        // A response cut short (by the deadline or the server) ends in close without end.
        response.on('close', () =>
          reject(failed(controller.signal.aborted ? 'context deadline exceeded' : 'unexpected EOF')),
        );
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const code = response.statusCode ?? 0;
          if (code < 200 || code > 299) {
            reject(
              new WebhookCallError(
                `failed to call webhook: an error on the server ("${text.slice(0, 1024)}") has prevented the request from succeeding`,
              ),
            );
            return;
          }
          resolve(text);
        });
      });
      request.on('error', (error) =>
        reject(controller.signal.aborted ? failed('context deadline exceeded') : failed(error.message)),
      );
      controller.signal.addEventListener('abort', () => reject(failed('context deadline exceeded')));
      request.end(payload);
    });
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new WebhookCallError(
        `received invalid webhook response: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  } finally {
    clearTimeout(timer);
  }
}
