// Clients that reach an apiserver over the network: HTTPS (HTTP/2 over TLS) with a client
// certificate or a bearer token, given directly or read from a kubeconfig.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:http2';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { HTTP2_SESSION_MEMORY_MB } from './rest/connection.js';
import { createRestClient } from './rest/rest-client.js';
import type { Client } from './types.js';

export interface HttpsClientOptions {
  /** `https://host:port`. */
  readonly server: string;
  /** PEM of the CA that signed the serving certificate. */
  readonly ca?: string;
  /** PEM of a client certificate and its key (x509 authentication). */
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  /** Do not check the server's certificate (kubeconfig's insecure-skip-tls-verify). */
  readonly insecureSkipTlsVerify?: boolean;
  /** The name the serving certificate must carry, when not the server's host. */
  readonly tlsServerName?: string;
  /** Names the program in the user agent. */
  readonly component: string;
  readonly maxConcurrentRequests?: number;
}

export function httpsClient(options: HttpsClientOptions): Client {
  const tls = {
    ca: options.ca,
    cert: options.cert,
    key: options.key,
    rejectUnauthorized: !options.insecureSkipTlsVerify,
    servername: options.tlsServerName,
  };
  return createRestClient({
    identity: identityOf(options),
    component: options.component,
    token: options.token,
    maxConcurrentRequests: options.maxConcurrentRequests,
    connect: () => connect(options.server, { ...tls, maxSessionMemory: HTTP2_SESSION_MEMORY_MB }),
  });
}

/** A client with the credentials of a kubeconfig context (the current one by default). */
export function clientFromKubeconfig(path: string, context?: string, component = 'client'): Client {
  return httpsClient({ ...readKubeconfig(path, context), component });
}

interface KubeconfigFile {
  'current-context'?: string;
  clusters?: { name?: string; cluster?: KubeconfigCluster }[];
  users?: { name?: string; user?: KubeconfigUser }[];
  contexts?: { name?: string; context?: { cluster?: string; user?: string } }[];
}

interface KubeconfigCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

interface KubeconfigUser {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
}

/** The server and credentials of one kubeconfig context; file paths are relative to the kubeconfig. */
export function readKubeconfig(path: string, context?: string): Omit<HttpsClientOptions, 'component'> {
  const config = (parseYaml(readFileSync(path, 'utf8')) ?? {}) as KubeconfigFile;
  const contextName = context ?? config['current-context'];
  if (!contextName) throw new Error(`${path}: no context given and no current-context`);
  const missing = (what: string, name: string | undefined) =>
    new Error(`${path}: ${what} "${name}" not found`);
  const ctx = config.contexts?.find((entry) => entry.name === contextName)?.context;
  if (!ctx) throw missing('context', contextName);
  const cluster = config.clusters?.find((entry) => entry.name === ctx.cluster)?.cluster;
  if (!cluster?.server) throw missing('cluster', ctx.cluster);
  const user = config.users?.find((entry) => entry.name === ctx.user)?.user ?? {};
  const base = dirname(path);
  const file = (name: string) => readFileSync(resolve(base, name), 'utf8');
  const pem = (data: string | undefined, name: string | undefined): string | undefined =>
    data ? Buffer.from(data, 'base64').toString('utf8') : name ? file(name) : undefined;
  return {
    server: cluster.server,
    ca: pem(cluster['certificate-authority-data'], cluster['certificate-authority']),
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
    tlsServerName: cluster['tls-server-name'],
    cert: pem(user['client-certificate-data'], user['client-certificate']),
    key: pem(user['client-key-data'], user['client-key']),
    token: user.token ?? (user.tokenFile ? file(user.tokenFile).trim() : undefined),
  };
}

/** Who the server will take us for, for logs: the certificate's CN, a token's subject. */
function identityOf(options: Pick<HttpsClientOptions, 'cert' | 'token'>): string {
  if (options.cert) {
    const cn = /^CN=(.*)$/m.exec(new X509Certificate(options.cert).subject);
    if (cn) return cn[1]!;
  }
  if (options.token) {
    try {
      const claims = JSON.parse(Buffer.from(options.token.split('.')[1] ?? '', 'base64url').toString('utf8'));
      if (typeof claims?.sub === 'string') return claims.sub;
    } catch {
      // not a JWT
    }
    return 'bearer token';
  }
  return 'system:anonymous';
}
