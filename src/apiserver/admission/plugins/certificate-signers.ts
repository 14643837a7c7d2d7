/**
 * CertificateApproval and CertificateSigning: approving a CSR (its `approval` subresource) needs
 * `approve`, and issuing its certificate (a `status` write that changes status.certificate)
 * needs `sign`, on the `signers` resource named by the CSR's signerName or by `<domain>/*`.
 */
import type { CertificateSigningRequest } from '../../../api/types/certificates-v1.generated.js';
import { type Authorizer, resourceAttributes } from '../../auth/rbac/index.js';
import type { UserInfo } from '../../http/types.js';
import { forbidden } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';

const CERTIFICATES_GROUP = 'certificates.k8s.io';

/** IsAuthorizedForSignerName: `verb` on signers/<signerName>, or on signers/<domain>/*. */
export function isAuthorizedForSignerName(
  authorizer: Authorizer,
  user: UserInfo,
  verb: string,
  signerName: string,
): boolean {
  const check = (name: string) =>
    authorizer.authorize(
      resourceAttributes(user, verb, {
        apiGroup: CERTIFICATES_GROUP,
        apiVersion: '*',
        resource: 'signers',
        name,
      }),
    ).decision === 'allow';
  return check(signerName) || check(`${signerName.split('/')[0]}/*`);
}

function isCsrWrite(a: AdmissionAttributes, subresource: string): boolean {
  return (
    a.operation === 'UPDATE' &&
    a.subresource === subresource &&
    a.resource.group === CERTIFICATES_GROUP &&
    a.resource.resource === 'certificatesigningrequests'
  );
}

function rejection(a: AdmissionAttributes, why: string) {
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, why);
}

export function certificateApprovalAdmission(authorizer: Authorizer): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    validate(a) {
      if (!isCsrWrite(a, 'approval') || !a.user) return;
      // The old object's signer counts: the approval endpoint cannot change it anyway.
      const signerName =
        (a.oldObject as unknown as CertificateSigningRequest | undefined)?.spec?.signerName ?? '';
      if (!isAuthorizedForSignerName(authorizer, a.user, 'approve', signerName)) {
        throw rejection(a, `user not permitted to approve requests with signerName "${signerName}"`);
      }
    },
  };
}

export function certificateSigningAdmission(authorizer: Authorizer): AdmissionPlugin {
  return {
    name: 'CertificateSigning',
    validate(a) {
      if (!isCsrWrite(a, 'status') || !a.user) return;
      const old = a.oldObject as unknown as CertificateSigningRequest | undefined;
      const csr = a.object as unknown as CertificateSigningRequest;
      if ((old?.status?.certificate ?? '') === (csr.status?.certificate ?? '')) return;
      const signerName = old?.spec?.signerName ?? '';
      if (!isAuthorizedForSignerName(authorizer, a.user, 'sign', signerName)) {
        throw rejection(a, `user not permitted to sign requests with signerName "${signerName}"`);
      }
    },
  };
}
