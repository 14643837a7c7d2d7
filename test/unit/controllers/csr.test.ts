// CertificateSigningRequests through the whole control plane: the server records the requester,
// admission guards approval and the system:masters group, csrapproving auto-approves a node's
// own client certificate, csrsigning issues from the cluster CA or fails a request its signer
// refuses, and the cleaner's rules pick old requests.
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CertificateSigningRequest } from '../../../src/api/types/certificates-v1.generated.js';
import { CSRS } from '../../../src/client/resources.js';
import { ApiError } from '../../../src/client/rest/index.js';
import type { Client } from '../../../src/client/types.js';
import { cleanupReason } from '../../../src/controllers/csrcleaner/csr-cleaner-controller.js';
import { signingDurationMs } from '../../../src/controllers/csrsigning/csr-signing-controller.js';
import {
  type CertificateRequestSubject,
  createCertificateRequestPem,
} from '../../../src/pki/certificate-requests.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

const KEY_PEM = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

function newCsr(
  name: string,
  subject: CertificateRequestSubject,
  signerName: string,
  usages: string[],
): CertificateSigningRequest {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: Buffer.from(createCertificateRequestPem(subject, KEY_PEM)).toString('base64'),
      signerName,
      usages,
      username: 'someone-else',
      groups: ['system:masters'],
    },
  };
}

const approval = (
  csr: CertificateSigningRequest,
  type: 'Approved' | 'Denied',
): CertificateSigningRequest => ({
  ...csr,
  status: { conditions: [{ type, status: 'True', reason: 'Test', message: 'by the test' }] },
});

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('certificate signing requests', () => {
  let cp: InProcessControlPlane;
  let admin: Client;

  beforeAll(async () => {
    cp = await startInProcessControlPlane();
    admin = cp.admin;
  }, 30_000);
  afterAll(async () => cp?.stop());

  const csrs = () => admin.resource<CertificateSigningRequest>(CSRS);

  it('records the requester, issues after approval, and keeps approval conditions', async () => {
    const created = await csrs().create(
      newCsr(
        'alice',
        { commonName: 'alice', organizations: ['dev'] },
        'kubernetes.io/kube-apiserver-client',
        ['client auth', 'digital signature'],
      ),
    );
    expect(created.spec.username).toBe('test-admin');
    expect(created.spec.groups).toEqual(['system:masters', 'system:authenticated']);
    expect(created.status?.conditions).toBeUndefined();
    await csrs().update(approval(created, 'Approved'), { subresource: 'approval' });
    const issued = await eventually(async () => {
      const csr = await csrs().get('', 'alice');
      return csr.status?.certificate ? csr : undefined;
    });
    const certificate = new X509Certificate(Buffer.from(issued.status!.certificate!, 'base64'));
    expect(certificate.subject).toBe('O=dev\nCN=alice');
    expect(certificate.issuer).toBe('CN=kubernetes');
    expect(issued.status?.conditions?.[0]).toMatchObject({ type: 'Approved', reason: 'Test' });
    expect(issued.status?.conditions?.[0]?.lastUpdateTime).toBeDefined();
    // Approval may not be withdrawn nor turned into a denial.
    const denied = await rejection(
      csrs().update({ ...approval(issued, 'Denied') }, { subresource: 'approval' }),
    );
    expect(denied.message).toContain(
      'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    );
  });

  it('rejects system:masters for the kube-apiserver-client signer', async () => {
    const error = await rejection(
      csrs().create(
        newCsr(
          'root',
          { commonName: 'root', organizations: ['system:masters'] },
          'kubernetes.io/kube-apiserver-client',
          ['client auth'],
        ),
      ),
    );
    expect(error.code).toBe(403);
    expect(error.message).toBe(
      'certificatesigningrequests.certificates.k8s.io "root" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
  });

  it('lets only signer approvers approve', async () => {
    await csrs().create(newCsr('bob', { commonName: 'bob' }, 'example.com/custom', ['client auth']));
    const rbac = (resource: string) =>
      admin.resource({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        resource,
        kind: '',
        namespaced: false,
      });
    await rbac('clusterroles').create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'csr-approval-writer' },
      rules: [
        {
          apiGroups: ['certificates.k8s.io'],
          resources: ['certificatesigningrequests', 'certificatesigningrequests/approval'],
          verbs: ['get', 'update'],
        },
      ],
    } as never);
    await rbac('clusterrolebindings').create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'csr-approval-writer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'csr-approval-writer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
    } as never);
    const carol = cp.controlPlane.loopbackClient({ name: 'carol', groups: ['system:authenticated'] }, 'test');
    const current = await eventually(async () =>
      carol
        .resource<CertificateSigningRequest>(CSRS)
        .get('', 'bob')
        .catch(() => undefined),
    );
    const error = await rejection(
      carol
        .resource<CertificateSigningRequest>(CSRS)
        .update(approval(current, 'Approved'), { subresource: 'approval' }),
    );
    expect(error.message).toBe(
      'certificatesigningrequests.certificates.k8s.io "bob" is forbidden: user not permitted to approve requests with signerName "example.com/custom"',
    );
    // Denial is an approval write too; an admin may deny, after which nothing is signed.
    const denied = await csrs().update(approval(current, 'Denied'), { subresource: 'approval' });
    expect(denied.status?.conditions?.map((c) => c.type)).toEqual(['Denied']);
  });

  it('auto-approves and signs a node renewing its own client certificate', async () => {
    const node = cp.controlPlane.loopbackClient(
      { name: 'system:node:worker-1', groups: ['system:nodes', 'system:authenticated'] },
      'kubelet',
    );
    await node
      .resource<CertificateSigningRequest>(CSRS)
      .create(
        newCsr(
          'node-csr-1',
          { commonName: 'system:node:worker-1', organizations: ['system:nodes'] },
          'kubernetes.io/kube-apiserver-client-kubelet',
          ['digital signature', 'client auth'],
        ),
      );
    const issued = await eventually(async () => {
      const csr = await csrs().get('', 'node-csr-1');
      return csr.status?.certificate ? csr : undefined;
    });
    expect(issued.status?.conditions?.[0]).toMatchObject({
      type: 'Approved',
      status: 'True',
      reason: 'AutoApproved',
      message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
    });
    const certificate = new X509Certificate(Buffer.from(issued.status!.certificate!, 'base64'));
    expect(certificate.subject).toBe('O=system:nodes\nCN=system:node:worker-1');
  });

  it('fails a kubelet-serving request its signer refuses', async () => {
    const created = await csrs().create(
      newCsr(
        'serving',
        { commonName: 'system:node:worker-1', organizations: ['system:nodes'] },
        'kubernetes.io/kubelet-serving',
        ['digital signature', 'server auth'],
      ),
    );
    await csrs().update(approval(created, 'Approved'), { subresource: 'approval' });
    const failed = await eventually(async () => {
      const csr = await csrs().get('', 'serving');
      return csr.status?.conditions?.find((c) => c.type === 'Failed');
    });
    expect(failed).toMatchObject({
      status: 'True',
      reason: 'SignerValidationFailure',
      message: 'DNS or IP subjectAltName is required',
    });
    expect((await csrs().get('', 'serving')).status?.certificate).toBeUndefined();
  });

  it('caps requested durations between 10 minutes and the signing duration', () => {
    const year = 365 * 24 * 3600 * 1000;
    expect(signingDurationMs(undefined, year)).toBe(year);
    expect(signingDurationMs(3600, year)).toBe(3600_000);
    expect(signingDurationMs(10 * year, year)).toBe(year);
  });

  it('cleans requests by age and outcome', () => {
    const now = Date.parse('2025-01-02T00:00:00Z');
    const at = (iso: string): CertificateSigningRequest => ({
      metadata: { name: 'x', creationTimestamp: iso },
      spec: { request: '', signerName: 's' },
    });
    expect(cleanupReason(at('2025-01-01T01:00:00Z'), now)).toBeUndefined();
    expect(cleanupReason(at('2024-12-31T23:00:00Z'), now)).toContain('24h0m0s old and unhandled');
    const denied = {
      ...at('2025-01-01T23:30:00Z'),
      status: { conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: '2025-01-01T23:30:00Z' }] },
    };
    expect(cleanupReason(denied, now)).toBeUndefined();
    denied.status.conditions[0]!.lastUpdateTime = '2025-01-01T22:30:00Z';
    expect(cleanupReason(denied, now)).toContain('1h0m0s old and denied');
    const approvedNotIssued = {
      ...at('2025-01-01T20:00:00Z'),
      status: { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: '2025-01-01T20:00:00Z' }] },
    };
    expect(cleanupReason(approvedNotIssued, now)).toBeUndefined();
  });
});
