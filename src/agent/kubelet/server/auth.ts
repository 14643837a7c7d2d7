// Who may use the kubelet API, decided as the kubelet's Webhook mode does: x509 client
// certificates from the cluster CA or bearer tokens (TokenReview) authenticate; a
// SubjectAccessReview per request asks the apiserver whether the user may get/create/...
// `nodes/<subresource>` of this node. Answers are cached (tokens 2 min; allowed 5 min,
// denied 30 s).
import { createHash, type X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { TokenReview } from '../../../api/types/authentication-v1.generated.js';
import type { SubjectAccessReview } from '../../../api/types/authorization-v1.generated.js';
import { SUBJECT_ACCESS_REVIEWS, TOKEN_REVIEWS } from '../../../client/resources.js';
import type { Client } from '../../../client/types.js';
import { identityFromCertificate } from '../../../pki/certificates.js';
import type { KubeletUser } from './router.js';

const TOKEN_TTL_MS = 2 * 60_000;
const ALLOWED_TTL_MS = 5 * 60_000;
const DENIED_TTL_MS = 30_000;
const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';
const ANY_USAGE_OID = '2.5.29.37.0';

const VERBS: Readonly<Record<string, string>> = {
  POST: 'create',
  GET: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

function isSubpath(path: string, base: string): boolean {
  const trimmed = base.endsWith('/') ? base.slice(0, -1) : base;
  return path === trimmed || (path.startsWith(trimmed) && path[trimmed.length] === '/');
}

/** The nodes subresources a path is checked against, in order: any one allowed lets it through. */
export function nodeSubresources(path: string): string[] {
  if (isSubpath(path, '/stats')) return ['stats'];
  if (isSubpath(path, '/metrics')) return ['metrics'];
  if (isSubpath(path, '/logs')) return ['log'];
  if (isSubpath(path, '/checkpoint')) return ['checkpoint'];
  // KubeletFineGrainedAuthz (beta, on in 1.33): a narrower subresource first, nodes/proxy after.
  if (isSubpath(path, '/pods') || isSubpath(path, '/runningpods/')) return ['pods', 'proxy'];
  if (isSubpath(path, '/healthz')) return ['healthz', 'proxy'];
  if (isSubpath(path, '/configz')) return ['configz', 'proxy'];
  return ['proxy'];
}

export function verbOf(method: string): string {
  return VERBS[method] ?? '';
}

export type Authorization =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly message: string };

export class KubeletAuth {
  private readonly tokens = new Map<string, { user: KubeletUser | undefined; until: number }>();
  private readonly decisions = new Map<string, { allowed: boolean; until: number }>();

  constructor(
    private readonly client: Client,
    private readonly nodeName: string,
  ) {}

  /** The request's user, or undefined (401). */
  async authenticate(req: IncomingMessage): Promise<KubeletUser | undefined> {
    const socket = req.socket as TLSSocket;
    if (socket.authorized) {
      const certificate = socket.getPeerX509Certificate?.();
      if (certificate && allowsClientAuth(certificate)) {
        const identity = identityFromCertificate(certificate);
        if (identity) return { name: identity.user, groups: identity.groups };
      }
    }
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? this.reviewToken(match[1]!) : undefined;
  }

  private async reviewToken(token: string): Promise<KubeletUser | undefined> {
    const key = createHash('sha256').update(token).digest('hex');
    const cached = this.tokens.get(key);
    if (cached && cached.until > Date.now()) return cached.user;
    const review = await this.client.resource<TokenReview>(TOKEN_REVIEWS).create({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token },
    });
    const info = review.status?.authenticated ? review.status.user : undefined;
    const user: KubeletUser | undefined = info?.username
      ? { name: info.username, uid: info.uid, groups: info.groups ?? [], extra: info.extra }
      : undefined;
    this.tokens.set(key, { user, until: Date.now() + TOKEN_TTL_MS });
    return user;
  }

  /** Asks whether the user may `verb` each of the path's node subresources; one yes suffices. */
  async authorize(user: KubeletUser, method: string, path: string): Promise<Authorization> {
    const verb = verbOf(method);
    const subresources = nodeSubresources(path);
    for (const subresource of subresources) {
      if (await this.allowed(user, verb, subresource)) return { allowed: true };
    }
    return {
      allowed: false,
      message: `Forbidden (user=${user.name}, verb=${verb}, resource=nodes, subresource(s)=[${subresources.join(' ')}])\n`,
    };
  }

  private async allowed(user: KubeletUser, verb: string, subresource: string): Promise<boolean> {
    const spec = {
      user: user.name,
      groups: [...user.groups],
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.extra
        ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) }
        : {}),
      resourceAttributes: {
        verb,
        group: '',
        version: 'v1',
        resource: 'nodes',
        subresource,
        name: this.nodeName,
      },
    };
    const key = JSON.stringify(spec);
    const cached = this.decisions.get(key);
    if (cached && cached.until > Date.now()) return cached.allowed;
    const review = await this.client.resource<SubjectAccessReview>(SUBJECT_ACCESS_REVIEWS).create({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec,
    });
    const allowed = review.status?.allowed === true;
    this.decisions.set(key, { allowed, until: Date.now() + (allowed ? ALLOWED_TTL_MS : DENIED_TTL_MS) });
    return allowed;
  }
}

/** A certificate without extended key usages may be used for anything; otherwise it needs clientAuth. */
function allowsClientAuth(certificate: X509Certificate): boolean {
  const usages = certificate.keyUsage;
  return usages === undefined || usages.includes(CLIENT_AUTH_OID) || usages.includes(ANY_USAGE_OID);
}
