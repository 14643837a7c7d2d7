import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

/** The size of every RSA key tkube makes, as kubeadm's default. */
export const RSA_KEY_BITS = 2048;

/** A key pair as PEM: PKCS#8 (`PRIVATE KEY`) and SPKI (`PUBLIC KEY`). */
export interface KeyPair {
  privateKeyPem: string;
  publicKeyPem: string;
}

/** An RSA key pair: the service-account key of a cluster made by an earlier tkube, and tests'. */
export type RsaKeyPair = KeyPair;

const generateKeyPairAsync = promisify(generateKeyPair);

/** Generates an RSA 2048 key pair with OpenSSL on the thread pool (forge's JS keygen is far slower). */
export async function generateRsaKeyPair(): Promise<RsaKeyPair> {
  const { privateKey, publicKey } = await generateKeyPairAsync('rsa', {
    modulusLength: RSA_KEY_BITS,
    publicExponent: 0x10001,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/**
 * Generates an ECDSA P-256 key pair, for CAs and leaf certificates (kubeadm's `ECDSA-P256`): a
 * millisecond to make where an RSA 2048 key takes a few hundred, and faster TLS handshakes.
 */
export async function generateEcdsaKeyPair(): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPairAsync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** Parses a leaf certificate's private key: RSA (older clusters) or ECDSA. */
export function parseLeafPrivateKeyPem(pem: string): KeyObject {
  const key = parsePrivateKeyPem(pem);
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec') {
    throw new Error(
      `expected an RSA or ECDSA private key, found ${key.asymmetricKeyType ?? 'an unknown key type'}`,
    );
  }
  return key;
}

/** Parses an unencrypted PEM private key, PKCS#1 (`RSA PRIVATE KEY`) or PKCS#8 (`PRIVATE KEY`). */
export function parsePrivateKeyPem(pem: string): KeyObject {
  if (!/-----BEGIN (RSA |EC )?PRIVATE KEY-----/.test(pem)) {
    throw new Error('no PEM private key found (expected a "PRIVATE KEY" or "RSA PRIVATE KEY" block)');
  }
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch (error) {
    throw new Error(`cannot parse the PEM private key: ${errorText(error)}`);
  }
}

/** Parses a PEM public key, SPKI (`PUBLIC KEY`) or PKCS#1 (`RSA PUBLIC KEY`). */
export function parsePublicKeyPem(pem: string): KeyObject {
  if (!/-----BEGIN (RSA )?PUBLIC KEY-----/.test(pem)) {
    throw new Error('no PEM public key found (expected a "PUBLIC KEY" or "RSA PUBLIC KEY" block)');
  }
  try {
    return createPublicKey({ key: pem, format: 'pem' });
  } catch (error) {
    throw new Error(`cannot parse the PEM public key: ${errorText(error)}`);
  }
}

/** A key's type for messages: `rsa`, `ECDSA on secp384r1`, `ed25519` … */
export function describeKeyType(key: KeyObject): string {
  if (key.asymmetricKeyType === 'ec') {
    return `ECDSA on ${key.asymmetricKeyDetails?.namedCurve ?? 'an unknown curve'}`;
  }
  return key.asymmetricKeyType ?? 'an unknown key type';
}

/** The SPKI PEM public key of a private key. */
export function publicKeyPemOf(privateKey: KeyObject): string {
  return createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
}

/** Re-encodes a private key as PKCS#8 PEM (`PRIVATE KEY`). */
export function toPkcs8PrivateKeyPem(privateKey: KeyObject): string {
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** Re-encodes an RSA private key as PKCS#1 PEM (`RSA PRIVATE KEY`), the form older tools expect. */
export function toPkcs1PrivateKeyPem(privateKey: KeyObject): string {
  return privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
}

/** Whether a public key (or the public half of a private key) equals another's. */
export function isSamePublicKey(a: KeyObject, b: KeyObject): boolean {
  const publicA = a.type === 'private' ? createPublicKey(a) : a;
  const publicB = b.type === 'private' ? createPublicKey(b) : b;
  return publicA.equals(publicB);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
