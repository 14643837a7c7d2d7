import forge from 'node-forge';

/**
 * Reads the parts of an X.509 certificate that node:crypto's X509Certificate only offers as
 * display text: subject attributes, the raw subject name and extensions. It walks the DER with
 * forge's ASN.1 reader rather than forge.pki.certificateFromAsn1, which rejects non-RSA keys.
 */

export const OID = {
  commonName: '2.5.4.3',
  organizationName: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  subjectAltName: '2.5.29.17',
} as const;

export interface NameAttribute {
  oid: string;
  /** The decoded string, or undefined for a value that is not a string type. */
  value: string | undefined;
}

export interface CertificateExtension {
  critical: boolean;
  /** The DER inside the extnValue OCTET STRING. */
  value: Buffer;
}

export interface CertificateFields {
  /** The subject Name as a forge ASN.1 node, to copy byte for byte into the issuer of certificates it signs. */
  subjectName: forge.asn1.Asn1;
  subjectAttributes: NameAttribute[];
  extensions: Map<string, CertificateExtension>;
}

export interface SubjectAltNames {
  dnsNames: string[];
  /** 4 or 16 bytes each. */
  ipAddresses: Buffer[];
}

const { Class, Type } = forge.asn1;

// Tags of ASN.1 string types that forge's enum does not list.
const NUMERIC_STRING = 18;
const TELETEX_STRING = 20;
const VISIBLE_STRING = 26;

export function readCertificateFields(der: Uint8Array): CertificateFields {
  const certificate = forge.asn1.fromDer(Buffer.from(der).toString('binary'));
  const tbs = childrenOf(childrenOf(certificate)[0]);
  // The version field is an optional explicit [0] tag before the serial number.
  const offset = tbs[0]?.tagClass === Class.CONTEXT_SPECIFIC && tbs[0].type === 0 ? 1 : 0;
  const subjectName = tbs[offset + 4];
  if (subjectName === undefined) {
    throw new Error('malformed certificate: no subject');
  }
  const extensionsWrapper = tbs.find((node) => node.tagClass === Class.CONTEXT_SPECIFIC && node.type === 3);
  return {
    subjectName,
    subjectAttributes: readNameAttributes(subjectName),
    extensions: extensionsWrapper ? readExtensions(childrenOf(extensionsWrapper)[0]) : new Map(),
  };
}

export function readSubjectKeyIdentifier(fields: CertificateFields): Buffer | undefined {
  const extension = fields.extensions.get(OID.subjectKeyIdentifier);
  if (extension === undefined) {
    return undefined;
  }
  return bytesOf(forge.asn1.fromDer(extension.value.toString('binary')));
}

export function readSubjectAltNames(fields: CertificateFields): SubjectAltNames {
  const names: SubjectAltNames = { dnsNames: [], ipAddresses: [] };
  const extension = fields.extensions.get(OID.subjectAltName);
  if (extension === undefined) {
    return names;
  }
  for (const name of childrenOf(forge.asn1.fromDer(extension.value.toString('binary')))) {
    if (name.tagClass !== Class.CONTEXT_SPECIFIC) continue;
    if (name.type === 2) names.dnsNames.push(bytesOf(name).toString('latin1'));
    if (name.type === 7) names.ipAddresses.push(bytesOf(name));
  }
  return names;
}

function readNameAttributes(name: forge.asn1.Asn1): NameAttribute[] {
  const attributes: NameAttribute[] = [];
  for (const relativeName of childrenOf(name)) {
    for (const typeAndValue of childrenOf(relativeName)) {
      const [type, value] = childrenOf(typeAndValue);
      if (type === undefined || value === undefined) {
        throw new Error('malformed certificate: bad name attribute');
      }
      attributes.push({
        oid: forge.asn1.derToOid(bytesOf(type).toString('binary')),
        value: decodeString(value),
      });
    }
  }
  return attributes;
}

function readExtensions(sequence: forge.asn1.Asn1 | undefined): Map<string, CertificateExtension> {
  const extensions = new Map<string, CertificateExtension>();
  for (const extension of sequence ? childrenOf(sequence) : []) {
    const parts = childrenOf(extension);
    const oid = forge.asn1.derToOid(bytesOf(parts[0]).toString('binary'));
    const criticalNode = parts.length === 3 ? parts[1] : undefined;
    const critical = criticalNode !== undefined && bytesOf(criticalNode)[0] !== 0;
    extensions.set(oid, { critical, value: bytesOf(parts[parts.length - 1]) });
  }
  return extensions;
}

function decodeString(node: forge.asn1.Asn1): string | undefined {
  if (node.tagClass !== Class.UNIVERSAL || node.constructed) {
    return undefined;
  }
  const bytes = bytesOf(node);
  switch (node.type as number) {
    case Type.UTF8:
      return bytes.toString('utf8');
    case Type.PRINTABLESTRING:
    case Type.IA5STRING:
    case NUMERIC_STRING:
    case TELETEX_STRING:
    case VISIBLE_STRING:
      return bytes.toString('latin1');
    case Type.BMPSTRING:
      // UTF-16BE; an odd length cannot be decoded.
      return bytes.length % 2 === 0 ? Buffer.from(bytes).swap16().toString('utf16le') : undefined;
    default:
      return undefined;
  }
}

function childrenOf(node: forge.asn1.Asn1 | undefined): forge.asn1.Asn1[] {
  if (node === undefined || !Array.isArray(node.value)) {
    throw new Error('malformed certificate: expected a constructed ASN.1 value');
  }
  return node.value;
}

function bytesOf(node: forge.asn1.Asn1 | undefined): Buffer {
  if (node === undefined || typeof node.value !== 'string') {
    throw new Error('malformed certificate: expected a primitive ASN.1 value');
  }
  return Buffer.from(node.value, 'binary');
}
