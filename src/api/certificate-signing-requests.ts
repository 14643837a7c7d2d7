// Facts of the certificates.k8s.io CSR API shared by the apiserver and the controllers: the
// well-known signers and how a CSR's conditions read.
import type { CertificateSigningRequest } from './types/certificates-v1.generated.js';

export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';

/** Whether the CSR has a condition of this type with status True. */
export function hasTrueCondition(csr: CertificateSigningRequest, type: string): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** GetCertApprovalCondition: whether any Approved / Denied condition is present. */
export function approvalOf(csr: CertificateSigningRequest): { approved: boolean; denied: boolean } {
  const types = (csr.status?.conditions ?? []).map((c) => c.type);
  return { approved: types.includes('Approved'), denied: types.includes('Denied') };
}

/** IsCertificateRequestApproved: approved and not denied. */
export function isApproved(csr: CertificateSigningRequest): boolean {
  const { approved, denied } = approvalOf(csr);
  return approved && !denied;
}

/** spec.request (base64 of PEM on the wire) as PEM text. */
export function requestPemOf(csr: CertificateSigningRequest): string {
  return Buffer.from(csr.spec?.request ?? '', 'base64').toString('latin1');
}
