// CertificateSigningRequests with real kubectl and openssl: a client certificate requested,
// approved with `kubectl certificate approve`, issued by the cluster CA and accepted by the
// apiserver as that user; a denial; and a node's kubelet client request auto-approved.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';

let cluster: TestCluster;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'csr-it-'));
  cluster = await startTestCluster('csr-kubectl');
}, 60_000);

afterAll(async () => {
  await cluster?.down();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** A key and CSR made by openssl; returns the key path and the CSR's base64. */
function opensslRequest(name: string, subject: string): { key: string; request: string } {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  execFileSync(
    'openssl',
    [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-subj',
      subject,
      '-out',
      csr,
    ],
    { stdio: 'ignore' },
  );
  return { key, request: readFileSync(csr).toString('base64') };
}

function manifest(name: string, request: string, signerName: string, usages: string[]): string {
  return JSON.stringify({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request, signerName, usages, expirationSeconds: 3600 },
  });
}

async function issuedCertificate(name: string): Promise<string> {
  return eventually(async () => {
    const out = await ok(['get', 'csr', name, '-o', 'jsonpath={.status.certificate}']);
    return out === '' ? undefined : Buffer.from(out, 'base64').toString();
  }, 20_000);
}

describe('kubectl certificate', () => {
  it('issues a client certificate that authenticates as its subject', async () => {
    const { key, request } = opensslRequest('alice', '/O=developers/CN=alice');
    await ok(
      ['create', '-f', '-'],
      manifest('alice', request, 'kubernetes.io/kube-apiserver-client', ['client auth']),
    );
    expect(await ok(['get', 'csr', 'alice'])).toMatch(
      /alice\s+\S+\s+kubernetes.io\/kube-apiserver-client\s+kubernetes-admin\s+60m\s+Pending/,
    );
    await ok(['certificate', 'approve', 'alice']);
    const pem = await issuedCertificate('alice');
    const certificateFile = join(dir, 'alice.crt');
    writeFileSync(certificateFile, pem);
    const text = execFileSync('openssl', [
      'x509',
      '-in',
      certificateFile,
      '-noout',
      '-issuer',
      '-subject',
    ]).toString();
    expect(text).toContain('issuer=CN = kubernetes');
    expect(text).toContain('subject=O = developers, CN = alice');
    expect(await ok(['get', 'csr', 'alice'])).toContain('Approved,Issued');
    await ok([
      'config',
      'set-credentials',
      'alice',
      `--client-certificate=${certificateFile}`,
      `--client-key=${key}`,
      '--embed-certs=true',
    ]);
    const whoami = await ok(['--user', 'alice', 'auth', 'whoami', '-o', 'json']);
    const status = JSON.parse(whoami).status.userInfo;
    expect(status.username).toBe('alice');
    expect(status.groups).toContain('developers');
  });

  it('denies a request', async () => {
    const { request } = opensslRequest('bob', '/CN=bob');
    await ok(
      ['create', '-f', '-'],
      manifest('bob', request, 'kubernetes.io/kube-apiserver-client', ['client auth']),
    );
    await ok(['certificate', 'deny', 'bob']);
    expect(await ok(['get', 'csr', 'bob'])).toContain('Denied');
    expect(await ok(['get', 'csr', 'bob', '-o', 'jsonpath={.status.certificate}'])).toBe('');
  });

  it('auto-approves and signs a node client request', async () => {
    const { request } = opensslRequest('node', '/O=system:nodes/CN=system:node:worker-7');
    const asNode = [
      '--as',
      'system:node:worker-7',
      '--as-group',
      'system:nodes',
      '--as-group',
      'system:authenticated',
    ];
    await ok(
      [...asNode, 'create', '-f', '-'],
      manifest('node-csr', request, 'kubernetes.io/kube-apiserver-client-kubelet', [
        'digital signature',
        'client auth',
      ]),
    );
    const pem = await issuedCertificate('node-csr');
    expect(pem).toContain('BEGIN CERTIFICATE');
    const reason = await ok(['get', 'csr', 'node-csr', '-o', 'jsonpath={.status.conditions[0].reason}']);
    expect(reason).toBe('AutoApproved');
  });
});
