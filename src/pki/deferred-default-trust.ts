// Node.js's default trust for the control plane (its bundled roots and NODE_EXTRA_CA_CERTS), made
// when a connection first needs it rather than at every start. Node parses its ~140 bundled roots
// for a process's first TLS context whatever that context's own CA (45 ms of a control plane's
// start, measured), and NODE_EXTRA_CA_CERTS's file before any of its code runs (~85 ms with
// Debian's CA bundle). The control plane's own connections name their CA; only one without a CA
// of its own (a webhook or an APIService without `caBundle`, which kube-apiserver verifies against
// the system's roots) needs the default. So the CLI starts the control plane with OpenSSL's store,
// emptied, in place of Node's (`--use-openssl-ca`, SSL_CERT_FILE and SSL_CERT_DIR at /dev/null),
// the extra CAs' file named in TKUBE_EXTRA_CA_CERTS, and TKUBE_DEFAULT_TRUST=deferred; such a
// connection is given Node's bundled roots and the file's certificates as its `ca`.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

export const DEFERRED_EXTRA_CA_CERTS_ENV = 'TKUBE_EXTRA_CA_CERTS';
export const DEFERRED_TRUST_ENV = 'TKUBE_DEFAULT_TRUST';
const DEFERRED = 'deferred';
const OPENSSL_STORE_OPTION = '--use-openssl-ca';
/**
 * Node on OpenSSL's store, emptied: its first TLS context parses nothing. The node agent, which
 * trusts only the CA it is given, runs with these too (in its start program).
 */
export const EMPTIED_OPENSSL_STORE_ENV: Readonly<Record<string, string>> = {
  SSL_CERT_FILE: '/dev/null',
  SSL_CERT_DIR: '/dev/null',
  NODE_OPTIONS: OPENSSL_STORE_OPTION,
};
/** Node's options choosing a CA store: a user who set one keeps it, and Node's behaviour with it. */
const STORE_OPTIONS = /(^|\s)--use-(openssl|bundled)-ca(\s|$)/;

/** `env` for a process whose default trust is deferred (see above), unless it chose a CA store itself. */
export function deferDefaultTrust(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (STORE_OPTIONS.test(env.NODE_OPTIONS ?? '')) return env;
  const { NODE_EXTRA_CA_CERTS: file, ...rest } = env;
  return {
    ...rest,
    ...(file && { [DEFERRED_EXTRA_CA_CERTS_ENV]: file }),
    ...EMPTIED_OPENSSL_STORE_ENV,
    NODE_OPTIONS: rest.NODE_OPTIONS ? `${rest.NODE_OPTIONS} ${OPENSSL_STORE_OPTION}` : OPENSSL_STORE_OPTION,
    [DEFERRED_TRUST_ENV]: DEFERRED,
  };
}

let loaded: { readonly file: string | undefined; readonly cas: string[] } | undefined;

/**
 * What a connection without a CA of its own trusts: Node's default (undefined) unless it was
 * deferred, else Node's bundled roots and the extra CAs' certificates, read once. A file that
 * cannot be read is reported and left out, as Node does with NODE_EXTRA_CA_CERTS.
 */
export function defaultTrustedCas(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  if (env[DEFERRED_TRUST_ENV] !== DEFERRED) return undefined;
  const file = env[DEFERRED_EXTRA_CA_CERTS_ENV] || undefined;
  if (loaded === undefined || loaded.file !== file) {
    let extra: string[] = [];
    if (file) {
      try {
        extra =
          readFileSync(file, 'latin1').match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ??
          [];
      } catch (error) {
        console.error(
          `Warning: Ignoring extra certs from \`${file}\`, load failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    loaded = { file, cas: [...rootCertificates, ...extra] };
  }
  return loaded.cas;
}

/** A TLS client's `ca` option: the connection's own CA bundle when it has one, else defaultTrustedCas(). */
export function caOrDefaultTrust(caPem: string | undefined): string | string[] | undefined {
  return caPem || defaultTrustedCas();
}
