import { type KeyObject, randomUUID } from 'node:crypto';
import {
  aggregateMessages,
  type FieldError,
  fieldErrorMessage,
  fieldInvalid,
} from '../api/selectors/index.js';
import type { ServiceAccountKeys } from './cluster-pki.js';
import { jwsAlgorithmOf, keyIdOf, signCompactJws } from './jws.js';
import { describeKeyType, parsePrivateKeyPem } from './keys.js';
import {
  type BoundTokenClaims,
  credentialIdForJti,
  type KubernetesClaim,
  LEGACY_SERVICE_ACCOUNT_ISSUER,
  type LegacyTokenClaims,
  objectRefClaim,
  serviceAccountUsername,
} from './service-account-claims.js';

/** TokenRequest's `spec.expirationSeconds` when the request leaves it out. */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
/** The shortest and longest lifetimes TokenRequest validation accepts. */
export const MIN_TOKEN_EXPIRATION_SECONDS = 600;
export const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;
/**
 * The lifetime the kubelet asks for projected tokens (one hour and 7 seconds). Pod-bound tokens for
 * the apiserver's own audiences asking exactly this get a year instead, and only a `warnafter` at
 * the requested time, so workloads that never re-read their token keep working.
 */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607;
export const EXTENDED_TOKEN_EXPIRATION_SECONDS = 365 * 24 * 60 * 60;

/** The private half of the service-account key pair, parsed, with its key ID. */
export interface ServiceAccountSigningKey {
  privateKey: KeyObject;
  keyId: string;
}

/** The cluster PKI's key pair (only the private PEM is read) or an already parsed signing key. */
export type SigningKeySource = Pick<ServiceAccountKeys, 'privateKeyPem'> | ServiceAccountSigningKey;

export type BoundObjectKind = 'Pod' | 'Secret' | 'Node';

/** The object a token lives and dies with (TokenRequest `spec.boundObjectRef`, resolved). */
export interface BoundObject {
  kind: BoundObjectKind;
  name: string;
  uid: string;
  /** For a Pod: the node it runs on, recorded in the token as Kubernetes does. */
  nodeName?: string;
  /** For a Pod: that node's UID, when the Node object exists. */
  nodeUid?: string;
}

export interface ServiceAccountTokenRequest {
  /** `--service-account-issuer`: the `iss` claim. */
  issuer: string;
  /** `spec.audiences`; empty or absent means the apiserver's audiences. */
  audiences?: readonly string[];
  /** `--api-audiences`; defaults to the issuer, as kube-apiserver does. */
  apiAudiences?: readonly string[];
  /** `spec.expirationSeconds`; defaults to 3600. */
  expirationSeconds?: number;
  /** `--service-account-max-token-expiration`; 0 or absent means no limit. */
  maxExpirationSeconds?: number;
  /** `--service-account-extend-token-expiration`; true unless set to false. */
  extendExpiration?: boolean;
  namespace: string;
  serviceAccount: { name: string; uid: string };
  boundObject?: BoundObject;
  now?: Date;
  /** The `jti` claim; a random UUID unless given (tests fix it). */
  jti?: string;
}

export interface IssuedServiceAccountToken {
  token: string;
  /** `status.expirationTimestamp`: now plus the granted `spec.expirationSeconds`, RFC 3339 in seconds. */
  expirationTimestamp: string;
  /** `spec.expirationSeconds` after any shortening: what the response echoes. */
  expirationSeconds: number;
  /** `spec.audiences` after defaulting. */
  audiences: string[];
  /** Warning headers for the response (a shortened lifetime). */
  warnings: string[];
  /** `JTI=<jti>`, for the `authentication.kubernetes.io/issued-credential-id` audit annotation. */
  credentialId: string;
  claims: BoundTokenClaims;
}

export interface LegacyServiceAccountTokenRequest {
  namespace: string;
  serviceAccount: { name: string; uid: string };
  /** The `kubernetes.io/service-account-token` Secret the token is written into. */
  secretName: string;
}

/** A TokenRequest that fails validation; `errors` become the causes of a 422 Invalid status. */
export class TokenRequestInvalidError extends Error {
  override readonly name = 'TokenRequestInvalidError';
  constructor(readonly errors: FieldError[]) {
    // Kubernetes reports the TokenRequest with an empty name.
    super(
      `TokenRequest.authentication.k8s.io "" is invalid: ${aggregateMessages(errors.map(fieldErrorMessage))}`,
    );
  }
}

/**
 * Kubernetes' bounds on a requested token lifetime (TokenRequest, and projected token volumes at
 * `<path>.expirationSeconds`).
 */
export function validateTokenExpirationSeconds(
  expirationSeconds: number,
  field = 'spec.expirationSeconds',
): FieldError[] {
  const errors: FieldError[] = [];
  if (expirationSeconds < MIN_TOKEN_EXPIRATION_SECONDS) {
    errors.push(fieldInvalid(field, expirationSeconds, 'may not specify a duration less than 10 minutes'));
  }
  if (expirationSeconds > MAX_TOKEN_EXPIRATION_SECONDS) {
    errors.push(
      fieldInvalid(field, expirationSeconds, 'may not specify a duration larger than 2^32 seconds'),
    );
  }
  return errors;
}

/**
 * Issues a bound service-account token as TokenRequest does: defaults, validation, the max-lifetime
 * cap and the kubelet extension applied, then the claims signed (RS256 or ES256 by the key) with the key ID in the header.
 * The caller resolves the bound object (and checks a Pod runs as this service account).
 */
export function issueServiceAccountToken(
  key: SigningKeySource,
  request: ServiceAccountTokenRequest,
): IssuedServiceAccountToken {
  const requested = request.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
  const errors = validateTokenExpirationSeconds(requested);
  if (errors.length > 0) throw new TokenRequestInvalidError(errors);

  const apiAudiences = request.apiAudiences ?? [request.issuer];
  const audiences = request.audiences && request.audiences.length > 0 ? request.audiences : apiAudiences;
  const warnings: string[] = [];
  let granted = requested;
  const max = request.maxExpirationSeconds ?? 0;
  if (max > 0 && granted > max) {
    warnings.push(`requested expiration of ${granted} seconds shortened to ${max} seconds`);
    granted = max;
  }

  let lifetime = granted;
  let warnAfter: number | undefined;
  const bound = request.boundObject;
  if (
    request.extendExpiration !== false &&
    bound?.kind === 'Pod' &&
    granted === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS &&
    audiences.every((audience) => apiAudiences.includes(audience))
  ) {
    warnAfter = granted;
    lifetime = EXTENDED_TOKEN_EXPIRATION_SECONDS;
  }

  const now = Math.floor((request.now ?? new Date()).getTime() / 1000);
  const jti = request.jti ?? randomUUID();
  const kubernetes: KubernetesClaim = {
    serviceaccount: objectRefClaim(request.serviceAccount.name, request.serviceAccount.uid),
  };
  if (request.namespace) kubernetes.namespace = request.namespace;
  if (bound?.kind === 'Pod') {
    kubernetes.pod = objectRefClaim(bound.name, bound.uid);
    if (bound.nodeName) kubernetes.node = objectRefClaim(bound.nodeName, bound.nodeUid);
  } else if (bound?.kind === 'Secret') {
    kubernetes.secret = objectRefClaim(bound.name, bound.uid);
  } else if (bound?.kind === 'Node') {
    kubernetes.node = objectRefClaim(bound.name, bound.uid);
  }
  if (warnAfter !== undefined) kubernetes.warnafter = now + warnAfter;

  const claims: BoundTokenClaims = {
    iss: request.issuer,
    sub: serviceAccountUsername(request.namespace, request.serviceAccount.name),
    iat: now,
    nbf: now,
    exp: now + lifetime,
    jti,
    'kubernetes.io': kubernetes,
  };
  if (audiences.length > 0) claims.aud = [...audiences];
  const signingKey = signingKeyOf(key);
  return {
    token: signCompactJws(claims, signingKey.privateKey, signingKey.keyId),
    expirationTimestamp: rfc3339Seconds(now + granted),
    expirationSeconds: granted,
    audiences: [...audiences],
    warnings,
    credentialId: credentialIdForJti(jti)!,
    claims,
  };
}

/**
 * Issues the long-lived token of a `kubernetes.io/service-account-token` Secret, as the tokens
 * controller does: issuer `kubernetes/serviceaccount`, no audience, no expiry.
 */
export function issueLegacyServiceAccountToken(
  key: SigningKeySource,
  request: LegacyServiceAccountTokenRequest,
): string {
  const claims: LegacyTokenClaims = {
    iss: LEGACY_SERVICE_ACCOUNT_ISSUER,
    sub: serviceAccountUsername(request.namespace, request.serviceAccount.name),
    'kubernetes.io/serviceaccount/namespace': request.namespace,
    'kubernetes.io/serviceaccount/secret.name': request.secretName,
    'kubernetes.io/serviceaccount/service-account.name': request.serviceAccount.name,
    'kubernetes.io/serviceaccount/service-account.uid': request.serviceAccount.uid,
  };
  const signingKey = signingKeyOf(key);
  return signCompactJws(claims, signingKey.privateKey, signingKey.keyId);
}

/** Parses the service-account private key (RSA or ECDSA; PKCS#1, SEC 1 or PKCS#8 PEM) and derives its key ID. */
export function loadServiceAccountSigningKey(privateKeyPem: string): ServiceAccountSigningKey {
  const privateKey = parsePrivateKeyPem(privateKeyPem);
  if (!jwsAlgorithmOf(privateKey)) {
    throw new Error(
      `service-account tokens are signed with RSA or ECDSA (P-256, P-384, P-521) keys, found ${describeKeyType(privateKey)}`,
    );
  }
  return { privateKey, keyId: keyIdOf(privateKey) };
}

/** Parsed keys by PEM: a cluster has one or two, and parsing costs more than signing. */
const parsedKeys = new Map<string, ServiceAccountSigningKey>();
const PARSED_KEYS_LIMIT = 4;

function signingKeyOf(source: SigningKeySource): ServiceAccountSigningKey {
  if ('privateKey' in source) return source;
  let parsed = parsedKeys.get(source.privateKeyPem);
  if (!parsed) {
    parsed = loadServiceAccountSigningKey(source.privateKeyPem);
    if (parsedKeys.size >= PARSED_KEYS_LIMIT) parsedKeys.clear();
    parsedKeys.set(source.privateKeyPem, parsed);
  }
  return parsed;
}

/** Seconds since the epoch as metav1.Time writes them: `2006-01-02T15:04:05Z`. */
export function rfc3339Seconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
