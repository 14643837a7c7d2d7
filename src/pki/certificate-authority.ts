import { type KeyObject, X509Certificate } from 'node:crypto';
import { assertSigningKey, signCertificate, toWholeSeconds } from './certificate-builder.js';
import { generateEcdsaKeyPair, isSamePublicKey, type KeyPair, parsePrivateKeyPem } from './keys.js';

/** kubeadm's CA lifetime: ten years of 365 days. */
export const CA_VALIDITY_DAYS = 3650;

/** Backdating covers clocks of nodes a little behind the host's. */
export const CLOCK_SKEW_MS = 60_000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A CA certificate with its private key, ready to issue certificates. */
export interface CertificateAuthority {
  certificatePem: string;
  /** PKCS#8 when tkube made it; whatever form it was loaded from otherwise. */
  privateKeyPem: string;
  certificate: X509Certificate;
  privateKey: KeyObject;
}

export interface CreateCertificateAuthorityOptions {
  /** The CA's CN; Kubernetes clusters usually call theirs `kubernetes`. */
  commonName: string;
  /**
   * An existing key pair (RSA, or ECDSA P-256) to certify; a new ECDSA P-256 pair otherwise, as
   * kubeadm's ECDSA-P256 and k3s make: an RSA 2048 key costs a few hundred milliseconds of CPU.
   */
  keyPair?: KeyPair;
  /** The time the CA starts from (before backdating); now by default. */
  now?: Date;
}

/** Creates a self-signed CA valid for ten years. */
export async function createCertificateAuthority(
  options: CreateCertificateAuthorityOptions,
): Promise<CertificateAuthority> {
  const keyPair = options.keyPair ?? (await generateEcdsaKeyPair());
  const privateKey = parsePrivateKeyPem(keyPair.privateKeyPem);
  assertSigningKey(privateKey);
  const now = options.now ?? new Date();
  const certificatePem = signCertificate(
    {
      subject: { commonName: options.commonName },
      publicKeyPem: keyPair.publicKeyPem,
      notBefore: toWholeSeconds(new Date(now.getTime() - CLOCK_SKEW_MS)),
      notAfter: toWholeSeconds(new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS)),
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
        { name: 'subjectKeyIdentifier' },
      ],
    },
    { name: 'self', privateKey },
  );
  return {
    certificatePem,
    privateKeyPem: keyPair.privateKeyPem,
    certificate: new X509Certificate(certificatePem),
    privateKey,
  };
}

/**
 * Loads a CA from PEM and checks that it can issue: the certificate says CA:TRUE and has not
 * expired, and the key is the one it certifies, RSA or ECDSA P-256. Errors say which of these failed.
 */
export function loadCertificateAuthority(
  certificatePem: string,
  privateKeyPem: string,
): CertificateAuthority {
  const certificate = parseCertificatePem(certificatePem);
  const privateKey = parsePrivateKeyPem(privateKeyPem);
  if (!certificate.ca) {
    throw new Error(`certificate "${certificate.subject}" is not a CA (basicConstraints CA:TRUE is missing)`);
  }
  const notAfter = certificateNotAfter(certificate);
  if (notAfter.getTime() <= Date.now()) {
    throw new Error(`CA certificate expired at ${notAfter.toISOString()}`);
  }
  if (!isSamePublicKey(privateKey, certificate.publicKey)) {
    throw new Error('private key does not match the CA certificate');
  }
  assertSigningKey(privateKey);
  return { certificatePem, privateKeyPem, certificate, privateKey };
}

/** Parses the first certificate of a PEM text, with an error that says what was wrong. */
export function parseCertificatePem(pem: string): X509Certificate {
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error('no PEM certificate found (expected a "CERTIFICATE" block)');
  }
  try {
    return new X509Certificate(pem);
  } catch (error) {
    throw new Error(
      `cannot parse the PEM certificate: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export function certificateNotBefore(certificate: X509Certificate): Date {
  return new Date(certificate.validFrom);
}

export function certificateNotAfter(certificate: X509Certificate): Date {
  return new Date(certificate.validTo);
}
