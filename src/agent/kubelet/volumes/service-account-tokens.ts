// The kubelet's token manager: service-account tokens for projected volumes, requested through
// `serviceaccounts/<name>/token` bound to the pod, cached, and requested again at 80 % of their
// lifetime or after 24 hours, whichever comes first.
import type { TokenRequest } from '../../../api/types/authentication-v1.generated.js';
import type { Pod, ServiceAccountTokenProjection } from '../../../api/types/core-v1.generated.js';
import { SERVICE_ACCOUNTS } from '../../../client/resources.js';
import type { Client } from '../../../client/types.js';
import { errorText } from './errors.js';

const MAX_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_JITTER_MS = 10_000;
/** The apiserver's default when a projection names no expiration. */
const DEFAULT_EXPIRATION_SECONDS = 3600;

interface CachedToken {
  readonly token: string;
  readonly expiresAt: number;
  readonly expirationSeconds: number;
}

export class ServiceAccountTokenManager {
  private readonly cache = new Map<string, CachedToken>();

  constructor(
    private readonly client: Client,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The token for the pod and projection; `failed to fetch token: ...` when the apiserver refuses. */
  async token(pod: Pod, source: ServiceAccountTokenProjection): Promise<string> {
    const meta = pod.metadata ?? {};
    const namespace = meta.namespace ?? '';
    const account = pod.spec?.serviceAccountName || 'default';
    const audiences = source.audience ? [source.audience] : [];
    const key = JSON.stringify([meta.uid, namespace, account, audiences, source.expirationSeconds ?? null]);
    const cached = this.cache.get(key);
    if (cached && !this.requiresRefresh(cached)) return cached.token;
    let response: TokenRequest;
    try {
      response = await this.client
        .resource(SERVICE_ACCOUNTS)
        .createSubresource<TokenRequest>(namespace, account, 'token', {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: {
            audiences,
            ...(source.expirationSeconds === undefined
              ? {}
              : { expirationSeconds: source.expirationSeconds }),
            boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: meta.name, uid: meta.uid },
          },
        } as TokenRequest);
    } catch (error) {
      // A token that still works is better than none while the apiserver is unreachable.
      if (cached && cached.expiresAt > this.now()) return cached.token;
      throw new Error(`failed to fetch token: ${errorText(error)}`);
    }
    const status = response.status;
    if (!status?.token) throw new Error('failed to fetch token: the apiserver returned no token');
    const entry: CachedToken = {
      token: status.token,
      expiresAt: Date.parse(status.expirationTimestamp),
      expirationSeconds:
        response.spec?.expirationSeconds ?? source.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS,
    };
    this.cache.set(key, entry);
    return entry.token;
  }

  /** Forgets the tokens of a pod that is gone. */
  forgetPod(uid: string): void {
    for (const key of this.cache.keys()) {
      if ((JSON.parse(key) as unknown[])[0] === uid) this.cache.delete(key);
    }
  }

  private requiresRefresh(entry: CachedToken): boolean {
    const now = this.now();
    const issuedAt = entry.expiresAt - entry.expirationSeconds * 1000;
    const jitter = Math.random() * MAX_JITTER_MS;
    if (now > issuedAt + MAX_TTL_MS - jitter) return true;
    return now > entry.expiresAt - entry.expirationSeconds * 200 - jitter;
  }
}
