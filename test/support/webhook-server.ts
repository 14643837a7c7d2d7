// A webhook HTTPS server for admission tests and benchmarks: serves AdmissionReviews on paths the
// caller routes to handlers, with a serving certificate from a CA of its own (the caBundle).
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority } from '../../src/pki/certificate-authority.js';
import { issueServingCertificate } from '../../src/pki/certificates.js';

/** The review a handler sees and what it answers (a review response, or raw bytes to send). */
export type ReviewHandler = (review: {
  apiVersion: string;
  request: Record<string, unknown>;
}) => Promise<Record<string, unknown> | string> | Record<string, unknown> | string;

export interface WebhookServer {
  readonly port: number;
  /** The CA's certificate, base64 as `caBundle` wants it. */
  readonly caBundle: string;
  readonly handlers: Map<string, ReviewHandler>;
  /** Every review received, by path. */
  readonly received: Map<string, Record<string, unknown>[]>;
  url(path: string): string;
  close(): Promise<void>;
}

/** Starts a server on `host` whose certificate names `dnsNames` and `ipAddresses`. */
export async function startWebhookServer(
  names: { dnsNames?: string[]; ipAddresses?: string[] } = { ipAddresses: ['127.0.0.1'] },
  host = '127.0.0.1',
): Promise<WebhookServer> {
  const ca = await createCertificateAuthority({ commonName: 'webhook-test-ca' });
  const serving = await issueServingCertificate(ca, { commonName: 'webhook', ...names });
  const handlers = new Map<string, ReviewHandler>();
  const received = new Map<string, Record<string, unknown>[]>();
  const server: Server = createServer(
    { cert: serving.certificatePem, key: serving.privateKeyPem },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        const path = new URL(req.url ?? '/', 'https://x').pathname;
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        received.set(path, [...(received.get(path) ?? []), review.request]);
        const handler = handlers.get(path);
        if (handler === undefined) {
          res.writeHead(404).end();
          return;
        }
        const answer = await handler(review);
        const body = typeof answer === 'string' ? answer : JSON.stringify(answer);
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caBundle: Buffer.from(ca.certificatePem).toString('base64'),
    handlers,
    received,
    url: (path) => `https://${host}:${port}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A v1 (or v1beta1) review response. */
export function reviewResponse(
  review: { apiVersion: string; request: Record<string, unknown> },
  response: Record<string, unknown>,
): Record<string, unknown> {
  return {
    apiVersion: review.apiVersion,
    kind: 'AdmissionReview',
    response: { uid: review.request.uid, ...response },
  };
}

/** A JSONPatch response body field. */
export function jsonPatch(operations: unknown[]): { patchType: 'JSONPatch'; patch: string } {
  return { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(operations)).toString('base64') };
}
