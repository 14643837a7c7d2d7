import forge from 'node-forge';
import type { CertificateAuthority } from './certificate-authority.js';
import { certificateNotAfter } from './certificate-authority.js';
import { type ForgeExtension, signCertificate, toWholeSeconds } from './certificate-builder.js';
import { readCertificateFields, readSubjectKeyIdentifier } from './certificate-fields.js';
import type { CertificateRequest } from './certificate-requests.js';
import { ipAddressToBytes } from './ip-address.js';

/**
 * Signs a parsed certificate request the way kube-controller-manager's local signer does
 * (its PermissiveSigningPolicy): the request's subject and SANs are kept, its other
 * extensions dropped; key usages come from the CSR's spec.usages; the certificate is no CA.
 */

/** Backdating of NotBefore; always below the shortest duration a CSR may ask for (10 minutes). */
export const SIGNING_BACKDATE_MS = 5 * 60 * 1000;
/** Certificates shorter than this are not backdated at their end (5 minutes is ~1% of 8 hours). */
const SHORT_CERTIFICATE_MS = 8 * 60 * 60 * 1000;

/** spec.usages values that are X.509 key usage bits, in forge's names. */
const KEY_USAGES: Readonly<Record<string, string>> = {
  signing: 'digitalSignature',
  'digital signature': 'digitalSignature',
  'content commitment': 'nonRepudiation',
  'key encipherment': 'keyEncipherment',
  'key agreement': 'keyAgreement',
  'data encipherment': 'dataEncipherment',
  'cert sign': 'keyCertSign',
  'crl sign': 'cRLSign',
  'encipher only': 'encipherOnly',
  'decipher only': 'decipherOnly',
};

/** spec.usages values that are extended key usages: Go's ExtKeyUsage order, and the OID of each. */
const EXT_KEY_USAGES: Readonly<Record<string, readonly [number, string]>> = {
  any: [0, '2.5.29.37.0'],
  'server auth': [1, '1.3.6.1.5.5.7.3.1'],
  'client auth': [2, '1.3.6.1.5.5.7.3.2'],
  'code signing': [3, '1.3.6.1.5.5.7.3.3'],
  'email protection': [4, '1.3.6.1.5.5.7.3.4'],
  's/mime': [4, '1.3.6.1.5.5.7.3.4'],
  'ipsec end system': [5, '1.3.6.1.5.5.7.3.5'],
  'ipsec tunnel': [6, '1.3.6.1.5.5.7.3.6'],
  'ipsec user': [7, '1.3.6.1.5.5.7.3.7'],
  timestamping: [8, '1.3.6.1.5.5.7.3.8'],
  'ocsp signing': [9, '1.3.6.1.5.5.7.3.9'],
  'microsoft sgc': [10, '1.3.6.1.4.1.311.10.3.3'],
  'netscape sgc': [11, '2.16.840.1.113730.4.1'],
};

export interface SigningPolicy {
  /** The certificate's lifetime. */
  readonly durationMs: number;
  /** The CSR's spec.usages. */
  readonly usages: readonly string[];
  readonly now?: Date;
}

/** Signs `request` with `ca`; returns the certificate as PEM. Errors read as upstream's. */
export function signCertificateRequest(
  ca: CertificateAuthority,
  request: CertificateRequest,
  policy: SigningPolicy,
): string {
  const now = policy.now ?? new Date();
  const caNotAfter = certificateNotAfter(ca.certificate);
  const extensions = usageExtensions(policy.usages);
  const notBefore = new Date(now.getTime() - SIGNING_BACKDATE_MS);
  const end =
    policy.durationMs < SHORT_CERTIFICATE_MS
      ? now.getTime() + policy.durationMs
      : now.getTime() + policy.durationMs - SIGNING_BACKDATE_MS;
  const notAfter = new Date(Math.min(end, caNotAfter.getTime()));
  const goTime = caNotAfter
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' +0000 UTC');
  if (notBefore.getTime() >= caNotAfter.getTime())
    throw new Error(`the signer has expired: NotAfter=${goTime}`);
  if (now.getTime() >= caNotAfter.getTime()) {
    throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${goTime}`);
  }
  const caFields = readCertificateFields(ca.certificate.raw);
  const caKeyIdentifier = readSubjectKeyIdentifier(caFields);
  const altNames = [
    ...request.emailAddresses.map((email) => ({ type: 1, value: email })),
    ...request.dnsNames.map((dns) => ({ type: 2, value: dns })),
    ...request.uris.map((uri) => ({ type: 6, value: uri })),
    ...request.ipAddresses.map((ip) => ({ type: 7, value: ipAddressToBytes(ip).toString('binary') })),
  ];
  if (altNames.length > 0) extensions.push({ name: 'subjectAltName', altNames });
  extensions.push({ name: 'basicConstraints', cA: false, critical: true });
  if (caKeyIdentifier !== undefined) {
    extensions.push({ name: 'authorityKeyIdentifier', keyIdentifier: caKeyIdentifier.toString('binary') });
  }
  return signCertificate(
    {
      subject: { raw: request.subjectName },
      publicKeyPem: request.publicKeyPem,
      notBefore: toWholeSeconds(notBefore),
      notAfter: toWholeSeconds(notAfter),
      extensions,
    },
    { name: caFields.subjectName, privateKey: ca.privateKey },
  );
}

/** keyUsage (critical, when any bit is set) and extKeyUsage in Go's order. */
function usageExtensions(usages: readonly string[]): ForgeExtension[] {
  const keyUsage: ForgeExtension = { name: 'keyUsage', critical: true };
  const extended = new Map<number, string>();
  const unrecognized: string[] = [];
  for (const usage of usages) {
    const bit = KEY_USAGES[usage];
    const ext = EXT_KEY_USAGES[usage];
    if (bit !== undefined) keyUsage[bit] = true;
    else if (ext !== undefined) extended.set(ext[0], ext[1]);
    else unrecognized.push(usage);
  }
  if (unrecognized.length > 0) {
    throw new Error(`unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(' ')}]`);
  }
  const extensions: ForgeExtension[] = [];
  if (Object.keys(keyUsage).length > 2) extensions.push(keyUsage);
  if (extended.size > 0) {
    // Encoded here: forge's own extKeyUsage builder knows only five usages by name.
    const { asn1 } = forge;
    const oids = [...extended.entries()].sort((a, b) => a[0] - b[0]).map(([, oid]) => oid);
    const value = asn1.create(
      asn1.Class.UNIVERSAL,
      asn1.Type.SEQUENCE,
      true,
      oids.map((oid) =>
        asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(oid).getBytes()),
      ),
    );
    extensions.push({ name: 'extKeyUsage', value });
  }
  return extensions;
}
