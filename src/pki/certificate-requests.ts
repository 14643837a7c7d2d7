import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import forge from 'node-forge';
import { requestPemOf } from '../api/certificate-signing-requests.js';
import type { CertificateSigningRequest } from '../api/types/certificates-v1.generated.js';
import { ipAddressFromBytes, ipAddressToBytes } from './ip-address.js';

/**
 * PKCS#10 certificate signing requests: parsing and signature checks (what Go's
 * x509.ParseCertificateRequest and CheckSignature do for the CSR API), and building one (for
 * tests and clients). The DER is walked with forge's ASN.1 reader, which, unlike
 * forge.pki.certificationRequestFromPem, accepts ECDSA and Ed25519 keys.
 */

export const CERTIFICATE_REQUEST_BLOCK = 'CERTIFICATE REQUEST';

export interface CertificateRequest {
  /** The subject Name as ASN.1, to copy byte for byte into a certificate. */
  subjectName: forge.asn1.Asn1;
  /** The last CN, as Go's pkix.Name reads it; '' when there is none. */
  commonName: string;
  /** Every O value in order (Kubernetes reads them as groups). */
  organizations: string[];
  dnsNames: string[];
  /** Canonical text of each iPAddress SAN. */
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** SPKI PEM of the key the request is for. */
  publicKeyPem: string;
  /** DER of CertificationRequestInfo, the signed part. */
  signedDer: Buffer;
  signatureAlgorithm: string;
  signature: Buffer;
}

const OIDS = {
  commonName: '2.5.4.3',
  organizationName: '2.5.4.10',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
} as const;

/** Signature algorithm OIDs to the hash node:crypto verifies with (null: the key's own, Ed25519). */
const SIGNATURE_HASHES: Readonly<Record<string, string | null>> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** The first PEM block of `text` (pem.Decode skips anything before it), or undefined. */
export function firstPemBlock(text: string): { type: string; der: Buffer; hasHeaders: boolean } | undefined {
  const blocks = pemBlocks(text);
  return blocks[0];
}

/** Every PEM block of `text`, in order. */
export function pemBlocks(text: string): { type: string; der: Buffer; hasHeaders: boolean }[] {
  const pattern = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  const blocks: { type: string; der: Buffer; hasHeaders: boolean }[] = [];
  for (const match of text.matchAll(pattern)) {
    const body = match[2] ?? '';
    blocks.push({
      type: match[1] ?? '',
      der: Buffer.from(body.replace(/^[^:\n]+:.*$/gm, '').replace(/\s+/g, ''), 'base64'),
      hasHeaders: /^[^:\n]+:.*$/m.test(body),
    });
  }
  return blocks;
}

/**
 * Parses a PEM certificate request (Kubernetes' certificates.ParseCSR): the first PEM block
 * must be a CERTIFICATE REQUEST. Errors carry the text Go's parser gives.
 */
export function parseCertificateRequestPem(pem: string): CertificateRequest {
  const block = firstPemBlock(pem);
  if (block === undefined || block.type !== CERTIFICATE_REQUEST_BLOCK) {
    throw new Error('PEM block type must be CERTIFICATE REQUEST');
  }
  try {
    return parseCertificateRequestDer(block.der);
  } catch {
    throw new Error('x509: malformed certificate request');
  }
}

function parseCertificateRequestDer(der: Buffer): CertificateRequest {
  const [infoStart, infoEnd] = firstChildSpan(der);
  const request = fromDerKeepingBitStrings(der.toString('binary'));
  const [info, algorithm, signatureBits] = childrenOf(request);
  const [, subjectName, publicKeyInfo, attributes] = childrenOf(info);
  if (subjectName === undefined || publicKeyInfo === undefined) throw new Error('malformed');
  const subject = readSubject(subjectName);
  const sans = readRequestedSubjectAltNames(attributes);
  const spki = Buffer.from(forge.asn1.toDer(publicKeyInfo).getBytes(), 'binary');
  const publicKeyPem = createPublicKey({ key: spki, format: 'der', type: 'spki' })
    .export({ type: 'spki', format: 'pem' })
    .toString();
  const algorithmOid = forge.asn1.derToOid(bytesOf(childrenOf(algorithm)[0]).toString('binary'));
  return {
    subjectName,
    ...subject,
    ...sans,
    publicKeyPem,
    signedDer: der.subarray(infoStart, infoEnd),
    signatureAlgorithm: algorithmOid,
    // A BIT STRING's first content byte counts the unused bits of the last one.
    signature: bytesOf(signatureBits).subarray(1),
  };
}

/** The CSR object's spec.request, parsed; errors name the CSR as the certificate controllers' do. */
export function parseRequestOf(csr: CertificateSigningRequest): CertificateRequest {
  try {
    return parseCertificateRequestPem(requestPemOf(csr));
  } catch (error) {
    throw new Error(`unable to parse csr "${csr.metadata?.name ?? ''}": ${(error as Error).message}`);
  }
}

/** CheckSignature: the request is signed by the key it names. */
export function checkCertificateRequestSignature(request: CertificateRequest): void {
  const hash = SIGNATURE_HASHES[request.signatureAlgorithm];
  if (hash === undefined) throw new Error('x509: cannot verify signature: algorithm unimplemented');
  const key = createPublicKey(request.publicKeyPem);
  let valid = false;
  try {
    valid = verify(hash, request.signedDer, key, request.signature);
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new Error(
      key.asymmetricKeyType === 'rsa'
        ? 'crypto/rsa: verification error'
        : `x509: ${key.asymmetricKeyType === 'ec' ? 'ECDSA' : 'Ed25519'} verification failure`,
    );
  }
}

export interface CertificateRequestSubject {
  commonName: string;
  organizations?: readonly string[];
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

/**
 * Builds a PEM certificate request for `privateKey` (RSA: SHA-256 with RSA; ECDSA: ECDSA with
 * SHA-256), with O attributes then the CN, and the SANs in an extensionRequest attribute.
 */
export function createCertificateRequestPem(
  subject: CertificateRequestSubject,
  privateKeyPem: string,
): string {
  const { asn1 } = forge;
  const { Class, Type } = asn1;
  const privateKey: KeyObject = createPrivateKey(privateKeyPem);
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const attribute = (oid: string, value: string) =>
    asn1.create(Class.UNIVERSAL, Type.SET, true, [
      asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
        asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(oid).getBytes()),
        asn1.create(Class.UNIVERSAL, Type.UTF8, false, forge.util.encodeUtf8(value)),
      ]),
    ]);
  const name = asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
    ...(subject.organizations ?? []).map((o) => attribute(OIDS.organizationName, o)),
    ...(subject.commonName === '' ? [] : [attribute(OIDS.commonName, subject.commonName)]),
  ]);
  const altNames = [
    ...(subject.dnsNames ?? []).map((dns) => asn1.create(Class.CONTEXT_SPECIFIC, 2, false, dns)),
    ...(subject.ipAddresses ?? []).map((ip) =>
      asn1.create(Class.CONTEXT_SPECIFIC, 7, false, ipAddressToBytes(ip).toString('binary')),
    ),
  ];
  const attributes =
    altNames.length === 0
      ? []
      : [
          asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
            asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(OIDS.extensionRequest).getBytes()),
            asn1.create(Class.UNIVERSAL, Type.SET, true, [
              asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
                asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
                  asn1.create(
                    Class.UNIVERSAL,
                    Type.OID,
                    false,
                    asn1.oidToDer(OIDS.subjectAltName).getBytes(),
                  ),
                  asn1.create(
                    Class.UNIVERSAL,
                    Type.OCTETSTRING,
                    false,
                    asn1.toDer(asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, altNames)).getBytes(),
                  ),
                ]),
              ]),
            ]),
          ]),
        ];
  const info = asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
    asn1.create(Class.UNIVERSAL, Type.INTEGER, false, '\x00'),
    name,
    fromDerKeepingBitStrings(spki.toString('binary')),
    asn1.create(Class.CONTEXT_SPECIFIC, 0, true, attributes),
  ]);
  const infoDer = Buffer.from(asn1.toDer(info).getBytes(), 'binary');
  const isRsa = privateKey.asymmetricKeyType === 'rsa';
  const algorithmOid = isRsa ? '1.2.840.113549.1.1.11' : '1.2.840.10045.4.3.2';
  const signature = sign('sha256', infoDer, privateKey);
  const request = asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
    info,
    asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
      asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(algorithmOid).getBytes()),
      ...(isRsa ? [asn1.create(Class.UNIVERSAL, Type.NULL, false, '')] : []),
    ]),
    asn1.create(Class.UNIVERSAL, Type.BITSTRING, false, `\x00${signature.toString('binary')}`),
  ]);
  const der = Buffer.from(asn1.toDer(request).getBytes(), 'binary');
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${CERTIFICATE_REQUEST_BLOCK}-----\n${lines.join('\n')}\n-----END ${CERTIFICATE_REQUEST_BLOCK}-----\n`;
}

/** forge.asn1.fromDer without its guess that BIT STRINGs hold ASN.1 (signatures and keys stay bytes); the typings miss the options form. */
const fromDerKeepingBitStrings = (bytes: string): forge.asn1.Asn1 =>
  (
    forge.asn1.fromDer as unknown as (
      bytes: string,
      options: { decodeBitStrings: boolean },
    ) => forge.asn1.Asn1
  )(bytes, { decodeBitStrings: false });

function readSubject(name: forge.asn1.Asn1): { commonName: string; organizations: string[] } {
  let commonName = '';
  const organizations: string[] = [];
  for (const relativeName of childrenOf(name)) {
    for (const typeAndValue of childrenOf(relativeName)) {
      const [type, value] = childrenOf(typeAndValue);
      const oid = forge.asn1.derToOid(bytesOf(type).toString('binary'));
      const text = decodeText(value);
      if (oid === OIDS.commonName) commonName = text;
      if (oid === OIDS.organizationName) organizations.push(text);
    }
  }
  return { commonName, organizations };
}

function readRequestedSubjectAltNames(
  attributes: forge.asn1.Asn1 | undefined,
): Pick<CertificateRequest, 'dnsNames' | 'ipAddresses' | 'emailAddresses' | 'uris'> {
  const names = {
    dnsNames: [] as string[],
    ipAddresses: [] as string[],
    emailAddresses: [] as string[],
    uris: [] as string[],
  };
  if (attributes === undefined || !Array.isArray(attributes.value)) return names;
  for (const attribute of attributes.value) {
    const [type, values] = childrenOf(attribute);
    if (forge.asn1.derToOid(bytesOf(type).toString('binary')) !== OIDS.extensionRequest) continue;
    for (const extensions of childrenOf(values)) {
      for (const extension of childrenOf(extensions)) {
        const parts = childrenOf(extension);
        if (forge.asn1.derToOid(bytesOf(parts[0]).toString('binary')) !== OIDS.subjectAltName) continue;
        const generalNames = forge.asn1.fromDer(bytesOf(parts[parts.length - 1]).toString('binary'));
        for (const generalName of childrenOf(generalNames)) {
          if (generalName.tagClass !== forge.asn1.Class.CONTEXT_SPECIFIC) continue;
          const bytes = bytesOf(generalName);
          if (generalName.type === 1) names.emailAddresses.push(bytes.toString('latin1'));
          if (generalName.type === 2) names.dnsNames.push(bytes.toString('latin1'));
          if (generalName.type === 6) names.uris.push(bytes.toString('latin1'));
          if (generalName.type === 7) names.ipAddresses.push(ipAddressFromBytes(bytes));
        }
      }
    }
  }
  return names;
}

/** The byte span of the first element inside the outer SEQUENCE: the signed CertificationRequestInfo. */
function firstChildSpan(der: Buffer): [number, number] {
  const outerHeader = headerLength(der, 0);
  const start = outerHeader.header;
  const inner = headerLength(der, start);
  return [start, start + inner.header + inner.length];
}

function headerLength(der: Buffer, offset: number): { header: number; length: number } {
  const first = der[offset + 1];
  if (first === undefined) throw new Error('truncated');
  if (first < 0x80) return { header: 2, length: first };
  const count = first & 0x7f;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + (der[offset + 2 + i] ?? 0);
  return { header: 2 + count, length };
}

function decodeText(node: forge.asn1.Asn1 | undefined): string {
  const bytes = bytesOf(node);
  return node?.type === forge.asn1.Type.UTF8 ? bytes.toString('utf8') : bytes.toString('latin1');
}

function childrenOf(node: forge.asn1.Asn1 | undefined): forge.asn1.Asn1[] {
  if (node === undefined || !Array.isArray(node.value)) throw new Error('expected a constructed ASN.1 value');
  return node.value;
}

function bytesOf(node: forge.asn1.Asn1 | undefined): Buffer {
  if (node === undefined || typeof node.value !== 'string')
    throw new Error('expected a primitive ASN.1 value');
  return Buffer.from(node.value, 'binary');
}
