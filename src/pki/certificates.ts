import { createHash, X509Certificate } from 'node:crypto';
import {
  type CertificateAuthority,
  CLOCK_SKEW_MS,
  certificateNotAfter,
  parseCertificatePem,
} from './certificate-authority.js';
import { type ForgeExtension, signCertificate, toWholeSeconds } from './certificate-builder.js';
import {
  OID,
  readCertificateFields,
  readSubjectAltNames,
  readSubjectKeyIdentifier,
} from './certificate-fields.js';
import { ipAddressFromBytes, ipAddressToBytes } from './ip-address.js';
import { generateEcdsaKeyPair, type KeyPair } from './keys.js';

/** Leaf certificates live one year of 365 days, as kubeadm's. */
export const CERTIFICATE_VALIDITY_DAYS = 365;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface IssuedCertificate {
  certificatePem: string;
  /** PKCS#8 PEM. */
  privateKeyPem: string;
}

interface IssueOptions {
  /** The key pair to certify; a new RSA 2048 pair otherwise. */
  keyPair?: KeyPair;
  /** The time the certificate starts from (before backdating); now by default. */
  now?: Date;
}

export interface ServingCertificateRequest extends IssueOptions {
  commonName: string;
  dnsNames?: readonly string[];
  /** IPv4 or IPv6 addresses. */
  ipAddresses?: readonly string[];
}

export interface ClientCertificateRequest extends IssueOptions {
  /** The user name Kubernetes reads from the CN. */
  user: string;
  /** The groups Kubernetes reads from the O attributes. */
  groups?: readonly string[];
}

/** The user a client certificate names, as the apiserver's x509 authenticator reads it. */
export interface CertificateIdentity {
  user: string;
  groups: string[];
}

/** Issues a TLS server certificate (extKeyUsage serverAuth) for the given DNS names and IP addresses. */
export async function issueServingCertificate(
  ca: CertificateAuthority,
  request: ServingCertificateRequest,
): Promise<IssuedCertificate> {
  const dnsNames = request.dnsNames ?? [];
  const ipAddresses = (request.ipAddresses ?? []).map(ipAddressToBytes);
  if (dnsNames.length === 0 && ipAddresses.length === 0) {
    throw new Error('a serving certificate needs at least one DNS name or IP address');
  }
  const altNames = [
    ...dnsNames.map((dnsName) => ({ type: 2, value: dnsName })),
    ...ipAddresses.map((bytes) => ({ type: 7, value: bytes.toString('binary') })),
  ];
  return issue(ca, request, { commonName: request.commonName }, [
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ]);
}

/** Issues a TLS client certificate (extKeyUsage clientAuth): CN = user, one O per group. */
export async function issueClientCertificate(
  ca: CertificateAuthority,
  request: ClientCertificateRequest,
): Promise<IssuedCertificate> {
  return issue(ca, request, { commonName: request.user, organizations: request.groups ?? [] }, [
    { name: 'extKeyUsage', clientAuth: true },
  ]);
}

async function issue(
  ca: CertificateAuthority,
  options: IssueOptions,
  subject: { commonName: string; organizations?: readonly string[] },
  usageExtensions: ForgeExtension[],
): Promise<IssuedCertificate> {
  const keyPair = options.keyPair ?? (await generateEcdsaKeyPair());
  const now = options.now ?? new Date();
  const caFields = readCertificateFields(ca.certificate.raw);
  const caKeyIdentifier = readSubjectKeyIdentifier(caFields);
  // A certificate cannot outlive its CA: clients would reject it from then on anyway.
  const notAfter = Math.min(
    now.getTime() + CERTIFICATE_VALIDITY_DAYS * DAY_MS,
    certificateNotAfter(ca.certificate).getTime(),
  );
  const extensions: ForgeExtension[] = [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    ...usageExtensions,
  ];
  if (caKeyIdentifier !== undefined) {
    extensions.push({ name: 'authorityKeyIdentifier', keyIdentifier: caKeyIdentifier.toString('binary') });
  }
  const certificatePem = signCertificate(
    {
      subject,
      publicKeyPem: keyPair.publicKeyPem,
      notBefore: toWholeSeconds(new Date(now.getTime() - CLOCK_SKEW_MS)),
      notAfter: toWholeSeconds(new Date(notAfter)),
      extensions,
    },
    { name: caFields.subjectName, privateKey: ca.privateKey },
  );
  return { certificatePem, privateKeyPem: keyPair.privateKeyPem };
}

/**
 * The user and groups the apiserver's x509 authenticator takes from a client certificate: the
 * subject's CN (the last one, if several) and every O value in order. A certificate without a CN
 * authenticates no one, so it yields null. Takes PEM, DER bytes or an X509Certificate (as
 * `TLSSocket.getPeerX509Certificate()` returns).
 */
export function identityFromCertificate(
  certificate: string | Uint8Array | X509Certificate,
): CertificateIdentity | null {
  const { subjectAttributes } = readCertificateFields(toDer(certificate));
  let user = '';
  const groups: string[] = [];
  for (const { oid, value } of subjectAttributes) {
    if (value === undefined) continue;
    if (oid === OID.commonName) user = value;
    if (oid === OID.organizationName) groups.push(value);
  }
  return user === '' ? null : { user, groups };
}

/** The DNS names and IP addresses (canonical text) a certificate is valid for. */
export function certificateSubjectAltNames(certificate: string | Uint8Array | X509Certificate): {
  dnsNames: string[];
  ipAddresses: string[];
} {
  const names = readSubjectAltNames(readCertificateFields(toDer(certificate)));
  return { dnsNames: names.dnsNames, ipAddresses: names.ipAddresses.map(ipAddressFromBytes) };
}

/** The SHA-256 fingerprint of a certificate's DER as lowercase hex. */
export function certificateFingerprint(certificate: string | Uint8Array | X509Certificate): string {
  return createHash('sha256').update(toDer(certificate)).digest('hex');
}

function toDer(certificate: string | Uint8Array | X509Certificate): Buffer {
  if (certificate instanceof X509Certificate) return certificate.raw;
  if (typeof certificate === 'string') return parseCertificatePem(certificate).raw;
  return Buffer.from(certificate);
}
