// Node.js's NODE_EXTRA_CA_CERTS for the control plane, read when first needed rather than at its
// start. Node 20 reads and parses that file (and its own bundled roots with it) as a process
// starts, before any of its code runs: ~85 ms with Debian's CA bundle, on every control-plane
// start. The control plane needs those CAs only for a TLS connection without a CA of its own (a
// webhook or an APIService without `caBundle`, which kube-apiserver verifies against the system's
// roots), so the CLI starts it with the file named in TKUBE_EXTRA_CA_CERTS instead.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

export const DEFERRED_EXTRA_CA_CERTS_ENV = 'TKUBE_EXTRA_CA_CERTS';

/** `env` with NODE_EXTRA_CA_CERTS moved to TKUBE_EXTRA_CA_CERTS (both set: Node's wins). */
export function deferExtraCaCerts(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: file, ...rest } = env;
  return file ? { ...rest, [DEFERRED_EXTRA_CA_CERTS_ENV]: file } : rest;
}

let loaded: { readonly file: string; readonly cas: string[] } | undefined;

/**
 * What a connection without a CA of its own trusts: Node's default (undefined) unless extra CAs
 * were deferred, else Node's bundled roots and the file's certificates, read once. A file that
 * cannot be read is reported and left out, as Node does with NODE_EXTRA_CA_CERTS.
 */
export function defaultTrustedCas(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const file = env[DEFERRED_EXTRA_CA_CERTS_ENV];
  if (!file) return undefined;
  if (loaded?.file !== file) {
    let extra: string[] = [];
    try {
      extra =
        readFileSync(file, 'latin1').match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ??
        [];
    } catch (error) {
      console.error(
        `Warning: Ignoring extra certs from \`${file}\`, load failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    loaded = { file, cas: [...rootCertificates, ...extra] };
  }
  return loaded.cas;
}

/** A TLS client's `ca` option: the connection's own CA bundle when it has one, else defaultTrustedCas(). */
export function caOrDefaultTrust(caPem: string | undefined): string | string[] | undefined {
  return caPem || defaultTrustedCas();
}
