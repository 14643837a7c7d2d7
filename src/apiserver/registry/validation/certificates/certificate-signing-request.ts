// CertificateSigningRequest validation (pkg/apis/certificates/validation): the request must be a
// signed PKCS#10 CSR, usages and signerName well-formed, conditions consistent, and
// status.certificate PEM certificates; updates may not drop conditions, and only the approval
// and status subresources may touch approval conditions and the certificate respectively.
import { X509Certificate } from 'node:crypto';
import { LEGACY_UNKNOWN_SIGNER } from '../../../../api/certificate-signing-requests.js';
import type { KubeObject } from '../../../../api/object.js';
import {
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  GoRendered,
  indexPath,
} from '../../../../api/selectors/field-errors.js';
import type {
  CertificateSigningRequestCondition,
  CertificateSigningRequestSpec,
  CertificateSigningRequestStatus,
} from '../../../../api/types/certificates-v1.generated.js';
import {
  checkCertificateRequestSignature,
  parseCertificateRequestPem,
  pemBlocks,
} from '../../../../pki/certificate-requests.js';
import { semanticEqual } from '../json.js';
import { DNS1123_LABEL_MAX_LENGTH, isDns1123Label, isDns1123Subdomain } from '../names.js';
import {
  fieldDuplicate,
  fieldTooLong,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';

/** The KeyUsage values the API accepts (certificates.k8s.io/v1 KeyUsage), sorted as Go's sets.List. */
export const VALID_USAGES: readonly string[] = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];

const TRUE_ONLY_CONDITIONS = new Set(['Approved', 'Denied', 'Failed']);
const ALL_STATUSES = ['False', 'True', 'Unknown'];
const MIN_EXPIRATION_SECONDS = 600;
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

interface CsrShape {
  metadata?: unknown;
  spec?: Partial<CertificateSigningRequestSpec>;
  status?: CertificateSigningRequestStatus;
}

/** What an update path may change, plus leniency for problems the stored object already has. */
interface ValidationOptions {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

export function validateCertificateSigningRequestCreate(object: KubeObject): FieldError[] {
  const csr = object as CsrShape;
  return validateCsr(csr, optionsFor(csr, undefined));
}

/** `subresource`: '' (main resource), 'status' or 'approval'. */
export function validateCertificateSigningRequestUpdate(
  object: KubeObject,
  old: KubeObject,
  subresource: string,
): FieldError[] {
  const next = object as CsrShape;
  const previous = old as CsrShape;
  const options = optionsFor(next, previous);
  if (subresource === 'status') options.allowSettingCertificate = true;
  if (subresource === 'approval') options.allowSettingApprovalConditions = true;
  const errors = validateCsr(next, options);
  for (const type of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOf(next, type).length < conditionsOf(previous, type).length) {
      errors.push(
        fieldForbidden('status.conditions', `updates may not remove a condition of type "${type}"`),
      );
    }
  }
  if (!options.allowSettingApprovalConditions) {
    for (const type of ['Approved', 'Denied']) {
      const before = conditionsOf(previous, type);
      const after = conditionsOf(next, type);
      if (after.length > before.length) {
        errors.push(fieldForbidden('status.conditions', `updates may not add a condition of type "${type}"`));
      } else if (after.length === before.length && !semanticEqual(before, after)) {
        errors.push(
          fieldForbidden(
            'status.conditions',
            `updates may not modify a condition of type "${type}"\n${conditionDiff(before, after)}`,
          ),
        );
      }
    }
  }
  const certificate = next.status?.certificate ?? '';
  const oldCertificate = previous.status?.certificate ?? '';
  if (certificate !== oldCertificate) {
    if (!options.allowSettingCertificate) {
      errors.push(fieldForbidden('status.certificate', 'updates may not set certificate content'));
    } else if (oldCertificate !== '') {
      errors.push(
        fieldForbidden('status.certificate', 'updates may not modify existing certificate content'),
      );
    }
  }
  return [...errors, ...validateObjectMetaUpdate(next.metadata, previous.metadata)];
}

function validateCsr(csr: CsrShape, options: ValidationOptions): FieldError[] {
  const errors = validateObjectMeta(csr.metadata, { namespaced: false, name: () => [] });
  const spec = csr.spec ?? {};
  const request = Buffer.from(spec.request ?? '', 'base64');
  try {
    checkCertificateRequestSignature(parseCertificateRequestPem(request.toString('latin1')));
  } catch (error) {
    errors.push(fieldInvalid('spec.request', goBytes(request), (error as Error).message));
  }
  const usages = spec.usages ?? [];
  if (usages.length === 0) errors.push(fieldRequired('spec.usages', ''));
  if (!options.allowUnknownUsages) {
    usages.forEach((usage, i) => {
      if (!VALID_USAGES.includes(usage))
        errors.push(fieldNotSupported(indexPath('spec.usages', i), usage, VALID_USAGES));
    });
  }
  if (!options.allowDuplicateUsages) {
    usages.forEach((usage, i) => {
      if (usages.indexOf(usage) < i) errors.push(fieldDuplicate(indexPath('spec.usages', i), usage));
    });
  }
  const signerName = spec.signerName ?? '';
  if (!options.allowLegacySignerName && signerName === LEGACY_UNKNOWN_SIGNER) {
    errors.push(
      fieldInvalid(
        'spec.signerName',
        signerName,
        'the legacy signerName is not allowed via this API version',
      ),
    );
  } else {
    errors.push(...validateSignerName('spec.signerName', signerName));
  }
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds < MIN_EXPIRATION_SECONDS) {
    errors.push(
      fieldInvalid(
        'spec.expirationSeconds',
        spec.expirationSeconds,
        'may not specify a duration less than 600 seconds (10 minutes)',
      ),
    );
  }
  errors.push(...validateConditions(csr, options));
  if (!options.allowArbitraryCertificate) {
    const problem = certificateProblem(csr.status?.certificate ?? '');
    if (problem !== undefined) errors.push(fieldInvalid('status.certificate', '<certificate data>', problem));
  }
  return errors;
}

function validateConditions(csr: CsrShape, options: ValidationOptions): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  (csr.status?.conditions ?? []).forEach((condition, i) => {
    const path = indexPath('status.conditions', i);
    const type = condition.type ?? '';
    if (!options.allowEmptyConditionType && type === '') errors.push(fieldRequired(`${path}.type`, ''));
    const allowed = TRUE_ONLY_CONDITIONS.has(type) ? ['True'] : ALL_STATUSES;
    const status = condition.status ?? '';
    if (status === '') errors.push(fieldRequired(`${path}.status`, ''));
    else if (!allowed.includes(status)) errors.push(fieldNotSupported(`${path}.status`, status, allowed));
    if (!options.allowBothApprovedAndDenied) {
      if (type === 'Approved') approved = true;
      if (type === 'Denied') denied = true;
      if ((type === 'Approved' && denied) || (type === 'Denied' && approved)) {
        errors.push(
          fieldInvalid(`${path}.type`, type, 'Approved and Denied conditions are mutually exclusive'),
        );
      }
    }
    if (!options.allowDuplicateConditionTypes) {
      if (seen.has(type)) errors.push(fieldDuplicate(`${path}.type`, type));
      seen.add(type);
    }
  });
  return errors;
}

/**
 * ValidateSignerName: `<domain>/<path>` where the domain is DNS labels with at least one dot and
 * the path dot-separated DNS subdomains.
 */
export function validateSignerName(path: string, signerName: string): FieldError[] {
  if (signerName === '') return [fieldRequired(path, '')];
  const segments = signerName.split('/');
  if (segments.length !== 2) {
    return [
      fieldInvalid(
        path,
        signerName,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'",
      ),
    ];
  }
  const [domain = '', signerPath = ''] = segments;
  const errors: FieldError[] = [];
  if (domain.length > DNS1123_SUBDOMAIN_MAX_LENGTH)
    errors.push(fieldTooLong(path, DNS1123_SUBDOMAIN_MAX_LENGTH));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const problems = isDns1123Label(label);
    for (const problem of problems)
      errors.push(fieldInvalid(path, domain, `validating label "${label}": ${problem}`));
    if (problems.length > 0) break;
  }
  if (domainLabels.length < 2) {
    errors.push(
      fieldInvalid(path, domain, 'should be a domain with at least two segments separated by dots'),
    );
  }
  for (const label of signerPath.split('.')) {
    const problems = isDns1123Subdomain(label);
    for (const problem of problems)
      errors.push(fieldInvalid(path, signerPath, `validating label "${label}": ${problem}`));
    if (problems.length > 0) break;
  }
  const maxLength = DNS1123_SUBDOMAIN_MAX_LENGTH * 2 + DNS1123_LABEL_MAX_LENGTH + 2;
  if (signerName.length > maxLength) errors.push(fieldTooLong(path, maxLength));
  return errors;
}

/** validateCertificate: '' or one or more CERTIFICATE PEM blocks without headers. */
function certificateProblem(base64: string): string | undefined {
  const data = Buffer.from(base64, 'base64').toString('latin1');
  if (data === '') return undefined;
  const blocks = pemBlocks(data);
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${block.type}"`;
    if (block.hasHeaders) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(block.der);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return blocks.length === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

function optionsFor(next: CsrShape, old: CsrShape | undefined): ValidationOptions {
  const types = (old?.status?.conditions ?? []).map((c) => c.type ?? '');
  const oldUsages = old?.spec?.usages ?? [];
  const oldCertificate = old?.status?.certificate ?? '';
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: types.includes('Approved') && types.includes('Denied'),
    allowLegacySignerName: old?.spec?.signerName === LEGACY_UNKNOWN_SIGNER,
    allowDuplicateConditionTypes: new Set(types).size !== types.length,
    allowEmptyConditionType: types.includes(''),
    allowArbitraryCertificate:
      old !== undefined &&
      ((next.status?.certificate ?? '') === oldCertificate ||
        certificateProblem(oldCertificate) !== undefined),
    allowUnknownUsages: oldUsages.some((usage) => !VALID_USAGES.includes(usage)),
    allowDuplicateUsages: new Set(oldUsages).size !== oldUsages.length,
  };
}

function conditionsOf(csr: CsrShape, type: string): CertificateSigningRequestCondition[] {
  return (csr.status?.conditions ?? []).filter((condition) => condition.type === type);
}

/** A short stand-in for cmp.Diff's report: the old and the new conditions. */
function conditionDiff(before: unknown, after: unknown): string {
  return `- ${JSON.stringify(before)}\n+ ${JSON.stringify(after)}`;
}

/** A []byte as Go's %#v prints it. */
function goBytes(bytes: Buffer): GoRendered {
  if (bytes.length === 0) return new GoRendered('[]byte(nil)');
  return new GoRendered(`[]byte{${[...bytes].map((b) => `0x${b.toString(16)}`).join(', ')}}`);
}
