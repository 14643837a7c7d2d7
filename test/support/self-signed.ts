// A self-signed serving certificate for one host name (RSA, valid for an hour), as a TLS Secret
// holds it: for tests of servers that pick certificates by name.
import { generateKeyPairSync } from 'node:crypto';
import { signCertificate } from '../../src/pki/certificate-builder.js';

export interface CertificatePair {
  readonly cert: string;
  readonly key: string;
}

export function selfSignedCertificate(host: string): CertificatePair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = signCertificate(
    {
      subject: { commonName: host },
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 3600_000),
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: host }] }],
    },
    { name: 'self', privateKey },
  );
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
