// The CSR approving controller (pkg/controller/certificates/approver): approves kubelet client
// certificate requests (signer kube-apiserver-client-kubelet) whose requester a
// SubjectAccessReview allows to create certificatesigningrequests/selfnodeclient (a node renewing
// its own certificate) or /nodeclient (a bootstrapper asking for any node's).
import { approvalOf, KUBE_APISERVER_CLIENT_KUBELET_SIGNER } from '../../api/certificate-signing-requests.js';
import type { SubjectAccessReview } from '../../api/types/authorization-v1.generated.js';
import type {
  CertificateSigningRequest,
  CertificateSigningRequestCondition,
} from '../../api/types/certificates-v1.generated.js';
import { Controller } from '../../client/controller.js';
import type { SharedInformer } from '../../client/informers/index.js';
import { CSRS, SUBJECT_ACCESS_REVIEWS } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import { type CertificateRequest, parseRequestOf } from '../../pki/certificate-requests.js';
import { kubeletClientRequestProblem } from '../../pki/kubelet-certificate-requests.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';

const SERVICE_ACCOUNT = 'certificate-controller';

interface Recognizer {
  recognize(csr: CertificateSigningRequest, request: CertificateRequest): boolean;
  /** The subresource of certificatesigningrequests the requester must be allowed to create. */
  subresource: string;
  message: string;
}

const isNodeClientCert = (csr: CertificateSigningRequest, request: CertificateRequest): boolean =>
  csr.spec.signerName === KUBE_APISERVER_CLIENT_KUBELET_SIGNER &&
  kubeletClientRequestProblem(request, csr.spec.usages ?? []) === undefined;

const RECOGNIZERS: readonly Recognizer[] = [
  {
    recognize: (csr, request) => csr.spec.username === request.commonName && isNodeClientCert(csr, request),
    subresource: 'selfnodeclient',
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  {
    recognize: isNodeClientCert,
    subresource: 'nodeclient',
    message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
  },
];

/** A request recognized but not allowed: retried with backoff, logged by no one (upstream's IgnorableError). */
class NotApprovedError extends Error {}

export class CsrApprovingController {
  readonly controller: Controller;
  private readonly csrs: SharedInformer<CertificateSigningRequest>;
  private readonly client: Client;

  constructor(context: ControllerContext) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.csrs = context.informers.informerFor<CertificateSigningRequest>(CSRS);
    this.controller = new Controller({
      name: 'csrapproving',
      sync: (key) => this.sync(key),
      maxRetries: Number.POSITIVE_INFINITY,
      log: (message) => {
        if (!message.includes(NOT_APPROVED_MARK)) console.error(message);
      },
    });
    this.controller.watch(this.csrs);
  }

  async sync(name: string): Promise<void> {
    const cached = this.csrs.lister.get('', name);
    if (!cached || cached.status?.certificate) return;
    const { approved, denied } = approvalOf(cached);
    if (approved || denied) return;
    const csr = structuredClone(cached);
    const request = parseRequestOf(csr);
    const tried: string[] = [];
    for (const recognizer of RECOGNIZERS) {
      if (!recognizer.recognize(csr, request)) continue;
      tried.push(recognizer.subresource);
      if (!(await this.authorize(csr, recognizer.subresource))) continue;
      const condition: CertificateSigningRequestCondition = {
        type: 'Approved',
        status: 'True',
        reason: 'AutoApproved',
        message: recognizer.message,
      };
      csr.status = { ...csr.status, conditions: [...(csr.status?.conditions ?? []), condition] };
      await this.client.resource<CertificateSigningRequest>(CSRS).update(csr, { subresource: 'approval' });
      return;
    }
    if (tried.length > 0) {
      throw new NotApprovedError(`recognized csr "${name}" as [${tried.join(' ')}] but ${NOT_APPROVED_MARK}`);
    }
  }

  private async authorize(csr: CertificateSigningRequest, subresource: string): Promise<boolean> {
    const review = await this.client.resource<SubjectAccessReview>(SUBJECT_ACCESS_REVIEWS).create({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: csr.spec.username,
        uid: csr.spec.uid,
        groups: csr.spec.groups,
        extra: csr.spec.extra,
        resourceAttributes: {
          group: 'certificates.k8s.io',
          resource: 'certificatesigningrequests',
          verb: 'create',
          subresource,
        },
      },
    });
    return review.status?.allowed === true;
  }
}

const NOT_APPROVED_MARK = 'subject access review was not approved';

export const csrApprovingController: ControllerDescriptor = {
  name: 'csrapproving',
  create: (context) => new CsrApprovingController(context).controller,
};
