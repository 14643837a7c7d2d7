// The CSR cleaner (pkg/controller/certificates/cleaner): every hour it deletes requests that
// have served their purpose — issued or denied or failed for over an hour, pending for over a
// day, or whose certificate has expired — since automated clients keep creating them.
import { X509Certificate } from 'node:crypto';
import type { CertificateSigningRequest } from '../../api/types/certificates-v1.generated.js';
import { type SharedInformer, sleep, waitForCacheSync } from '../../client/informers/index.js';
import { CSRS } from '../../client/resources.js';
import { isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import { firstPemBlock } from '../../pki/certificate-requests.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../context.js';

const SERVICE_ACCOUNT = 'certificate-controller';
const HOUR_MS = 60 * 60 * 1000;
const APPROVED_EXPIRATION_MS = HOUR_MS;
const DENIED_EXPIRATION_MS = HOUR_MS;
const PENDING_EXPIRATION_MS = 24 * HOUR_MS;

/** Why the cleaner deletes this CSR now, or undefined to keep it. */
export function cleanupReason(csr: CertificateSigningRequest, now: number): string | undefined {
  const conditions = csr.status?.conditions ?? [];
  const issued = (csr.status?.certificate ?? '') !== '';
  const olderThan = (time: string | undefined, ms: number) =>
    time !== undefined && time !== '' && now - Date.parse(time) > ms;
  const name = csr.metadata?.name ?? '';
  if (
    conditions.some(
      (c) => c.type === 'Approved' && issued && olderThan(c.lastUpdateTime, APPROVED_EXPIRATION_MS),
    )
  ) {
    return `Cleaning CSR "${name}" as it is more than 1h0m0s old and approved.`;
  }
  if (conditions.some((c) => c.type === 'Denied' && olderThan(c.lastUpdateTime, DENIED_EXPIRATION_MS))) {
    return `Cleaning CSR "${name}" as it is more than 1h0m0s old and denied.`;
  }
  if (conditions.some((c) => c.type === 'Failed' && olderThan(c.lastUpdateTime, DENIED_EXPIRATION_MS))) {
    return `Cleaning CSR "${name}" as it is more than 1h0m0s old and failed.`;
  }
  if (conditions.length === 0 && olderThan(csr.metadata?.creationTimestamp, PENDING_EXPIRATION_MS)) {
    return `Cleaning CSR "${name}" as it is more than 24h0m0s old and unhandled.`;
  }
  if (issued && conditions.some((c) => c.type === 'Approved') && certificateExpired(csr, now)) {
    return `Cleaning CSR "${name}" as the associated certificate is expired.`;
  }
  return undefined;
}

/** Whether the first certificate of status.certificate has passed its NotAfter (unparsable: no). */
function certificateExpired(csr: CertificateSigningRequest, now: number): boolean {
  const block = firstPemBlock(Buffer.from(csr.status?.certificate ?? '', 'base64').toString('latin1'));
  if (block === undefined) return false;
  try {
    return now > Date.parse(new X509Certificate(block.der).validTo);
  } catch {
    return false;
  }
}

export class CsrCleanerController implements RunnableController {
  private readonly csrs: SharedInformer<CertificateSigningRequest>;
  private readonly client: Client;
  private readonly periodMs: number;

  constructor(context: ControllerContext) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.periodMs = context.settings.csrCleanerPeriodMs;
    this.csrs = context.informers.informerFor<CertificateSigningRequest>(CSRS);
  }

  async run(signal: AbortSignal): Promise<void> {
    if (!(await waitForCacheSync(signal, [this.csrs]))) return;
    while (!signal.aborted) {
      await this.clean();
      await sleep(this.periodMs, signal);
    }
  }

  async clean(): Promise<void> {
    const now = Date.now();
    for (const csr of this.csrs.lister.list()) {
      if (cleanupReason(csr, now) === undefined) continue;
      const name = csr.metadata?.name ?? '';
      try {
        await this.client.resource<CertificateSigningRequest>(CSRS).delete('', name);
      } catch (error) {
        if (!isNotFound(error)) console.error(`csrcleaner: unable to delete CSR "${name}": ${String(error)}`);
      }
    }
  }
}

export const csrCleanerController: ControllerDescriptor = {
  name: 'csrcleaner',
  create: (context) => new CsrCleanerController(context),
};
