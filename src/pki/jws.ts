import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { compareGoStrings } from '../api/selectors/go-text.js';

/**
 * The JWS algorithm Kubernetes' token signer uses for a key: RS256 for RSA, and for ECDSA the one
 * its curve names (ES256 on P-256, ES384 on P-384, ES512 on P-521). Undefined for other keys.
 */
export function jwsAlgorithmOf(key: KeyObject): JwsAlgorithm | undefined {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType !== 'ec') return undefined;
  return ECDSA_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''];
}

export type JwsAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

const ECDSA_ALGORITHMS: Readonly<Record<string, JwsAlgorithm>> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};

const DIGESTS: Readonly<Record<JwsAlgorithm, string>> = {
  RS256: 'sha256',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
};

/** The protected header of a compact JWS, as far as tkube reads it. */
export interface JwsHeader {
  alg: string;
  kid?: string;
  [name: string]: unknown;
}

/** A compact JWS split into its parts; nothing in it is verified yet. */
export interface ParsedJws {
  header: JwsHeader;
  payload: unknown;
  /** `base64url(header) + '.' + base64url(payload)`, the bytes the signature covers. */
  signingInput: string;
  signature: Buffer;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function base64UrlEncode(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/**
 * Decodes unpadded base64url (Go's RawURLEncoding): anything else, padding included, is rejected
 * rather than skipped the way Buffer.from would.
 */
export function base64UrlDecode(text: string): Buffer | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
  return Buffer.from(text, 'base64url');
}

/**
 * JSON the way Go's encoder writes it: object keys sorted when `sortKeys` (Go marshals maps in key
 * order, and go-jose turns every claim set into a map), and `<`, `>`, `&`, U+2028, U+2029 escaped.
 */
export function goJson(value: unknown, sortKeys: boolean): string {
  const text = JSON.stringify(sortKeys ? withSortedKeys(value) : value);
  return text.replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(compareGoStrings)) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) sorted[key] = withSortedKeys(item);
  }
  return sorted;
}

/**
 * The key ID Kubernetes gives a public key: base64url of the SHA-256 of its DER (PKIX) encoding.
 * One-way, so the ID never stands in for the key itself.
 */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

/** The public key of a PEM (public, or private whose public half is meant) or of a parsed key. */
export function publicKeyOf(source: string | KeyObject): KeyObject {
  if (typeof source !== 'string') return source.type === 'private' ? createPublicKey(source) : source;
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(source)) return createPublicKey(createPrivateKey(source));
  return createPublicKey({ key: source, format: 'pem' });
}

/**
 * Signs `payload` as a compact JWS with header `{alg, kid}`, keys in Go's order, the algorithm
 * the key's type gives (jwsAlgorithmOf). ECDSA signatures are r‖s (RFC 7518 §3.4), not DER.
 */
export function signCompactJws(payload: unknown, privateKey: KeyObject, keyId: string): string {
  const alg = jwsAlgorithmOf(privateKey);
  if (!alg) throw new Error(`cannot sign a JWS with a ${privateKey.asymmetricKeyType ?? 'unknown'} key`);
  const header = base64UrlEncode(goJson({ alg, kid: keyId }, true));
  const body = base64UrlEncode(goJson(payload, true));
  const signingInput = `${header}.${body}`;
  const signature = sign(DIGESTS[alg], Buffer.from(signingInput), {
    key: privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  return `${signingInput}.${base64UrlEncode(signature)}`;
}

/** Splits and decodes a compact JWS; undefined when it is not one (wrong shape, bad base64url, not JSON). */
export function parseCompactJws(token: string): ParsedJws | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const headerBytes = base64UrlDecode(headerPart);
  const payloadBytes = base64UrlDecode(payloadPart);
  const signature = base64UrlDecode(signaturePart);
  if (!headerBytes || !payloadBytes || !signature) return undefined;
  const header = parseJson(headerBytes);
  const payload = parseJson(payloadBytes);
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return undefined;
  if (typeof (header as JwsHeader).alg !== 'string' || payload === undefined) return undefined;
  return { header: header as JwsHeader, payload, signingInput: `${headerPart}.${payloadPart}`, signature };
}

/** Whether `publicKey` verifies a parsed JWS signed with that key's algorithm (no other is accepted). */
export function verifyJws(jws: ParsedJws, publicKey: KeyObject): boolean {
  const alg = jwsAlgorithmOf(publicKey);
  if (!alg || jws.header.alg !== alg) return false;
  return verify(
    DIGESTS[alg],
    Buffer.from(jws.signingInput),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    jws.signature,
  );
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
