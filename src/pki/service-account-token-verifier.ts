import type { KeyObject } from 'node:crypto';
import { goQuote } from '../api/selectors/go-text.js';
import { keyIdOf, type ParsedJws, parseCompactJws, publicKeyOf, verifyJws } from './jws.js';
import {
  type BoundTokenClaims,
  credentialIdForJti,
  type KubernetesClaim,
  LEGACY_SERVICE_ACCOUNT_ISSUER,
  type LegacyTokenClaims,
  type ObjectRefClaim,
  type ServiceAccountInfo,
  type ServiceAccountUser,
  serviceAccountUserInfo,
  splitServiceAccountUsername,
} from './service-account-claims.js';

/** Clock skew tolerated on `nbf`, `exp` and `iat` (go-jose's DefaultLeeway). */
export const TOKEN_LEEWAY_MS = 60_000;

/**
 * Why a token was refused. `malformed` and `issuer` are tokens Kubernetes' service-account
 * authenticator does not consider its own (it abstains and lets other authenticators try); the
 * others are its tokens, refused.
 */
export type TokenFailureReason =
  | 'malformed'
  | 'issuer'
  | 'signature'
  | 'audience'
  | 'expired'
  | 'not-yet-valid'
  | 'issued-in-future'
  | 'invalid-claims'
  | 'binding';

/** What `validateBinding` is asked to confirm: the objects a verified token names still exist as named. */
export interface TokenBinding {
  /** `legacy`: a Secret-based token (check the Secret still holds it); `bound`: a TokenRequest token. */
  kind: 'bound' | 'legacy';
  /** The token itself: legacy tokens must equal the copy in their Secret. */
  token: string;
  namespace: string;
  serviceAccount: { name: string; uid: string };
  pod?: ObjectRefClaim;
  secret?: ObjectRefClaim;
  /** For a pod-bound token, informational only; without a pod, the Node the token is bound to. */
  node?: ObjectRefClaim;
  claims: BoundTokenClaims | LegacyTokenClaims;
}

/**
 * Looks the token's service account and bound objects up; resolves to the reason the token is no
 * longer valid (gone, replaced under the same name, being deleted), or undefined when it is.
 * `createBindingValidator` builds one from store lookups.
 */
export type ValidateBinding = (binding: TokenBinding) => Promise<string | undefined>;

/** A PEM key (public, or private whose public half is used) or a parsed key. */
export type VerificationKeySource = string | KeyObject;

export interface VerifyServiceAccountTokenOptions {
  /** Keys that may have signed tokens (`--service-account-key-file`), all tried when a token has no `kid`. */
  publicKeys: readonly VerificationKeySource[];
  /** Accepted `iss` values (`--service-account-issuer`). */
  issuers: readonly string[];
  /** The apiserver's audiences (`--api-audiences`): what tokens without `aud` are taken to be for. */
  audiences: readonly string[];
  /** The audiences this authentication is for (TokenReview `spec.audiences`); default `audiences`. */
  requestedAudiences?: readonly string[];
  now?: Date;
  /** Without it, tokens are trusted on signature and claims alone (no existence checks). */
  validateBinding?: ValidateBinding;
  /** Accept Secret-based tokens (issuer `kubernetes/serviceaccount`); true unless false. */
  acceptLegacy?: boolean;
}

export interface VerifiedServiceAccountToken {
  ok: true;
  kind: 'bound' | 'legacy';
  claims: BoundTokenClaims | LegacyTokenClaims;
  serviceAccount: ServiceAccountInfo;
  user: ServiceAccountUser;
  /** The token's audiences that were requested (TokenReview `status.audiences`). */
  audiences: string[];
  /** Audit annotations Kubernetes adds for this token (legacy, stale). */
  auditAnnotations: Record<string, string>;
}

export interface RejectedServiceAccountToken {
  ok: false;
  reason: TokenFailureReason;
  message: string;
}

export type ServiceAccountTokenVerification = VerifiedServiceAccountToken | RejectedServiceAccountToken;

interface VerificationKey {
  key: KeyObject;
  keyId: string;
}

/**
 * Verifies a service-account token the way kube-apiserver's service-account authenticator does, in
 * its order: issuer, signature (keys picked by `kid`), audience, then for bound tokens the time
 * claims and for legacy tokens the required claims, then the existence checks of `validateBinding`.
 */
export async function verifyServiceAccountToken(
  token: string,
  options: VerifyServiceAccountTokenOptions,
): Promise<ServiceAccountTokenVerification> {
  if (token.trim().startsWith('{')) return reject('malformed', 'token is JSON, not a compact JWT');
  const jws = parseCompactJws(token);
  if (!jws || !isObject(jws.payload)) {
    return reject('malformed', 'token is not a JWT in compact serialization');
  }
  const payload = jws.payload;
  const issuer = typeof payload.iss === 'string' ? payload.iss : '';
  const legacy = issuer === LEGACY_SERVICE_ACCOUNT_ISSUER && options.acceptLegacy !== false;
  if (!legacy && !options.issuers.includes(issuer)) {
    return reject('issuer', `token issuer ${goQuote(issuer)} is invalid`);
  }

  const signatureProblem = checkSignature(jws, options.publicKeys);
  if (signatureProblem) return reject('signature', signatureProblem);

  const standard = readStandardClaims(payload);
  if (typeof standard === 'string') return reject('malformed', standard);

  const auditAnnotations: Record<string, string> = {};
  let tokenAudiences = standard.aud ?? [];
  if (tokenAudiences.length === 0) {
    // Audience-less (legacy) tokens are good for the apiserver only.
    auditAnnotations['authentication.k8s.io/legacy-token'] = standard.sub ?? '';
    tokenAudiences = [...options.audiences];
  }
  const requested = options.requestedAudiences ?? options.audiences;
  const audiences = tokenAudiences.filter((audience) => requested.includes(audience));
  if (audiences.length === 0 && options.audiences.length > 0) {
    return reject(
      'audience',
      `token audiences ${goQuotedList(tokenAudiences)} is invalid for the target audiences ${goQuotedList(requested)}`,
    );
  }

  const now = options.now ?? new Date();
  const checked = legacy
    ? checkLegacyClaims(token, payload, standard)
    : checkBoundClaims(token, payload, standard, now.getTime());
  if ('reason' in checked) return reject(checked.reason, checked.message);

  if (options.validateBinding) {
    const problem = await options.validateBinding(checked.binding);
    if (problem !== undefined) return reject('binding', problem);
  }
  const warnAfter = checked.binding.kind === 'bound' ? checked.warnAfter : undefined;
  if (warnAfter !== undefined && now.getTime() > warnAfter * 1000) {
    const secondsAfter = Math.floor(now.getTime() / 1000) - warnAfter;
    auditAnnotations['authentication.k8s.io/stale-token'] =
      `subject: ${standard.sub ?? ''}, seconds after warning threshold: ${secondsAfter}`;
  }
  return {
    ok: true,
    kind: checked.binding.kind,
    claims: checked.claims,
    serviceAccount: checked.info,
    user: serviceAccountUserInfo(checked.info),
    audiences,
    auditAnnotations,
  };
}

interface StandardClaims {
  iss?: string;
  sub?: string;
  aud?: string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
}

type CheckedClaims =
  | {
      claims: BoundTokenClaims | LegacyTokenClaims;
      binding: TokenBinding;
      info: ServiceAccountInfo;
      /** Bound tokens: when an extended token turns stale (epoch seconds). */
      warnAfter?: number;
    }
  | { reason: TokenFailureReason; message: string };

function checkBoundClaims(
  token: string,
  payload: Record<string, unknown>,
  standard: StandardClaims,
  nowMs: number,
): CheckedClaims {
  if (standard.nbf !== undefined && nowMs + TOKEN_LEEWAY_MS < standard.nbf * 1000) {
    return { reason: 'not-yet-valid', message: 'service account token is not valid yet' };
  }
  if (standard.exp !== undefined && nowMs - TOKEN_LEEWAY_MS > standard.exp * 1000) {
    return { reason: 'expired', message: 'service account token has expired' };
  }
  if (standard.iat !== undefined && nowMs + TOKEN_LEEWAY_MS < standard.iat * 1000) {
    return { reason: 'issued-in-future', message: 'service account token is issued in the future' };
  }
  const kubernetes = readKubernetesClaim(payload['kubernetes.io']);
  if (typeof kubernetes === 'string') return { reason: 'malformed', message: kubernetes };
  const namespace = kubernetes.namespace ?? '';
  const serviceAccount = {
    name: kubernetes.serviceaccount.name ?? '',
    uid: kubernetes.serviceaccount.uid ?? '',
  };
  if (namespace === '' || serviceAccount.name === '') {
    return {
      reason: 'invalid-claims',
      message: 'service account token claims could not be validated: no service account namespace and name',
    };
  }
  const claims: BoundTokenClaims = { ...standard, iss: standard.iss ?? '', 'kubernetes.io': kubernetes };
  const binding: TokenBinding = { kind: 'bound', token, namespace, serviceAccount, claims };
  if (kubernetes.pod) binding.pod = kubernetes.pod;
  if (kubernetes.secret) binding.secret = kubernetes.secret;
  if (kubernetes.node) binding.node = kubernetes.node;

  const info: ServiceAccountInfo = { namespace, name: serviceAccount.name, uid: serviceAccount.uid };
  if (kubernetes.pod?.name) info.podName = kubernetes.pod.name;
  if (kubernetes.pod?.uid) info.podUid = kubernetes.pod.uid;
  // A pod-bound token's node is what the pod ran on; a token bound to a Node alone is that node's.
  if (kubernetes.node?.name) info.nodeName = kubernetes.node.name;
  if (kubernetes.node?.uid) info.nodeUid = kubernetes.node.uid;
  const credentialId = credentialIdForJti(standard.jti);
  if (credentialId) info.credentialId = credentialId;
  return kubernetes.warnafter
    ? { claims, binding, info, warnAfter: kubernetes.warnafter }
    : { claims, binding, info };
}

const LEGACY_CLAIMS = {
  namespace: 'kubernetes.io/serviceaccount/namespace',
  secretName: 'kubernetes.io/serviceaccount/secret.name',
  serviceAccountName: 'kubernetes.io/serviceaccount/service-account.name',
  serviceAccountUid: 'kubernetes.io/serviceaccount/service-account.uid',
} as const;

function checkLegacyClaims(
  token: string,
  payload: Record<string, unknown>,
  standard: StandardClaims,
): CheckedClaims {
  const values: Record<keyof typeof LEGACY_CLAIMS, string> = {
    namespace: '',
    secretName: '',
    serviceAccountName: '',
    serviceAccountUid: '',
  };
  for (const [field, claim] of Object.entries(LEGACY_CLAIMS) as [keyof typeof LEGACY_CLAIMS, string][]) {
    const value = payload[claim];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      return {
        reason: 'malformed',
        message: `service account token claim ${goQuote(claim)} is not a string`,
      };
    }
    values[field] = value ?? '';
  }
  const missing = (message: string): CheckedClaims => ({ reason: 'invalid-claims', message });
  if (!standard.sub) return missing('sub claim is missing');
  if (!values.namespace) return missing('namespace claim is missing');
  if (!values.secretName) return missing('secretName claim is missing');
  if (!values.serviceAccountName) return missing('serviceAccountName claim is missing');
  if (!values.serviceAccountUid) return missing('serviceAccountUID claim is missing');
  const subject = splitServiceAccountUsername(standard.sub);
  if (!subject || subject.namespace !== values.namespace || subject.name !== values.serviceAccountName) {
    return missing('sub claim is invalid');
  }
  const claims: LegacyTokenClaims = {
    iss: standard.iss ?? '',
    sub: standard.sub,
    [LEGACY_CLAIMS.namespace]: values.namespace,
    [LEGACY_CLAIMS.secretName]: values.secretName,
    [LEGACY_CLAIMS.serviceAccountName]: values.serviceAccountName,
    [LEGACY_CLAIMS.serviceAccountUid]: values.serviceAccountUid,
  };
  const serviceAccount = { name: values.serviceAccountName, uid: values.serviceAccountUid };
  return {
    claims,
    binding: {
      kind: 'legacy',
      token,
      namespace: values.namespace,
      serviceAccount,
      secret: { name: values.secretName },
      claims,
    },
    info: { namespace: values.namespace, name: serviceAccount.name, uid: serviceAccount.uid },
  };
}

/** Undefined when one of the keys signed the token, else Kubernetes' reason. */
function checkSignature(jws: ParsedJws, sources: readonly VerificationKeySource[]): string | undefined {
  const keys = sources.map(verificationKeyOf);
  const keyId = typeof jws.header.kid === 'string' ? jws.header.kid : '';
  const candidates = keyId === '' ? keys : keys.filter((key) => key.keyId === keyId);
  if (candidates.length === 0) return 'invalid signature, no keys found';
  if (candidates.some((candidate) => verifyJws(jws, candidate.key))) return undefined;
  return 'go-jose/go-jose: error in cryptographic primitive';
}

const keysByPem = new Map<string, VerificationKey>();
const keysByObject = new WeakMap<KeyObject, VerificationKey>();
const KEYS_BY_PEM_LIMIT = 16;

/** Parsed keys and their IDs, cached: the same few keys verify every request. */
function verificationKeyOf(source: VerificationKeySource): VerificationKey {
  let loaded = typeof source === 'string' ? keysByPem.get(source) : keysByObject.get(source);
  if (loaded) return loaded;
  const key = publicKeyOf(source);
  loaded = { key, keyId: keyIdOf(key) };
  if (typeof source === 'string') {
    if (keysByPem.size >= KEYS_BY_PEM_LIMIT) keysByPem.clear();
    keysByPem.set(source, loaded);
  } else {
    keysByObject.set(source, loaded);
  }
  return loaded;
}

/** The registered claims with go-jose's types (`aud` a string or list; dates numbers); a string says what is wrong. */
function readStandardClaims(payload: Record<string, unknown>): StandardClaims | string {
  const claims: StandardClaims = {};
  for (const name of ['iss', 'sub', 'jti'] as const) {
    const value = payload[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') return `service account token claim "${name}" is not a string`;
    claims[name] = value;
  }
  for (const name of ['exp', 'nbf', 'iat'] as const) {
    const value = payload[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return `service account token claim "${name}" is not a number`;
    }
    claims[name] = Math.trunc(value);
  }
  const aud = payload.aud;
  if (typeof aud === 'string') {
    claims.aud = [aud];
  } else if (Array.isArray(aud)) {
    if (!aud.every((item) => typeof item === 'string'))
      return 'service account token claim "aud" is not a list of strings';
    claims.aud = aud;
  } else if (aud !== undefined && aud !== null) {
    return 'service account token claim "aud" is not a string or a list of strings';
  }
  return claims;
}

function readKubernetesClaim(value: unknown): KubernetesClaim | string {
  if (value === undefined || value === null) return { serviceaccount: {} };
  if (!isObject(value)) return 'service account token claim "kubernetes.io" is not an object';
  const claim: KubernetesClaim = { serviceaccount: {} };
  if (value.namespace !== undefined && value.namespace !== null) {
    if (typeof value.namespace !== 'string')
      return 'service account token claim "kubernetes.io.namespace" is not a string';
    claim.namespace = value.namespace;
  }
  for (const field of ['serviceaccount', 'pod', 'secret', 'node'] as const) {
    const ref = value[field];
    if (ref === undefined || ref === null) continue;
    const parsed = readRef(ref);
    if (!parsed) return `service account token claim "kubernetes.io.${field}" is not an object reference`;
    claim[field] = parsed;
  }
  if (value.warnafter !== undefined && value.warnafter !== null) {
    if (typeof value.warnafter !== 'number')
      return 'service account token claim "kubernetes.io.warnafter" is not a number';
    claim.warnafter = Math.trunc(value.warnafter);
  }
  return claim;
}

function readRef(value: unknown): ObjectRefClaim | undefined {
  if (!isObject(value)) return undefined;
  const ref: ObjectRefClaim = {};
  for (const field of ['name', 'uid'] as const) {
    const item = value[field];
    if (item === undefined || item === null) continue;
    if (typeof item !== 'string') return undefined;
    if (item !== '') ref[field] = item;
  }
  return ref;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Go's `%q` of a `[]string`: `["a" "b"]`. */
function goQuotedList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

function reject(reason: TokenFailureReason, message: string): RejectedServiceAccountToken {
  return { ok: false, reason, message };
}
