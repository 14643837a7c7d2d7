import { createHash, createPublicKey, type KeyObject, randomBytes, sign } from 'node:crypto';
import forge from 'node-forge';
import { describeKeyType } from './keys.js';

/**
 * Builds X.509 certificates with forge and signs them natively: forge's pure-JS RSA signing costs
 * ~80 ms a certificate on this machine, OpenSSL's a few hundred microseconds. Issuers sign with
 * RSA (SHA-256 with RSA) or ECDSA P-256 (ECDSA with SHA-256); forge knows only the former, so the
 * signature algorithm, the outer structure and an ECDSA key's identifier are put in here.
 */

export interface DistinguishedName {
  commonName: string;
  /** One O attribute each, in order: Kubernetes reads them as the user's groups. */
  organizations?: readonly string[];
}

/** An extension in the shape forge's `setExtensions` takes. */
export interface ForgeExtension {
  name: string;
  critical?: boolean;
  [field: string]: unknown;
}

export interface CertificateSpec {
  /** The subject to encode, or one already encoded (a CSR's) to copy byte for byte. */
  subject: DistinguishedName | { raw: forge.asn1.Asn1 };
  /** SPKI PEM of the key (RSA or ECDSA) the certificate binds. */
  publicKeyPem: string;
  notBefore: Date;
  notAfter: Date;
  extensions: ForgeExtension[];
}

export interface CertificateIssuer {
  /** The issuer's subject Name as DER read from its certificate, or 'self' for a self-signed certificate. */
  name: forge.asn1.Asn1 | 'self';
  /** RSA, or ECDSA on P-256 (see assertSigningKey). */
  privateKey: KeyObject;
}

/** ecdsa-with-SHA256 (RFC 5758): its AlgorithmIdentifier has no parameters, not even NULL. */
const ECDSA_WITH_SHA256_OID = '1.2.840.10045.4.3.2';

/**
 * Throws unless the key is one certificates can be signed with here: RSA, or ECDSA on P-256 (the
 * curve SHA-256 matches, as kubeadm's ECDSA-P256 and k3s's CAs use).
 */
export function assertSigningKey(privateKey: KeyObject): void {
  if (privateKey.asymmetricKeyType === 'rsa') return;
  if (privateKey.asymmetricKeyType === 'ec' && privateKey.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
    return;
  }
  throw new Error(`a CA key must be RSA or ECDSA on P-256, found ${describeKeyType(privateKey)}`);
}

/** The AlgorithmIdentifier of the signatures this issuer key makes. */
function signatureAlgorithm(privateKey: KeyObject): forge.asn1.Asn1 {
  const { asn1 } = forge;
  const rsa = privateKey.asymmetricKeyType === 'rsa';
  const oid = rsa ? forge.pki.oids.sha256WithRSAEncryption! : ECDSA_WITH_SHA256_OID;
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(oid).getBytes()),
    ...(rsa ? [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, '')] : []),
  ]);
}

/**
 * RFC 5280's key identifier (method 1): the SHA-1 of the subjectPublicKey BIT STRING's bytes.
 * forge computes it from its own (RSA-only) key, so ECDSA subjects get theirs from here.
 */
function keyIdentifierOf(subjectKey: KeyObject): forge.util.ByteStringBuffer {
  const der = subjectKey.export({ type: 'spki', format: 'der' }).toString('binary');
  // Kept as bytes: forge would otherwise parse a BIT STRING that looks like DER into its parts.
  const spki = fromDerWithOptions(der, { decodeBitStrings: false });
  const bitString = (spki.value as forge.asn1.Asn1[])[1]!.value as string;
  // The BIT STRING's first byte counts its unused bits (always 0 for a key).
  const digest = createHash('sha1')
    .update(Buffer.from(bitString.slice(1), 'binary'))
    .digest();
  return forge.util.createBuffer(digest.toString('binary'));
}

/** forge.pki has getTBSCertificate at run time; its typings leave it out. */
interface ForgeTbsBuilder {
  getTBSCertificate(certificate: forge.pki.Certificate): forge.asn1.Asn1;
}
const forgePki = forge.pki as typeof forge.pki & ForgeTbsBuilder;

/** forge.asn1.fromDer takes an options object at run time; its typings know only `strict`. */
const fromDerWithOptions = forge.asn1.fromDer as unknown as (
  bytes: string,
  options: { decodeBitStrings: boolean },
) => forge.asn1.Asn1;

// Indexes in a TBSCertificate with an explicit version: version, serial, signature, issuer,
// validity, subject, subjectPublicKeyInfo.
const TBS_SIGNATURE_INDEX = 2;
const TBS_ISSUER_INDEX = 3;
const TBS_SUBJECT_INDEX = 5;
const TBS_SUBJECT_PUBLIC_KEY_INDEX = 6;

let placeholder: forge.pki.rsa.PublicKey | undefined;
/** Any RSA public key: it only holds the place of the real (ECDSA) key while forge builds. */
function placeholderRsaKey(): forge.pki.rsa.PublicKey {
  placeholder ??= forge.pki.setRsaPublicKey(
    new forge.jsbn.BigInteger('c5', 16),
    new forge.jsbn.BigInteger('10001', 16),
  );
  return placeholder;
}

/** Builds, signs (SHA-256 with the issuer's RSA or ECDSA key) and PEM-encodes a certificate. */
export function signCertificate(spec: CertificateSpec, issuer: CertificateIssuer): string {
  assertSigningKey(issuer.privateKey);
  const certificate = forge.pki.createCertificate();
  const subjectKey = createPublicKey(spec.publicKeyPem);
  // forge encodes only RSA keys: an ECDSA key's SubjectPublicKeyInfo is put in after building.
  certificate.publicKey =
    subjectKey.asymmetricKeyType === 'rsa'
      ? forge.pki.publicKeyFromPem(spec.publicKeyPem)
      : placeholderRsaKey();
  certificate.generateSubjectKeyIdentifier = () => keyIdentifierOf(subjectKey);
  certificate.serialNumber = randomSerialNumber();
  certificate.validity.notBefore = spec.notBefore;
  certificate.validity.notAfter = spec.notAfter;
  const subject = 'raw' in spec.subject ? [] : nameAttributes(spec.subject);
  certificate.setSubject(subject);
  certificate.setIssuer(issuer.name === 'self' ? subject : []);
  certificate.setExtensions(spec.extensions);

  // forge encodes this OID with a NULL parameter; the TBS field is replaced just below.
  certificate.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption!;
  const algorithm = signatureAlgorithm(issuer.privateKey);
  const tbs = forgePki.getTBSCertificate(certificate);
  if (!Array.isArray(tbs.value)) throw new Error('forge built a TBSCertificate without fields');
  tbs.value[TBS_SIGNATURE_INDEX] = algorithm;
  if (issuer.name !== 'self') {
    // Copy the issuer's subject byte for byte: Go finds a parent by comparing raw issuer and subject.
    tbs.value[TBS_ISSUER_INDEX] = issuer.name;
  }
  if ('raw' in spec.subject) tbs.value[TBS_SUBJECT_INDEX] = spec.subject.raw;
  if (subjectKey.asymmetricKeyType !== 'rsa') {
    const spki = subjectKey.export({ type: 'spki', format: 'der' });
    tbs.value[TBS_SUBJECT_PUBLIC_KEY_INDEX] = forge.asn1.fromDer(spki.toString('binary'));
  }
  const { asn1 } = forge;
  const tbsDer = asn1.toDer(tbs).getBytes();
  // ECDSA signatures come DER-encoded (an Ecdsa-Sig-Value), as X.509 carries them.
  const signature = sign('sha256', Buffer.from(tbsDer, 'binary'), issuer.privateKey).toString('binary');
  const signed = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    tbs,
    algorithm,
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, `\0${signature}`),
  ]);
  return forge.pem
    .encode({ type: 'CERTIFICATE', body: asn1.toDer(signed).getBytes() })
    .replace(/\r\n/g, '\n');
}

/** A random positive 128-bit serial number as the hex of its minimal DER INTEGER content. */
export function randomSerialNumber(): string {
  for (;;) {
    const bytes = randomBytes(16);
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    if (bytes[start] === 0) continue;
    const hex = bytes.subarray(start).toString('hex');
    // DER INTEGERs are signed: a set top bit needs a leading zero byte to stay positive.
    return bytes[start]! >= 0x80 ? `00${hex}` : hex;
  }
}

/** Whole seconds: certificates carry no fractions, and callers compare what they set with what was encoded. */
export function toWholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** O attributes first and CN last, the order Go's pkix.Name writes (kubeadm's certificates look the same). */
function nameAttributes(name: DistinguishedName): forge.pki.CertificateField[] {
  if (name.commonName === '') {
    throw new Error('a certificate subject needs a non-empty common name');
  }
  const organizations = name.organizations ?? [];
  if (organizations.some((organization) => organization === '')) {
    throw new Error('organization (group) names must not be empty');
  }
  return [
    ...organizations.map((value) => nameAttribute('organizationName', value)),
    nameAttribute('commonName', name.commonName),
  ];
}

const PRINTABLE_STRING = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** PrintableString where the value allows it, else UTF8String, as Go's encoder chooses. */
function nameAttribute(name: string, value: string): forge.pki.CertificateField {
  const tag = PRINTABLE_STRING.test(value) ? forge.asn1.Type.PRINTABLESTRING : forge.asn1.Type.UTF8;
  // The typings declare valueTagClass as a tag class; forge reads it as the universal type number.
  return { name, value, valueTagClass: tag as number as forge.asn1.Class };
}
