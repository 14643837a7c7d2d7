import { createHash, createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CertificateAuthority,
  createCertificateAuthority,
  loadCertificateAuthority,
} from '../../../src/pki/certificate-authority.js';
import {
  certificateFingerprint,
  certificateSubjectAltNames,
  identityFromCertificate,
  issueClientCertificate,
  issueServingCertificate,
} from '../../../src/pki/certificates.js';
import { generateRsaKeyPair, isSamePublicKey, type RsaKeyPair } from '../../../src/pki/keys.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/** The certificate's top-level DER fields: tbsCertificate, signatureAlgorithm, signatureValue. */
function certificateAsn1(pem: string): forge.asn1.Asn1[] {
  const der = Buffer.from(new X509Certificate(pem).raw).toString('binary');
  return forge.asn1.fromDer(der).value as forge.asn1.Asn1[];
}

// forge decodes extensions independently of node:crypto (its certificate parser knows only RSA
// keys, so the extensions are read from the DER here).
function forgeExtension(pem: string, name: string): Record<string, unknown> {
  const tbs = certificateAsn1(pem)[0]!.value as forge.asn1.Asn1[];
  const wrapper = tbs.find((node) => node.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && node.type === 3);
  const extensions = wrapper
    ? (forge.pki as unknown as ForgeExtensionReader).certificateExtensionsFromAsn1(wrapper)
    : [];
  const extension = extensions.find((candidate) => candidate.name === name);
  expect(extension, `extension ${name}`).toBeDefined();
  return extension as Record<string, unknown>;
}

/** forge.pki has certificateExtensionsFromAsn1 at run time; its typings leave it out. */
interface ForgeExtensionReader {
  certificateExtensionsFromAsn1(extensions: forge.asn1.Asn1): { name: string }[];
}

/** The signature AlgorithmIdentifier's OID, and whether it has parameters (RSA's NULL). */
function signatureAlgorithmOf(pem: string): { oid: string; parameters: number } {
  const [tbs, algorithm] = certificateAsn1(pem);
  const [oid, ...parameters] = algorithm!.value as forge.asn1.Asn1[];
  // The TBSCertificate repeats the algorithm; the two must agree byte for byte.
  const inner = (tbs!.value as forge.asn1.Asn1[])[2]!;
  expect(forge.asn1.toDer(inner).toHex()).toBe(forge.asn1.toDer(algorithm!).toHex());
  return { oid: forge.asn1.derToOid(oid!.value as string), parameters: parameters.length };
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

/** The keyIdentifier inside an authorityKeyIdentifier extension, as hex. */
function authorityKeyIdentifierHex(pem: string): string {
  const extension = forgeExtension(pem, 'authorityKeyIdentifier');
  const sequence = forge.asn1.fromDer(extension.value as string);
  const [keyIdentifier] = sequence.value as forge.asn1.Asn1[];
  return forge.util.bytesToHex(keyIdentifier!.value as string);
}

/** Checks a DER INTEGER serial: positive, minimal, at most 128 bits of value. */
function expectPositive128BitSerial(pem: string): bigint {
  // The serial INTEGER's DER content, read from the TBSCertificate (version, serial, ...).
  const certificate = forge.asn1.fromDer(Buffer.from(new X509Certificate(pem).raw).toString('binary'));
  const tbs = (certificate.value as forge.asn1.Asn1[])[0]!;
  const serial = (tbs.value as forge.asn1.Asn1[])[1]!;
  const hex = forge.util.bytesToHex(serial.value as string);
  const bytes = Buffer.from(hex, 'hex');
  expect(bytes[0]! & 0x80).toBe(0);
  if (bytes[0] === 0) expect(bytes[1]! & 0x80).toBe(0x80);
  const value = BigInt(`0x${hex}`);
  expect(value > 0n).toBe(true);
  expect(value < 1n << 128n).toBe(true);
  return value;
}

describe('certificate authority', () => {
  let ca: CertificateAuthority;
  let before: number;

  beforeAll(async () => {
    before = Date.now();
    ca = await createCertificateAuthority({ commonName: 'kubernetes' });
  });

  it('is self-signed with the given CN', () => {
    expect(ca.certificate.subject).toBe('CN=kubernetes');
    expect(ca.certificate.issuer).toBe('CN=kubernetes');
    expect(ca.certificate.checkIssued(ca.certificate)).toBe(true);
    expect(ca.certificate.verify(ca.certificate.publicKey)).toBe(true);
    expect(ca.certificate.checkPrivateKey(ca.privateKey)).toBe(true);
  });

  it('is a CA for ten years, backdated one minute', () => {
    expect(ca.certificate.ca).toBe(true);
    const notBefore = new Date(ca.certificate.validFrom).getTime();
    const notAfter = new Date(ca.certificate.validTo).getTime();
    expect(notBefore).toBeGreaterThanOrEqual(before - 61_000);
    expect(notBefore).toBeLessThanOrEqual(Date.now() - 59_000);
    expect(notAfter - notBefore).toBe(3650 * DAY_MS + 60_000);
  });

  it('has critical basicConstraints and keyUsage, and a subjectKeyIdentifier', () => {
    expect(forgeExtension(ca.certificatePem, 'basicConstraints')).toMatchObject({ cA: true, critical: true });
    expect(forgeExtension(ca.certificatePem, 'keyUsage')).toMatchObject({
      critical: true,
      keyCertSign: true,
      cRLSign: true,
      digitalSignature: true,
      keyEncipherment: false,
    });
    const ski = forgeExtension(ca.certificatePem, 'subjectKeyIdentifier').subjectKeyIdentifier;
    expect(ski).toMatch(/^[0-9a-f]{40}$/);
  });

  it('has an ECDSA P-256 key, signs ECDSA with SHA-256 (no parameters) and a positive 128-bit serial', () => {
    expect(ca.privateKey.asymmetricKeyType).toBe('ec');
    expect(ca.privateKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(signatureAlgorithmOf(ca.certificatePem)).toEqual({ oid: ECDSA_WITH_SHA256, parameters: 0 });
    expectPositive128BitSerial(ca.certificatePem);
  });

  it('identifies its key by the SHA-1 of the public key bits (RFC 5280 method 1)', () => {
    const ski = forgeExtension(ca.certificatePem, 'subjectKeyIdentifier').subjectKeyIdentifier;
    const jwk = ca.certificate.publicKey.export({ format: 'jwk' });
    const point = Buffer.concat([
      Buffer.from([4]),
      Buffer.from(String(jwk.x), 'base64url'),
      Buffer.from(String(jwk.y), 'base64url'),
    ]);
    expect(ski).toBe(createHash('sha1').update(point).digest('hex'));
  });

  it('can be RSA instead, signing SHA-256 with RSA (NULL parameters), and issue from either', async () => {
    const rsa = await createCertificateAuthority({
      commonName: 'rsa-ca',
      keyPair: await generateRsaKeyPair(),
    });
    expect(signatureAlgorithmOf(rsa.certificatePem)).toEqual({
      oid: forge.pki.oids.sha256WithRSAEncryption,
      parameters: 1,
    });
    const ski = forgeExtension(rsa.certificatePem, 'subjectKeyIdentifier').subjectKeyIdentifier;
    const rsaPublicKey = forge.pki.publicKeyFromPem(
      rsa.certificate.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    );
    expect(ski).toBe(forge.pki.getPublicKeyFingerprint(rsaPublicKey, { type: 'RSAPublicKey' }).toHex());
    for (const issuer of [rsa, ca]) {
      const loaded = loadCertificateAuthority(issuer.certificatePem, issuer.privateKeyPem);
      const client = new X509Certificate(
        (await issueClientCertificate(loaded, { user: 'someone' })).certificatePem,
      );
      expect(client.verify(issuer.certificate.publicKey)).toBe(true);
      expect(client.checkIssued(issuer.certificate)).toBe(true);
    }
  });

  it('refuses a CA key it cannot sign with, saying what it found', async () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    const keyPair = {
      privateKeyPem: p384.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      publicKeyPem: p384.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    };
    await expect(createCertificateAuthority({ commonName: 'x', keyPair })).rejects.toThrow(
      'a CA key must be RSA or ECDSA on P-256, found ECDSA on secp384r1',
    );
  });

  it('loads back from PEM', () => {
    const loaded = loadCertificateAuthority(ca.certificatePem, ca.privateKeyPem);
    expect(loaded.certificate.fingerprint256).toBe(ca.certificate.fingerprint256);
    expect(isSamePublicKey(loaded.privateKey, ca.certificate.publicKey)).toBe(true);
  });

  it('refuses to load a key that is not the CA certificate’s, or a certificate that is no CA', async () => {
    const client = await issueClientCertificate(ca, { user: 'someone' });
    expect(() => loadCertificateAuthority(ca.certificatePem, client.privateKeyPem)).toThrow(
      /private key does not match the CA certificate/,
    );
    expect(() => loadCertificateAuthority(client.certificatePem, client.privateKeyPem)).toThrow(
      /is not a CA/,
    );
    expect(() => loadCertificateAuthority('nonsense', ca.privateKeyPem)).toThrow(/no PEM certificate found/);
  });

  it('refuses to load an expired CA', async () => {
    const old = await createCertificateAuthority({
      commonName: 'old',
      keyPair: {
        privateKeyPem: ca.privateKeyPem,
        publicKeyPem: ca.certificate.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      },
      now: new Date(Date.now() - 3651 * DAY_MS),
    });
    expect(() => loadCertificateAuthority(old.certificatePem, old.privateKeyPem)).toThrow(
      /CA certificate expired at/,
    );
  });
});

describe('issued certificates', () => {
  let ca: CertificateAuthority;
  let leafKeys: RsaKeyPair;

  beforeAll(async () => {
    [ca, leafKeys] = await Promise.all([
      createCertificateAuthority({ commonName: 'kubernetes' }),
      generateRsaKeyPair(),
    ]);
  });

  describe('serving', () => {
    let pem: string;
    let certificate: X509Certificate;
    let issuedAt: number;

    beforeAll(async () => {
      issuedAt = Date.now();
      const issued = await issueServingCertificate(ca, {
        commonName: 'kube-apiserver',
        dnsNames: ['localhost', 'kubernetes.default.svc'],
        ipAddresses: ['127.0.0.1', '::1', 'fd00:10:96::1'],
        keyPair: leafKeys,
      });
      pem = issued.certificatePem;
      certificate = new X509Certificate(pem);
      expect(issued.privateKeyPem).toBe(leafKeys.privateKeyPem);
    });

    it('names DNS and IPv4/IPv6 SANs', () => {
      expect(certificate.subject).toBe('CN=kube-apiserver');
      expect(certificate.subjectAltName).toBe(
        'DNS:localhost, DNS:kubernetes.default.svc, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:FD00:10:96:0:0:0:0:1',
      );
      expect(certificate.checkHost('kubernetes.default.svc')).toBe('kubernetes.default.svc');
      expect(certificate.checkHost('kubernetes.default')).toBeUndefined();
      expect(certificate.checkIP('::1')).toBe('::1');
      expect(certificate.checkIP('127.0.0.2')).toBeUndefined();
      expect(certificateSubjectAltNames(pem)).toEqual({
        dnsNames: ['localhost', 'kubernetes.default.svc'],
        ipAddresses: ['127.0.0.1', '::1', 'fd00:10:96::1'],
      });
    });

    it('is for server authentication only, not a CA', () => {
      expect(certificate.keyUsage).toEqual([SERVER_AUTH]);
      expect(certificate.ca).toBe(false);
      expect(forgeExtension(pem, 'basicConstraints')).toMatchObject({ cA: false, critical: true });
      expect(forgeExtension(pem, 'keyUsage')).toMatchObject({
        critical: true,
        digitalSignature: true,
        keyEncipherment: true,
        keyCertSign: false,
      });
    });

    it('is signed by the CA, with its key identifier as authorityKeyIdentifier', () => {
      expect(certificate.issuer).toBe('CN=kubernetes');
      expect(certificate.checkIssued(ca.certificate)).toBe(true);
      expect(certificate.verify(ca.certificate.publicKey)).toBe(true);
      expect(certificate.checkPrivateKey(createPrivateKey(leafKeys.privateKeyPem))).toBe(true);
      const caKeyIdentifier = forgeExtension(ca.certificatePem, 'subjectKeyIdentifier').subjectKeyIdentifier;
      expect(authorityKeyIdentifierHex(pem)).toBe(caKeyIdentifier);
      expect(signatureAlgorithmOf(pem)).toEqual({ oid: ECDSA_WITH_SHA256, parameters: 0 });
    });

    it('is valid for one year, backdated one minute', () => {
      const notBefore = new Date(certificate.validFrom).getTime();
      const notAfter = new Date(certificate.validTo).getTime();
      expect(notBefore).toBeGreaterThanOrEqual(issuedAt - 61_000);
      expect(notBefore).toBeLessThanOrEqual(Date.now() - 59_000);
      expect(notAfter - notBefore).toBe(365 * DAY_MS + 60_000);
    });

    it('rejects an invalid IP address and a certificate with no names', async () => {
      await expect(
        issueServingCertificate(ca, { commonName: 'x', ipAddresses: ['10.0.0.300'], keyPair: leafKeys }),
      ).rejects.toThrow(/invalid IP address: "10.0.0.300"/);
      await expect(issueServingCertificate(ca, { commonName: 'x', keyPair: leafKeys })).rejects.toThrow(
        /at least one DNS name or IP address/,
      );
    });
  });

  describe('client', () => {
    it('puts the user in CN and one O per group, for client authentication only', async () => {
      const issued = await issueClientCertificate(ca, {
        user: 'jane',
        groups: ['system:masters', 'developers'],
        keyPair: leafKeys,
      });
      const certificate = new X509Certificate(issued.certificatePem);
      expect(certificate.subject).toBe('O=system:masters\nO=developers\nCN=jane');
      expect(certificate.keyUsage).toEqual([CLIENT_AUTH]);
      expect(certificate.subjectAltName).toBeUndefined();
      expect(certificate.checkIssued(ca.certificate)).toBe(true);
      expect(identityFromCertificate(issued.certificatePem)).toEqual({
        user: 'jane',
        groups: ['system:masters', 'developers'],
      });
    });

    it('generates a fresh key and a fresh serial for each certificate', async () => {
      const [a, b] = await Promise.all([
        issueClientCertificate(ca, { user: 'a' }),
        issueClientCertificate(ca, { user: 'a' }),
      ]);
      expect(a.privateKeyPem).not.toBe(b.privateKeyPem);
      expect(a.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
      expect(expectPositive128BitSerial(a.certificatePem)).not.toBe(
        expectPositive128BitSerial(b.certificatePem),
      );
    });

    it('never outlives its CA', async () => {
      const shortCa = await createCertificateAuthority({
        commonName: 'short',
        keyPair: leafKeys,
        now: new Date(Date.now() - 3640 * DAY_MS),
      });
      const issued = await issueClientCertificate(shortCa, { user: 'u', keyPair: leafKeys });
      expect(new X509Certificate(issued.certificatePem).validTo).toBe(shortCa.certificate.validTo);
    });

    it('rejects an empty user or group', async () => {
      await expect(issueClientCertificate(ca, { user: '', keyPair: leafKeys })).rejects.toThrow(
        /non-empty common name/,
      );
      await expect(
        issueClientCertificate(ca, { user: 'u', groups: [''], keyPair: leafKeys }),
      ).rejects.toThrow(/must not be empty/);
    });
  });

  describe('identityFromCertificate', () => {
    it('reads PEM, DER and X509Certificate alike', async () => {
      const issued = await issueClientCertificate(ca, {
        user: 'system:node:worker-1',
        groups: ['system:nodes'],
        keyPair: leafKeys,
      });
      const certificate = new X509Certificate(issued.certificatePem);
      const expected = { user: 'system:node:worker-1', groups: ['system:nodes'] };
      expect(identityFromCertificate(issued.certificatePem)).toEqual(expected);
      expect(identityFromCertificate(certificate)).toEqual(expected);
      expect(identityFromCertificate(certificate.raw)).toEqual(expected);
      expect(certificateFingerprint(certificate.raw)).toBe(
        certificate.fingerprint256.replace(/:/g, '').toLowerCase(),
      );
    });

    it('gives no groups for a certificate without O', async () => {
      const issued = await issueClientCertificate(ca, { user: 'alone', keyPair: leafKeys });
      expect(identityFromCertificate(issued.certificatePem)).toEqual({ user: 'alone', groups: [] });
    });

    it('decodes names that need UTF8String', async () => {
      const issued = await issueClientCertificate(ca, {
        user: 'jane_doe@example.com',
        groups: ['équipe-données', '開発'],
        keyPair: leafKeys,
      });
      expect(identityFromCertificate(issued.certificatePem)).toEqual({
        user: 'jane_doe@example.com',
        groups: ['équipe-données', '開発'],
      });
    });

    it('takes the last CN and every O of certificates made elsewhere, and null without a CN', () => {
      const key = forge.pki.privateKeyFromPem(leafKeys.privateKeyPem);
      const make = (attributes: forge.pki.CertificateField[]): string => {
        const certificate = forge.pki.createCertificate();
        certificate.publicKey = forge.pki.publicKeyFromPem(leafKeys.publicKeyPem);
        certificate.serialNumber = '01';
        certificate.validity.notBefore = new Date();
        certificate.validity.notAfter = new Date(Date.now() + DAY_MS);
        certificate.setSubject(attributes);
        certificate.setIssuer([{ name: 'commonName', value: 'elsewhere' }]);
        certificate.sign(key, forge.md.sha256.create());
        return forge.pki.certificateToPem(certificate);
      };
      const twoNames = make([
        { name: 'commonName', value: 'first' },
        { name: 'organizationName', value: 'a' },
        { name: 'organizationalUnitName', value: 'not-a-group' },
        { name: 'commonName', value: 'second' },
        { name: 'organizationName', value: 'b' },
      ]);
      expect(identityFromCertificate(twoNames)).toEqual({ user: 'second', groups: ['a', 'b'] });
      expect(
        identityFromCertificate(make([{ name: 'organizationName', value: 'system:masters' }])),
      ).toBeNull();
    });

    it('rejects input that is not a certificate', () => {
      expect(() => identityFromCertificate('not a certificate')).toThrow(/no PEM certificate found/);
      expect(() => identityFromCertificate(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x01]))).toThrow(
        /malformed certificate/,
      );
    });
  });
});
