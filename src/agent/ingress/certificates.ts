// The ingress controller's certificates: each Ingress's `spec.tls` hosts mapped to the secure
// context of its Secret (`tls.crt`, `tls.key`), chosen by SNI (exact host before wildcard, the
// oldest Ingress first), and the self-signed default certificate served for every other name,
// as ingress-nginx serves its "Kubernetes Ingress Controller Fake Certificate". A missing Secret
// or one whose pair does not load is reported and its hosts fall back to the default.
import { generateKeyPairSync } from 'node:crypto';
import tls, { type SecureContext } from 'node:tls';
import type { Secret } from '../../api/types/core-v1.generated.js';
import type { Ingress } from '../../api/types/networking-v1.generated.js';
import { signCertificate } from '../../pki/certificate-builder.js';
import { hostMatches } from './routes.js';

export interface CertificateProblem {
  readonly ingress: Ingress;
  readonly reason: 'SecretNotFound' | 'InvalidCertificate';
  readonly message: string;
}

export interface CertificateTable {
  contextFor(servername: string): SecureContext | undefined;
  readonly problems: readonly CertificateProblem[];
}

/** Builds the SNI table; `contexts` caches loaded pairs by Secret uid and resourceVersion. */
export function buildCertificateTable(
  ingresses: readonly Ingress[],
  secret: (namespace: string, name: string) => Secret | undefined,
  contexts: Map<string, SecureContext | Error>,
): CertificateTable {
  const entries: { host: string; context: SecureContext }[] = [];
  const problems: CertificateProblem[] = [];
  const used = new Set<string>();
  for (const ingress of ingresses) {
    const namespace = ingress.metadata?.namespace ?? 'default';
    for (const entry of ingress.spec?.tls ?? []) {
      if (!entry.secretName) continue;
      const found = secret(namespace, entry.secretName);
      if (!found) {
        problems.push({
          ingress,
          reason: 'SecretNotFound',
          message: `Error getting SSL certificate "${namespace}/${entry.secretName}": secret not found`,
        });
        continue;
      }
      const key = `${found.metadata?.uid ?? ''}/${found.metadata?.resourceVersion ?? ''}`;
      used.add(key);
      let context = contexts.get(key);
      if (!context) {
        context = loadPair(found);
        contexts.set(key, context);
      }
      if (context instanceof Error) {
        problems.push({
          ingress,
          reason: 'InvalidCertificate',
          message: `Error loading SSL certificate "${namespace}/${entry.secretName}": ${context.message}`,
        });
        continue;
      }
      for (const host of entry.hosts ?? []) entries.push({ host: host.toLowerCase(), context });
    }
  }
  for (const key of contexts.keys()) if (!used.has(key)) contexts.delete(key);
  return {
    problems,
    contextFor(servername) {
      return (
        entries.find((entry) => entry.host === servername.toLowerCase())?.context ??
        entries.find((entry) => entry.host.startsWith('*.') && hostMatches(entry.host, servername))?.context
      );
    },
  };
}

function loadPair(secret: Secret): SecureContext | Error {
  const data = secret.data ?? {};
  const cert = data['tls.crt'];
  const key = data['tls.key'];
  if (!cert || !key) return new Error('the secret has no tls.crt or tls.key');
  try {
    return tls.createSecureContext({ cert: Buffer.from(cert, 'base64'), key: Buffer.from(key, 'base64') });
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * ingress-nginx's default: a self-signed certificate for names no Ingress holds. Its key is ECDSA
 * P-256 where ingress-nginx's is RSA 2048: made in a millisecond, where the RSA key cost every
 * agent 150-500 ms of its main thread at start (three nodes starting on two cores paid it thrice),
 * and a certificate nobody trusts serves the same either way.
 */
export function defaultSecureContext(): SecureContext {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = Date.now();
  const cert = signCertificate(
    {
      subject: { commonName: 'Kubernetes Ingress Controller Fake Certificate', organizations: ['Acme Co'] },
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 365 * 24 * 3600_000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        // No keyEncipherment: an ECDSA key only signs.
        { name: 'keyUsage', digitalSignature: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [{ type: 2, value: 'ingress.local' }] },
      ],
    },
    { name: 'self', privateKey },
  );
  return tls.createSecureContext({
    cert,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
}
