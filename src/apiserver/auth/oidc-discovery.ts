import type { KeyObject } from 'node:crypto';
import { goJson, jwsAlgorithmOf, keyIdOf, publicKeyOf } from '../../pki/jws.js';
import { describeKeyType } from '../../pki/keys.js';

// The service-account issuer's OIDC discovery documents, as kube-apiserver serves them (so that
// relying parties outside the cluster can verify service-account tokens).

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
export const OPENID_CONFIGURATION_CONTENT_TYPE = 'application/json';
/** RFC 7517 §8.5.1. */
export const JWKS_CONTENT_TYPE = 'application/jwk-set+json';
/** Both documents may be cached an hour (static keys), overriding the apiserver's `private, no-cache`. */
export const OIDC_MAX_AGE_SECONDS = 3600;
export const OIDC_CACHE_CONTROL = `public, max-age=${OIDC_MAX_AGE_SECONDS}`;

/** The OIDC provider metadata subset Kubernetes publishes, fields in its order. */
export interface OpenIdConfiguration {
  issuer: string;
  jwks_uri: string;
  response_types_supported: string[];
  subject_types_supported: string[];
  id_token_signing_alg_values_supported: string[];
}

/** A public signing key as go-jose writes it, fields in its order (use, kty, kid, crv, alg, x, y, n, e). */
export type PublicJwk =
  | { use: 'sig'; kty: 'RSA'; kid: string; alg: string; n: string; e: string }
  | { use: 'sig'; kty: 'EC'; kid: string; crv: string; alg: string; x: string; y: string };

export interface JsonWebKeySet {
  keys: PublicJwk[];
}

export interface OidcDiscoveryOptions {
  /** `--service-account-issuer`; must be an https URL without query or fragment. */
  issuer: string;
  /** `--service-account-jwks-uri`; without it, `https://<externalAddress>/openid/v1/jwks`. */
  jwksUri?: string;
  /** The apiserver's advertised `host:port`. */
  externalAddress?: string;
  /** The service-account verification keys (PEM or parsed); private keys publish their public half. */
  keys: readonly (string | KeyObject)[];
}

/** Both documents pre-rendered, the bytes to serve. */
export interface OidcDiscoveryDocuments {
  configuration: string;
  keySet: string;
}

/** Why Kubernetes would not install the discovery endpoints for this configuration. */
export class OidcDiscoveryConfigError extends Error {
  override readonly name = 'OidcDiscoveryConfigError';
}

/** The JWK of one public key: its signing algorithm (RS256, ES256 …), `use: sig`, the Kubernetes key ID. */
export function publicJwkOf(source: string | KeyObject): PublicJwk {
  const key = publicKeyOf(source);
  const alg = jwsAlgorithmOf(key);
  if (!alg) {
    throw new OidcDiscoveryConfigError(
      `unsupported service-account key type ${describeKeyType(key)}: tokens are signed with RSA or ECDSA keys`,
    );
  }
  const jwk = key.export({ format: 'jwk' });
  const kid = keyIdOf(key);
  if (jwk.kty === 'EC') {
    return { use: 'sig', kty: 'EC', kid, crv: String(jwk.crv), alg, x: String(jwk.x), y: String(jwk.y) };
  }
  return { use: 'sig', kty: 'RSA', kid, alg, n: String(jwk.n), e: String(jwk.e) };
}

export function jsonWebKeySet(keys: readonly (string | KeyObject)[]): JsonWebKeySet {
  if (keys.length === 0) throw new OidcDiscoveryConfigError('no keys provided for validating keyset');
  return { keys: keys.map(publicJwkOf) };
}

/** The `/.well-known/openid-configuration` document; throws what kube-apiserver refuses. */
export function openIdConfiguration(options: OidcDiscoveryOptions): OpenIdConfiguration {
  const keySet = jsonWebKeySet(options.keys);
  return {
    issuer: checkedIssuer(options.issuer),
    jwks_uri: jwksUriOf(options),
    // Kubernetes only produces ID tokens, with public subject identifiers.
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(keySet.keys.map((key) => key.alg))].sort(),
  };
}

/** Both bodies as kube-apiserver renders them once at start-up (Go JSON, struct field order). */
export function oidcDiscoveryDocuments(options: OidcDiscoveryOptions): OidcDiscoveryDocuments {
  return {
    configuration: goJson(openIdConfiguration(options), false),
    keySet: goJson(jsonWebKeySet(options.keys), false),
  };
}

function checkedIssuer(issuer: string): string {
  if (issuer === '') throw new OidcDiscoveryConfigError('empty issuer URL');
  const url = parseUrl(issuer);
  if (url?.protocol !== 'https:')
    throw new OidcDiscoveryConfigError(`issuer URL must use https scheme, got: ${issuer}`);
  if (url.search !== '')
    throw new OidcDiscoveryConfigError(`issuer URL may not include a query, got: ${issuer}`);
  if (url.hash !== '')
    throw new OidcDiscoveryConfigError(`issuer URL may not include a fragment, got: ${issuer}`);
  return issuer;
}

function jwksUriOf(options: OidcDiscoveryOptions): string {
  if (options.jwksUri) {
    const url = parseUrl(options.jwksUri);
    if (url?.protocol !== 'https:') {
      throw new OidcDiscoveryConfigError(`jwksURI requires https scheme, parsed as: ${options.jwksUri}`);
    }
    return options.jwksUri;
  }
  if (!options.externalAddress) {
    throw new OidcDiscoveryConfigError(
      'either the JWKS URI or the default external address, or both, must be set',
    );
  }
  const uri = `https://${options.externalAddress}${JWKS_PATH}`;
  const url = parseUrl(uri);
  if (!url || url.pathname !== JWKS_PATH || url.search !== '' || url.hash !== '') {
    throw new OidcDiscoveryConfigError(
      `attempted to build jwks_uri from external address ${options.externalAddress}, but could not construct a valid URL`,
    );
  }
  return uri;
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
