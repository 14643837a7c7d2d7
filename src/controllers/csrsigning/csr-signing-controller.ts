// The CSR signing controller (pkg/controller/certificates/signer): issues certificates for
// approved requests to the kubernetes.io signers it serves, from the cluster CA
// (`--cluster-signing-cert-file`/`-key-file`). A request that breaks its signer's rules gets a
// Failed condition (reason SignerValidationFailure) instead of a certificate.
import {
  hasTrueCondition,
  isApproved,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  KUBE_APISERVER_CLIENT_SIGNER,
  KUBELET_SERVING_SIGNER,
  LEGACY_UNKNOWN_SIGNER,
} from '../../api/certificate-signing-requests.js';
import type { CertificateSigningRequest } from '../../api/types/certificates-v1.generated.js';
import { Controller } from '../../client/controller.js';
import { rfc3339 } from '../../client/events/time.js';
import type { SharedInformer } from '../../client/informers/index.js';
import { CSRS } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import { type CertificateAuthority, loadCertificateAuthority } from '../../pki/certificate-authority.js';
import { signCertificateRequest } from '../../pki/certificate-request-signing.js';
import { type CertificateRequest, parseRequestOf } from '../../pki/certificate-requests.js';
import {
  kubeletClientRequestProblem,
  kubeletServingRequestProblem,
} from '../../pki/kubelet-certificate-requests.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';
import { IDLE_CONTROLLER } from '../context.js';

const SERVICE_ACCOUNT = 'certificate-controller';
/** Requested durations below this are raised to it (twice the 5-minute backdate). */
const MIN_DURATION_MS = 10 * 60 * 1000;

type SignerCheck = (request: CertificateRequest, usages: readonly string[]) => string | undefined;

/** The signers served, each with the rules its requests must follow. */
const SIGNER_CHECKS: Readonly<Record<string, SignerCheck>> = {
  [KUBELET_SERVING_SIGNER]: kubeletServingRequestProblem,
  [KUBE_APISERVER_CLIENT_KUBELET_SIGNER]: kubeletClientRequestProblem,
  [KUBE_APISERVER_CLIENT_SIGNER]: (_request, usages) => apiServerClientUsagesProblem(usages),
  // No restrictions: kept for compatibility with v1beta1 requests.
  [LEGACY_UNKNOWN_SIGNER]: () => undefined,
};

function apiServerClientUsagesProblem(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const usage of usages) {
    if (usage === 'client auth') clientAuth = true;
    else if (usage !== 'digital signature' && usage !== 'key encipherment') {
      return `invalid usage for client certificate: ${usage}`;
    }
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

/** The certificate lifetime: the cluster's signing duration, or the shorter one the CSR asks for. */
export function signingDurationMs(expirationSeconds: number | undefined, maxMs: number): number {
  if (expirationSeconds === undefined) return maxMs;
  return Math.max(MIN_DURATION_MS, Math.min(expirationSeconds * 1000, maxMs));
}

export class CsrSigningController {
  readonly controller: Controller;
  private readonly csrs: SharedInformer<CertificateSigningRequest>;
  private readonly client: Client;

  constructor(
    context: ControllerContext,
    private readonly ca: CertificateAuthority,
  ) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.maxDurationMs = context.settings.clusterSigningDurationMs;
    this.csrs = context.informers.informerFor<CertificateSigningRequest>(CSRS);
    this.controller = new Controller({ name: 'csrsigning', sync: (key) => this.sync(key), workers: 2 });
    this.controller.watch(this.csrs);
  }

  private readonly maxDurationMs: number;

  async sync(name: string): Promise<void> {
    const cached = this.csrs.lister.get('', name);
    if (!cached || cached.status?.certificate) return;
    if (!isApproved(cached) || hasTrueCondition(cached, 'Failed')) return;
    const check = SIGNER_CHECKS[cached.spec.signerName];
    if (check === undefined) return;
    const csr = structuredClone(cached);
    const request = parseRequestOf(csr);
    const csrClient = this.client.resource<CertificateSigningRequest>(CSRS);
    const usages = csr.spec.usages ?? [];
    const problem = check(request, usages);
    if (problem !== undefined) {
      const condition = {
        type: 'Failed',
        status: 'True',
        reason: 'SignerValidationFailure',
        message: problem,
        lastUpdateTime: rfc3339(Date.now()),
      };
      csr.status = { ...csr.status, conditions: [...(csr.status?.conditions ?? []), condition] };
      await csrClient.updateStatus(csr);
      return;
    }
    let certificatePem: string;
    try {
      certificatePem = signCertificateRequest(this.ca, request, {
        durationMs: signingDurationMs(csr.spec.expirationSeconds, this.maxDurationMs),
        usages,
      });
    } catch (error) {
      throw new Error(`error auto signing csr: ${(error as Error).message}`);
    }
    csr.status = { ...csr.status, certificate: Buffer.from(certificatePem).toString('base64') };
    await csrClient.updateStatus(csr);
  }
}

export const csrSigningController: ControllerDescriptor = {
  name: 'csrsigning',
  create(context) {
    const { clusterSigningCertPem, clusterSigningKeyPem } = context.settings;
    // Without a signing key the controller has nothing to sign with, as upstream without its files.
    if (!clusterSigningCertPem || !clusterSigningKeyPem) return IDLE_CONTROLLER;
    const ca = loadCertificateAuthority(clusterSigningCertPem, clusterSigningKeyPem);
    return new CsrSigningController(context, ca).controller;
  },
};
