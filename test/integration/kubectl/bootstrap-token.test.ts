// Bootstrap tokens and PodSecurity namespace labels with real kubectl: a bootstrap-token Secret
// made with kubectl authenticates `kubectl --token <id>.<secret>`, an expired one does not, the
// token's user may file a CSR only once bound to system:node-bootstrapper, invalid PodSecurity
// labels are refused and tightening enforce warns about the pods already there.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;
let tokenOnly: (token: string, args: string[], input?: string) => ReturnType<TestCluster['kubectl']>;

beforeAll(async () => {
  cluster = await startTestCluster('bootstrap-token');
  const view = async (path: string) =>
    (await cluster.kubectl(['config', 'view', '--raw', '-o', `jsonpath=${path}`])).stdout;
  const server = await view('{.clusters[0].cluster.server}');
  const caFile = join(mkdtempSync(join(tmpdir(), 'tkube-bootstrap-')), 'ca.crt');
  writeFileSync(
    caFile,
    Buffer.from(await view('{.clusters[0].cluster.certificate-authority-data}'), 'base64'),
  );
  // A client with nothing but the token: the kubeconfig's client certificate would win otherwise.
  tokenOnly = (token, args, input) =>
    cluster.kubectl(
      [
        '--kubeconfig=/dev/null',
        `--server=${server}`,
        `--certificate-authority=${caFile}`,
        `--token=${token}`,
        ...args,
      ],
      { input },
    );
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** `kubectl create secret` of a bootstrap token, the way `kubeadm token create` stores one. */
async function createBootstrapToken(id: string, secret: string, extra: string[] = []): Promise<void> {
  await ok([
    'create',
    'secret',
    'generic',
    `bootstrap-token-${id}`,
    '-n',
    'kube-system',
    '--type=bootstrap.kubernetes.io/token',
    `--from-literal=token-id=${id}`,
    `--from-literal=token-secret=${secret}`,
    '--from-literal=usage-bootstrap-authentication=true',
    ...extra,
  ]);
}

/** A PEM certificate request for system:node:<name>, as the kubelet files one. */
function nodeCsrPem(name: string): string {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const request = forge.pki.createCertificationRequest();
  request.publicKey = forge.pki.publicKeyFromPem(
    publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  );
  request.setSubject([
    { name: 'commonName', value: `system:node:${name}` },
    { name: 'organizationName', value: 'system:nodes' },
  ]);
  request.sign(
    forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
    forge.md.sha256.create(),
  );
  return forge.pki.certificationRequestToPem(request);
}

describe('bootstrap tokens', () => {
  it('authenticates <id>.<secret> as system:bootstrap:<id> with its groups', async () => {
    await createBootstrapToken('abc123', '0123456789abcdef', [
      '--from-literal=auth-extra-groups=system:bootstrappers:kubeadm:default-node-token',
      '--from-literal=expiration=2999-01-01T00:00:00Z',
    ]);
    const whoami = await tokenOnly('abc123.0123456789abcdef', ['auth', 'whoami']);
    expect(whoami.exitCode, whoami.stderr).toBe(0);
    expect(whoami.stdout.split('\n').map((line) => line.trim().split(/\s{2,}/))).toEqual([
      ['ATTRIBUTE', 'VALUE'],
      ['Username', 'system:bootstrap:abc123'],
      [
        'Groups',
        '[system:bootstrappers system:bootstrappers:kubeadm:default-node-token system:authenticated]',
      ],
    ]);
  });

  it('refuses an expired token, a wrong secret and a token without its Secret', async () => {
    await createBootstrapToken('old123', '0123456789abcdef', [
      '--from-literal=expiration=2020-01-01T00:00:00Z',
    ]);
    for (const token of ['old123.0123456789abcdef', 'abc123.fedcba9876543210', 'nosuch.0123456789abcdef']) {
      const result = await tokenOnly(token, ['auth', 'whoami']);
      expect(result.stderr, token).toBe('error: You must be logged in to the server (Unauthorized)');
    }
  });

  it('reports bootstrap tokens in TokenReviews', async () => {
    const review = async (token: string) =>
      JSON.parse(
        await ok(
          ['create', '--raw', '/apis/authentication.k8s.io/v1/tokenreviews', '-f', '-'],
          JSON.stringify({
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenReview',
            spec: { token },
          }),
        ),
      ) as { status: Record<string, unknown> };
    expect((await review('abc123.0123456789abcdef')).status).toMatchObject({
      authenticated: true,
      user: {
        username: 'system:bootstrap:abc123',
        groups: [
          'system:bootstrappers',
          'system:bootstrappers:kubeadm:default-node-token',
          'system:authenticated',
        ],
      },
    });
    expect((await review('old123.0123456789abcdef')).status).toEqual({
      user: {},
      error: 'invalid bearer token',
    });
  });

  it('may file a CertificateSigningRequest only once its group is bound to system:node-bootstrapper', async () => {
    const token = 'abc123.0123456789abcdef';
    const canI = ['auth', 'can-i', 'create', 'certificatesigningrequests.certificates.k8s.io'];
    expect((await tokenOnly(token, canI)).stdout).toBe('no');
    const csr = JSON.stringify({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'node-csr-worker' },
      spec: {
        request: Buffer.from(nodeCsrPem('worker')).toString('base64'),
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
        usages: ['digital signature', 'client auth'],
      },
    });
    const refused = await tokenOnly(token, ['create', '-f', '-'], csr);
    expect(refused.stderr).toBe(
      'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io is forbidden: ' +
        'User "system:bootstrap:abc123" cannot create resource "certificatesigningrequests" in API group "certificates.k8s.io" at the cluster scope',
    );
    // What kubeadm does on init: Kubernetes' own bootstrap policy binds no bootstrap group.
    await ok([
      'create',
      'clusterrolebinding',
      'kubeadm:kubelet-bootstrap',
      '--clusterrole=system:node-bootstrapper',
      '--group=system:bootstrappers:kubeadm:default-node-token',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the policy cache follows a watch
    expect((await tokenOnly(token, canI)).stdout).toBe('yes');
    const created = await tokenOnly(token, ['create', '-f', '-'], csr);
    expect(created.stdout, created.stderr).toBe(
      'certificatesigningrequest.certificates.k8s.io/node-csr-worker created',
    );
    expect((await tokenOnly(token, ['auth', 'can-i', 'get', 'secrets', '-n', 'kube-system'])).stdout).toBe(
      'no',
    );
  });
});

describe('PodSecurity namespace labels', () => {
  it("refuses an invalid level with PodSecurity's message", async () => {
    await ok(['create', 'namespace', 'psa']);
    const result = await cluster.kubectl(['label', 'ns', 'psa', 'pod-security.kubernetes.io/enforce=foo']);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toBe(
      'The Namespace "psa" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted',
    );
    const version = await cluster.kubectl([
      'label',
      'ns',
      'psa',
      'pod-security.kubernetes.io/warn-version=1.30',
    ]);
    expect(version.stderr).toBe(
      'The Namespace "psa" is invalid: metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"',
    );
  });

  it('warns about existing pods when the enforce level is tightened', async () => {
    await ok([
      'run',
      'priv',
      '-n',
      'psa',
      '--image=nginx',
      '--overrides={"spec":{"containers":[{"name":"priv","image":"nginx","securityContext":{"privileged":true}}]}}',
    ]);
    const result = await cluster.kubectl([
      'label',
      'ns',
      'psa',
      'pod-security.kubernetes.io/enforce=restricted',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('namespace/psa labeled');
    expect(result.stderr.split('\n')).toEqual([
      'Warning: existing pods in namespace "psa" violate the new PodSecurity enforce level "restricted:latest"',
      'Warning: priv: privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ]);
    // Relaxing it again checks nothing.
    const relaxed = await cluster.kubectl([
      'label',
      'ns',
      'psa',
      '--overwrite',
      'pod-security.kubernetes.io/enforce=baseline',
    ]);
    expect(relaxed.stderr).toBe('');
  });
});
