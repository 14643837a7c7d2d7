// The front-proxy (request-header) PKI as kubeadm lays it out: a CA of its own (front-proxy-ca),
// apart from the cluster CA so its certificates authenticate nobody to kube-apiserver, and the
// client certificate (CN front-proxy-client) the aggregator presents to aggregated API servers,
// which trust the X-Remote-* headers of a request made with it.
import { join } from 'node:path';
import {
  type CertificateAuthority,
  certificateNotAfter,
  createCertificateAuthority,
  loadCertificateAuthority,
  parseCertificatePem,
} from './certificate-authority.js';
import { type IssuedCertificate, issueClientCertificate } from './certificates.js';
import {
  PkiFileError,
  PRIVATE_FILE_MODE,
  PUBLIC_FILE_MODE,
  readOptionalFile,
  writeFileAtomically,
} from './pki-files.js';

export const FRONT_PROXY_CA_COMMON_NAME = 'front-proxy-ca';
export const FRONT_PROXY_CLIENT_COMMON_NAME = 'front-proxy-client';
export const FRONT_PROXY_FILE_NAMES = {
  caCertificate: 'front-proxy-ca.crt',
  caKey: 'front-proxy-ca.key',
  clientCertificate: 'front-proxy-client.crt',
  clientKey: 'front-proxy-client.key',
} as const;

/** Client certificates this close to expiry are re-issued. */
const RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;

export interface FrontProxyPki {
  readonly ca: CertificateAuthority;
  readonly client: IssuedCertificate;
}

/** Loads the front-proxy CA and client certificate from `dir` (the cluster's pki/), making what is missing. */
export async function ensureFrontProxyPki(dir: string): Promise<FrontProxyPki> {
  const path = (name: keyof typeof FRONT_PROXY_FILE_NAMES) => join(dir, FRONT_PROXY_FILE_NAMES[name]);
  const [caPem, caKeyPem, clientPem, clientKeyPem] = await Promise.all([
    readOptionalFile(path('caCertificate')),
    readOptionalFile(path('caKey')),
    readOptionalFile(path('clientCertificate')),
    readOptionalFile(path('clientKey')),
  ]);
  let ca: CertificateAuthority;
  if (caPem !== undefined && caKeyPem !== undefined) {
    try {
      ca = loadCertificateAuthority(caPem, caKeyPem);
    } catch (error) {
      throw new PkiFileError(path('caCertificate'), (error as Error).message);
    }
  } else if (caPem === undefined && caKeyPem === undefined) {
    ca = await createCertificateAuthority({ commonName: FRONT_PROXY_CA_COMMON_NAME });
    await writeFileAtomically(path('caKey'), ca.privateKeyPem, PRIVATE_FILE_MODE);
    await writeFileAtomically(path('caCertificate'), ca.certificatePem, PUBLIC_FILE_MODE);
  } else {
    const missing = caPem === undefined ? path('caCertificate') : path('caKey');
    throw new PkiFileError(missing, 'file is missing but its pair exists; restore it or remove both');
  }
  if (clientPem !== undefined && clientKeyPem !== undefined && isCurrentClient(clientPem, ca)) {
    return { ca, client: { certificatePem: clientPem, privateKeyPem: clientKeyPem } };
  }
  const client = await issueClientCertificate(ca, { user: FRONT_PROXY_CLIENT_COMMON_NAME });
  await writeFileAtomically(path('clientKey'), client.privateKeyPem, PRIVATE_FILE_MODE);
  await writeFileAtomically(path('clientCertificate'), client.certificatePem, PUBLIC_FILE_MODE);
  return { ca, client };
}

/** Issued by this CA and not about to expire. */
function isCurrentClient(pem: string, ca: CertificateAuthority): boolean {
  try {
    const certificate = parseCertificatePem(pem);
    return (
      certificate.checkIssued(ca.certificate) &&
      certificate.verify(ca.certificate.publicKey) &&
      certificateNotAfter(certificate).getTime() - Date.now() > RENEW_BEFORE_MS
    );
  } catch {
    return false;
  }
}
