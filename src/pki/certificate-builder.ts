import { createPublicKey, type KeyObject, randomBytes, sign } from 'node:crypto';
import forge from 'node-forge';

/**
 * Builds X.509 certificates with forge and signs them natively: forge's pure-JS RSA signing costs
 * ~80 ms a certificate on this machine, OpenSSL's a few hundred microseconds.
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
  privateKey: KeyObject;
}

/** forge.pki has getTBSCertificate at run time; its typings leave it out. */
interface ForgeTbsBuilder {
  getTBSCertificate(certificate: forge.pki.Certificate): forge.asn1.Asn1;
}
const forgePki = forge.pki as typeof forge.pki & ForgeTbsBuilder;

// Indexes in a TBSCertificate with an explicit version: version, serial, signature, issuer,
// validity, subject, subjectPublicKeyInfo.
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

/** Builds, signs (SHA-256 with RSA) and PEM-encodes a certificate. */
export function signCertificate(spec: CertificateSpec, issuer: CertificateIssuer): string {
  if (issuer.privateKey.asymmetricKeyType !== 'rsa') {
    throw new Error('only RSA issuer keys are supported');
  }
  const certificate = forge.pki.createCertificate();
  const subjectKey = createPublicKey(spec.publicKeyPem);
  // forge encodes only RSA keys: an ECDSA key's SubjectPublicKeyInfo is put in after building.
  certificate.publicKey =
    subjectKey.asymmetricKeyType === 'rsa'
      ? forge.pki.publicKeyFromPem(spec.publicKeyPem)
      : placeholderRsaKey();
  certificate.serialNumber = randomSerialNumber();
  certificate.validity.notBefore = spec.notBefore;
  certificate.validity.notAfter = spec.notAfter;
  const subject = 'raw' in spec.subject ? [] : nameAttributes(spec.subject);
  certificate.setSubject(subject);
  certificate.setIssuer(issuer.name === 'self' ? subject : []);
  certificate.setExtensions(spec.extensions);

  certificate.signatureOid = forge.pki.oids.sha256WithRSAEncryption!;
  certificate.siginfo.algorithmOid = certificate.signatureOid;
  const tbs = forgePki.getTBSCertificate(certificate);
  if (issuer.name !== 'self' && Array.isArray(tbs.value)) {
    // Copy the issuer's subject byte for byte: Go finds a parent by comparing raw issuer and subject.
    tbs.value[TBS_ISSUER_INDEX] = issuer.name;
  }
  if ('raw' in spec.subject && Array.isArray(tbs.value)) tbs.value[TBS_SUBJECT_INDEX] = spec.subject.raw;
  if (subjectKey.asymmetricKeyType !== 'rsa' && Array.isArray(tbs.value)) {
    const spki = subjectKey.export({ type: 'spki', format: 'der' });
    tbs.value[TBS_SUBJECT_PUBLIC_KEY_INDEX] = forge.asn1.fromDer(spki.toString('binary'));
  }
  certificate.tbsCertificate = tbs;
  const tbsDer = Buffer.from(forge.asn1.toDer(tbs).getBytes(), 'binary');
  certificate.signature = sign('sha256', tbsDer, issuer.privateKey).toString('binary');
  return forge.pki.certificateToPem(certificate).replace(/\r\n/g, '\n');
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
