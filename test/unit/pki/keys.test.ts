import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  generateRsaKeyPair,
  isSamePublicKey,
  parsePrivateKeyPem,
  parsePublicKeyPem,
  publicKeyPemOf,
  type RsaKeyPair,
  toPkcs1PrivateKeyPem,
  toPkcs8PrivateKeyPem,
} from '../../../src/pki/keys.js';

describe('RSA keys', () => {
  let keyPair: RsaKeyPair;

  beforeAll(async () => {
    keyPair = await generateRsaKeyPair();
  });

  it('generates a 2048-bit RSA pair as PKCS#8 and SPKI PEM', () => {
    expect(keyPair.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(keyPair.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const privateKey = parsePrivateKeyPem(keyPair.privateKeyPem);
    expect(privateKey.asymmetricKeyType).toBe('rsa');
    expect(privateKey.asymmetricKeyDetails).toMatchObject({ modulusLength: 2048, publicExponent: 65537n });
  });

  it('pairs the two halves: what the private key signs, the public key verifies', () => {
    const data = Buffer.from('tkube');
    const signature = sign('sha256', data, parsePrivateKeyPem(keyPair.privateKeyPem));
    expect(verify('sha256', data, parsePublicKeyPem(keyPair.publicKeyPem), signature)).toBe(true);
    expect(publicKeyPemOf(parsePrivateKeyPem(keyPair.privateKeyPem))).toBe(keyPair.publicKeyPem);
  });

  it('converts between PKCS#8 and PKCS#1 and reads both', () => {
    const privateKey = parsePrivateKeyPem(keyPair.privateKeyPem);
    const pkcs1 = toPkcs1PrivateKeyPem(privateKey);
    expect(pkcs1).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n/);
    const reread = parsePrivateKeyPem(pkcs1);
    expect(isSamePublicKey(reread, privateKey)).toBe(true);
    expect(toPkcs8PrivateKeyPem(reread)).toBe(keyPair.privateKeyPem);
  });

  it('tells different keys apart', () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const privateKey = parsePrivateKeyPem(keyPair.privateKeyPem);
    expect(isSamePublicKey(privateKey, parsePublicKeyPem(keyPair.publicKeyPem))).toBe(true);
    expect(isSamePublicKey(privateKey, other.publicKey)).toBe(false);
  });

  it('rejects text that is not a PEM key, with a message saying so', () => {
    expect(() => parsePrivateKeyPem('garbage')).toThrow(/no PEM private key found/);
    expect(() => parsePublicKeyPem(keyPair.privateKeyPem)).toThrow(/no PEM public key found/);
    const damaged = keyPair.privateKeyPem.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!');
    expect(() => parsePrivateKeyPem(damaged)).toThrow(/cannot parse the PEM private key/);
  });
});
