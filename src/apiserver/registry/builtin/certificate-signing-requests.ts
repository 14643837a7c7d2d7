import type { KubeObject } from '../../../api/object.js';
import type {
  CertificateSigningRequestCondition,
  CertificateSigningRequestSpec,
  CertificateSigningRequestStatus,
} from '../../../api/types/certificates-v1.generated.js';
import type { UserInfo } from '../../http/types.js';
import { timestamp } from '../object-meta.js';
import type { Strategy } from '../strategy.js';
import {
  validateCertificateSigningRequestCreate,
  validateCertificateSigningRequestUpdate,
} from '../validation/certificates/certificate-signing-request.js';

interface CsrShape {
  spec?: Partial<CertificateSigningRequestSpec>;
  status?: CertificateSigningRequestStatus;
}

/**
 * CertificateSigningRequests record who asked (the server fills spec.username, uid, groups and
 * extra) and are immutable but for their subresources: `approval` changes the conditions only,
 * `status` the certificate and the conditions other than Approved/Denied.
 */
export const certificateSigningRequestStrategy: Partial<Strategy> = {
  prepareForCreate(object: KubeObject, user?: UserInfo) {
    const csr = object as CsrShape;
    csr.spec ??= {};
    const spec = csr.spec;
    delete spec.username;
    delete spec.uid;
    delete spec.groups;
    delete spec.extra;
    if (user) {
      if (user.name !== '') spec.username = user.name;
      if (user.uid) spec.uid = user.uid;
      if (user.groups.length > 0) spec.groups = [...user.groups];
      const extra = Object.entries(user.extra ?? {});
      if (extra.length > 0) spec.extra = Object.fromEntries(extra.map(([key, values]) => [key, [...values]]));
    }
    // Users cannot create pre-approved requests.
    csr.status = {};
  },
  prepareForUpdate(object: KubeObject, old: KubeObject, subresource: string) {
    const csr = object as CsrShape;
    const previous = old as CsrShape;
    csr.spec = previous.spec as CertificateSigningRequestSpec;
    if (subresource === 'approval') {
      setCertificate(csr, previous.status?.certificate);
      populateConditionTimestamps(csr, previous);
      return;
    }
    setStatus(csr, previous.status);
  },
  prepareForStatusUpdate(object: KubeObject, old: KubeObject) {
    const csr = object as CsrShape;
    const previous = old as CsrShape;
    // A status write keeps the Approved/Denied conditions as stored; one that adds or drops
    // them gets the old conditions back, as kube-apiserver does for compatibility.
    if (!preserveConditions(csr, previous, 'Approved') || !preserveConditions(csr, previous, 'Denied')) {
      setConditions(csr, previous.status?.conditions);
    }
    populateConditionTimestamps(csr, previous);
  },
  validateCreate: validateCertificateSigningRequestCreate,
  validateUpdate: validateCertificateSigningRequestUpdate,
};

function preserveConditions(csr: CsrShape, old: CsrShape, type: string): boolean {
  const oldIndexes = indexesOf(old, type);
  const newIndexes = indexesOf(csr, type);
  if (oldIndexes.length !== newIndexes.length) return false;
  const conditions = csr.status?.conditions ?? [];
  newIndexes.forEach((index, i) => {
    conditions[index] = structuredClone(old.status!.conditions![oldIndexes[i]!]!);
  });
  return true;
}

function indexesOf(csr: CsrShape, type: string): number[] {
  const indexes: number[] = [];
  (csr.status?.conditions ?? []).forEach((condition, i) => {
    if (condition.type === type) indexes.push(i);
  });
  return indexes;
}

/** Missing lastUpdateTime becomes now; missing lastTransitionTime keeps that of a same type/status condition, else now. */
function populateConditionTimestamps(csr: CsrShape, old: CsrShape): void {
  const now = timestamp();
  for (const condition of csr.status?.conditions ?? []) {
    condition.lastUpdateTime ??= now;
    if (condition.lastTransitionTime === undefined) {
      const same = (old.status?.conditions ?? []).find(
        (o: CertificateSigningRequestCondition) =>
          o.type === condition.type && o.status === condition.status && o.lastTransitionTime !== undefined,
      );
      condition.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
  }
}

function setStatus(csr: CsrShape, status: CertificateSigningRequestStatus | undefined): void {
  if (status === undefined) delete csr.status;
  else csr.status = structuredClone(status);
}

function setCertificate(csr: CsrShape, certificate: string | undefined): void {
  csr.status ??= {};
  const status = csr.status;
  if (certificate === undefined) delete status.certificate;
  else status.certificate = certificate;
}

function setConditions(csr: CsrShape, conditions: CertificateSigningRequestCondition[] | undefined): void {
  csr.status ??= {};
  const status = csr.status;
  if (conditions === undefined) delete status.conditions;
  else status.conditions = structuredClone(conditions);
}
