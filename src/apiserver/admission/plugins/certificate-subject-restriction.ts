/**
 * CertificateSubjectRestriction: a CSR for the kube-apiserver-client signer may not ask for the
 * system:masters group, which no RBAC rule could take away again.
 */
import { KUBE_APISERVER_CLIENT_SIGNER, requestPemOf } from '../../../api/certificate-signing-requests.js';
import type { CertificateSigningRequest } from '../../../api/types/certificates-v1.generated.js';
import { parseCertificateRequestPem } from '../../../pki/certificate-requests.js';
import { forbidden } from '../../status.js';
import type { AdmissionPlugin } from '../chain.js';

export const certificateSubjectRestrictionAdmission: AdmissionPlugin = {
  name: 'CertificateSubjectRestriction',
  validate(a) {
    if (a.operation !== 'CREATE' || a.subresource !== '') return;
    if (a.resource.group !== 'certificates.k8s.io' || a.resource.resource !== 'certificatesigningrequests')
      return;
    const csr = a.object as unknown as CertificateSigningRequest;
    if (csr.spec?.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return;
    const gr = { group: a.resource.group, resource: a.resource.resource };
    let organizations: string[];
    try {
      organizations = parseCertificateRequestPem(requestPemOf(csr)).organizations;
    } catch (error) {
      throw forbidden(gr, a.name, `failed to parse CSR: ${(error as Error).message}`);
    }
    if (organizations.includes('system:masters')) {
      throw forbidden(
        gr,
        a.name,
        `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`,
      );
    }
  },
};
