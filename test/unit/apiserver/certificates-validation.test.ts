// CertificateSigningRequest validation and signer checks without a server: field paths and
// messages as kube-apiserver reports them.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { fieldErrorMessage } from '../../../src/api/selectors/field-errors.js';
import {
  validateCertificateSigningRequestCreate,
  validateCertificateSigningRequestUpdate,
  validateSignerName,
} from '../../../src/apiserver/registry/validation/certificates/certificate-signing-request.js';
import { createCertificateRequestPem } from '../../../src/pki/certificate-requests.js';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const KEY_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const REQUEST = Buffer.from(
  createCertificateRequestPem({ commonName: 'alice', organizations: ['dev'] }, KEY_PEM),
).toString('base64');

function csr(spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'alice', resourceVersion: '1' },
    spec: {
      request: REQUEST,
      signerName: 'kubernetes.io/kube-apiserver-client',
      usages: ['client auth'],
      ...spec,
    },
    status,
  } as KubeObject;
}

const messages = (errors: ReturnType<typeof validateCertificateSigningRequestCreate>) =>
  errors.map(fieldErrorMessage);

describe('CertificateSigningRequest validation', () => {
  it('accepts a well-formed request', () => {
    expect(validateCertificateSigningRequestCreate(csr())).toEqual([]);
  });

  it('rejects what is not a signed PEM CERTIFICATE REQUEST', () => {
    const errors = validateCertificateSigningRequestCreate(
      csr({ request: Buffer.from('hello').toString('base64') }),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]?.field).toBe('spec.request');
    expect(fieldErrorMessage(errors[0]!)).toMatch(
      /^spec\.request: Invalid value: \[\]byte\{0x68, .*: PEM block type must be CERTIFICATE REQUEST$/,
    );
    // One bit of the signature flipped: the request no longer verifies.
    const der = Buffer.from(
      Buffer.from(REQUEST, 'base64')
        .toString()
        .replace(/-----[^-]+-----|\s/g, ''),
      'base64',
    );
    der[der.length - 2]! ^= 1;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const [error] = messages(
      validateCertificateSigningRequestCreate(csr({ request: Buffer.from(tampered).toString('base64') })),
    );
    expect(error).toMatch(/: x509: ECDSA verification failure$/);
  });

  it('checks usages, signerName and expirationSeconds as upstream', () => {
    expect(messages(validateCertificateSigningRequestCreate(csr({ usages: [] })))).toEqual([
      'spec.usages: Required value',
    ]);
    const [unsupported, duplicate] = messages(
      validateCertificateSigningRequestCreate(csr({ usages: ['client auth', 'bogus', 'client auth'] })),
    );
    expect(unsupported).toMatch(
      /^spec\.usages\[1\]: Unsupported value: "bogus": supported values: "any", "cert sign",/,
    );
    expect(duplicate).toBe('spec.usages[2]: Duplicate value: "client auth"');
    expect(messages(validateCertificateSigningRequestCreate(csr({ signerName: '' })))).toEqual([
      'spec.signerName: Required value',
    ]);
    expect(
      messages(validateCertificateSigningRequestCreate(csr({ signerName: 'kubernetes.io/legacy-unknown' }))),
    ).toEqual([
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
    expect(messages(validateCertificateSigningRequestCreate(csr({ expirationSeconds: 599 })))).toEqual([
      'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
  });

  it('validates signer names by their domain and path', () => {
    expect(validateSignerName('f', 'example.com/my-signer')).toEqual([]);
    expect(validateSignerName('f', 'example.com').map(fieldErrorMessage)).toEqual([
      `f: Invalid value: "example.com": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
    ]);
    expect(validateSignerName('f', 'example/x').map(fieldErrorMessage)).toEqual([
      'f: Invalid value: "example": should be a domain with at least two segments separated by dots',
    ]);
    expect(validateSignerName('f', 'Example.com/x').map(fieldErrorMessage)[0]).toMatch(
      /^f: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label/,
    );
  });

  it('keeps Approved and Denied apart, and True-only', () => {
    const both = csr(
      {},
      {
        conditions: [
          { type: 'Approved', status: 'True' },
          { type: 'Denied', status: 'True' },
        ],
      },
    );
    expect(messages(validateCertificateSigningRequestCreate(both))).toEqual([
      'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    ]);
    const falseApproval = csr({}, { conditions: [{ type: 'Approved', status: 'False' }] });
    expect(messages(validateCertificateSigningRequestCreate(falseApproval))).toEqual([
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
    ]);
  });

  it('limits what each update path may change', () => {
    const old = csr();
    const approved = csr({}, { conditions: [{ type: 'Approved', status: 'True', reason: 'R' }] });
    expect(messages(validateCertificateSigningRequestUpdate(approved, old, ''))).toEqual([
      'status.conditions: Forbidden: updates may not add a condition of type "Approved"',
    ]);
    expect(validateCertificateSigningRequestUpdate(approved, old, 'approval')).toEqual([]);
    expect(messages(validateCertificateSigningRequestUpdate(old, approved, 'approval'))).toEqual([
      'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    ]);
    const withCertificate = csr({}, { certificate: Buffer.from('junk').toString('base64') });
    expect(messages(validateCertificateSigningRequestUpdate(withCertificate, old, 'approval'))).toEqual([
      'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
      'status.certificate: Forbidden: updates may not set certificate content',
    ]);
    const wrongBlock = csr(
      {},
      { certificate: Buffer.from(Buffer.from(REQUEST, 'base64')).toString('base64') },
    );
    expect(messages(validateCertificateSigningRequestUpdate(wrongBlock, old, 'status'))).toEqual([
      'status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"',
    ]);
  });
});
