import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { identityFromCertificate } from '../../pki/certificates.js';
import { type BoundObjectLookup, createBindingValidator } from '../../pki/service-account-token-binding.js';
import {
  type ServiceAccountTokenVerification,
  verifyServiceAccountToken,
} from '../../pki/service-account-token-verifier.js';
import type { ApiRequest, UserInfo } from '../http/types.js';
import { unauthorized } from '../status.js';
import { type BootstrapSecretLookup, verifyBootstrapToken } from './bootstrap-token.js';
import { isLoopbackToken, loopbackTokenUser } from './loopback-token.js';

export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
const AUTHENTICATED = 'system:authenticated';
const TOKEN_CACHE_TTL_MS = 2_000;
const TOKEN_CACHE_SIZE = 4096;

export interface ServiceAccountTokenSettings {
  /** Public keys that verify tokens (PEM). */
  readonly publicKeys: readonly string[];
  /** `--service-account-issuer`. */
  readonly issuer: string;
  /** `--api-audiences`. */
  readonly audiences: readonly string[];
  /** Reads of service accounts, pods, secrets and nodes, so tokens die with what they are bound to. */
  readonly lookup: BoundObjectLookup;
}

/** The user a bearer token authenticates as, before system:authenticated is added. */
export interface TokenUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** A bearer token's verdict (what authentication uses and TokenReview reports). */
export type TokenVerification =
  | { readonly ok: true; readonly user: TokenUser; readonly audiences: readonly string[] }
  | { readonly ok: false; readonly message: string };

/** What kube-apiserver answers for a bearer token none of its token authenticators accepts. */
const INVALID_BEARER_TOKEN = 'invalid bearer token';

/**
 * The authenticator chain: an x509 client certificate the cluster CA signed, else a bearer
 * service-account token or bootstrap token, else system:anonymous. Invalid credentials are a
 * 401, never a fall-through to anonymous. Every authenticated user is in system:authenticated.
 */
export class Authenticator {
  /** Identity per TLS connection: a client certificate is read once, not on every request. */
  private readonly certificateUsers = new WeakMap<TLSSocket, UserInfo | null>();
  /**
   * Verified bearer tokens, kept briefly as kube-apiserver's token cache does: a signature
   * check and the account lookups on every request would dominate its cost. 2 s, not
   * Kubernetes' 10 s, so that a deleted account's tokens stop working sooner.
   */
  private readonly tokenUsers = new Map<string, { user: UserInfo; until: number }>();
  /** The control plane's loopback secret (see loopback-token.ts); its tokens are checked first. */
  private loopbackSecret: string | undefined;
  /** Loopback tokens already verified: a few per component identity. */
  private readonly loopbackUsers = new Map<string, UserInfo>();

  /**
   * @param bootstrapSecrets reads of kube-system Secrets, for bootstrap tokens (`<id>.<secret>`);
   *   without it bootstrap tokens are not accepted.
   */
  constructor(
    private readonly serviceAccounts?: ServiceAccountTokenSettings,
    private readonly bootstrapSecrets?: BootstrapSecretLookup,
  ) {}

  async authenticate(req: ApiRequest): Promise<UserInfo> {
    const fromCertificate = this.certificateUser(req);
    if (fromCertificate) return fromCertificate;
    const authorization = req.headers.authorization;
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match) throw unauthorized();
      const token = match[1]!;
      const loopback = this.loopbackUser(token);
      if (loopback) return loopback;
      const now = Date.now();
      const cached = this.tokenUsers.get(token);
      if (cached && cached.until > now) return cached.user;
      const verified = await this.verifyToken(token);
      if (!verified.ok) throw unauthorized();
      const { user } = verified;
      const info: UserInfo = {
        name: user.name,
        uid: user.uid,
        groups: [...user.groups, AUTHENTICATED],
        extra: user.extra,
      };
      if (this.tokenUsers.size >= TOKEN_CACHE_SIZE) this.tokenUsers.clear();
      this.tokenUsers.set(token, { user: info, until: now + TOKEN_CACHE_TTL_MS });
      return info;
    }
    return ANONYMOUS;
  }

  /** Accepts tokens made with `secret` (loopbackToken) from now on, like kube-apiserver's loopback token. */
  trustLoopbackSecret(secret: string): void {
    this.loopbackSecret = secret;
  }

  private loopbackUser(token: string): UserInfo | undefined {
    const known = this.loopbackUsers.get(token);
    if (known || !this.loopbackSecret || !isLoopbackToken(token)) return known;
    const user = loopbackTokenUser(this.loopbackSecret, token);
    if (!user) return undefined;
    const groups = user.groups.includes(AUTHENTICATED) ? user.groups : [...user.groups, AUTHENTICATED];
    const info: UserInfo = { ...user, groups };
    this.loopbackUsers.set(token, info);
    return info;
  }

  /**
   * A bearer token's verdict (also what TokenReview reports), in kube-apiserver's order: the
   * service-account authenticator, then bootstrap tokens for what it does not consider its own.
   */
  async verifyToken(token: string, requestedAudiences?: readonly string[]): Promise<TokenVerification> {
    const serviceAccount = await this.verifyServiceAccountToken(token, requestedAudiences);
    if (serviceAccount.ok || !abstains(serviceAccount)) return serviceAccount;
    if (this.bootstrapSecrets) {
      // Bootstrap tokens carry no audience: they are good for the apiserver's own audiences only.
      const apiAudiences = this.serviceAccounts?.audiences ?? [];
      const requested = requestedAudiences ?? apiAudiences;
      const audiences = apiAudiences.filter((audience) => requested.includes(audience));
      if (apiAudiences.length === 0 || audiences.length > 0) {
        const bootstrap = await verifyBootstrapToken(token, this.bootstrapSecrets);
        if (bootstrap.ok) return { ok: true, user: bootstrap.user, audiences };
      }
    }
    return { ok: false, message: INVALID_BEARER_TOKEN };
  }

  private verifyServiceAccountToken(
    token: string,
    requestedAudiences?: readonly string[],
  ): Promise<ServiceAccountTokenVerification> {
    if (!this.serviceAccounts) {
      return Promise.resolve({
        ok: false,
        reason: 'issuer',
        message: 'service-account tokens are not enabled',
      });
    }
    const { publicKeys, issuer, audiences, lookup } = this.serviceAccounts;
    return verifyServiceAccountToken(token, {
      publicKeys,
      issuers: [issuer],
      audiences,
      requestedAudiences,
      validateBinding: createBindingValidator(lookup),
    });
  }

  private certificateUser(req: ApiRequest): UserInfo | undefined {
    // HTTP/2 requests share their session's TLS socket; HTTP/1.1 requests own theirs.
    const socket = ('stream' in req ? req.stream.session?.socket : req.socket) as TLSSocket | undefined;
    if (!socket) return undefined;
    const known = this.certificateUsers.get(socket);
    if (known !== undefined) return known ?? undefined;
    const peer =
      typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate(false) : undefined;
    let user: UserInfo | null = null;
    if (peer?.raw) {
      if (!socket.authorized) throw unauthorized();
      const identity = identityFromCertificate(new X509Certificate(peer.raw));
      if (!identity) throw unauthorized();
      user = { name: identity.user, groups: [...identity.groups, AUTHENTICATED] };
    }
    this.certificateUsers.set(socket, user);
    return user ?? undefined;
  }
}

/** Tokens the service-account authenticator does not consider its own: others may accept them. */
function abstains(verdict: ServiceAccountTokenVerification): boolean {
  return !verdict.ok && (verdict.reason === 'malformed' || verdict.reason === 'issuer');
}
