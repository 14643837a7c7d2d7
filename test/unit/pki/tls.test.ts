import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type RequestOptions, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CertificateAuthority,
  createCertificateAuthority,
} from '../../../src/pki/certificate-authority.js';
import {
  type IssuedCertificate,
  identityFromCertificate,
  issueClientCertificate,
} from '../../../src/pki/certificates.js';
import {
  type ClusterPki,
  ensureClusterPki,
  issueNodeClientCertificate,
} from '../../../src/pki/cluster-pki.js';
import { parsePrivateKeyPem, publicKeyPemOf } from '../../../src/pki/keys.js';

/** What the test server saw of the client, as an apiserver's x509 authenticator would. */
interface PeerReport {
  authorized: boolean;
  authorizationError: string | null;
  identity: { user: string; groups: string[] } | null;
}

function startServer(pki: ClusterPki, rejectUnauthorized: boolean, host = '127.0.0.1'): Promise<Server> {
  const server = createServer(
    {
      key: pki.apiServer.privateKeyPem,
      cert: pki.apiServer.certificatePem,
      ca: pki.ca.certificatePem,
      requestCert: true,
      rejectUnauthorized,
    },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerX509Certificate();
      const report: PeerReport = {
        authorized: socket.authorized,
        authorizationError: socket.authorizationError ? String(socket.authorizationError) : null,
        identity: peer ? identityFromCertificate(peer) : null,
      };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(report));
    },
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });
}

function get(server: Server, options: RequestOptions): Promise<PeerReport> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', agent: false, rejectUnauthorized: true, ...options },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve(JSON.parse(body) as PeerReport));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function close(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

describe('TLS with the cluster PKI', () => {
  let root: string;
  let pki: ClusterPki;
  let strictServer: Server;
  let lenientServer: Server;
  let foreignCa: CertificateAuthority;
  let foreignClient: IssuedCertificate;
  let clientAuth: RequestOptions;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'tkube-pki-tls-'));
    pki = await ensureClusterPki(join(root, 'pki'), { apiServerSans: { ipAddresses: ['::1'] } });
    // Another CA and a client it vouches for; reusing keys the cluster already has keeps the test fast.
    foreignCa = await createCertificateAuthority({
      commonName: 'someone-else',
      keyPair: {
        privateKeyPem: pki.serviceAccount.privateKeyPem,
        publicKeyPem: pki.serviceAccount.publicKeyPem,
      },
    });
    foreignClient = await issueClientCertificate(foreignCa, {
      user: 'kubernetes-admin',
      groups: ['system:masters'],
      keyPair: {
        privateKeyPem: pki.admin.privateKeyPem,
        publicKeyPem: publicKeyPemOf(parsePrivateKeyPem(pki.admin.privateKeyPem)),
      },
    });
    clientAuth = { ca: pki.ca.certificatePem, cert: pki.admin.certificatePem, key: pki.admin.privateKeyPem };
    [strictServer, lenientServer] = await Promise.all([startServer(pki, true), startServer(pki, false)]);
  });

  afterAll(async () => {
    await Promise.all([close(strictServer), close(lenientServer)]);
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('accepts the admin over the in-cluster name, and the server reads its user and groups', async () => {
    const report = await get(strictServer, { ...clientAuth, servername: 'kubernetes.default.svc' });
    expect(report).toEqual({
      authorized: true,
      authorizationError: null,
      identity: { user: 'kubernetes-admin', groups: ['system:masters'] },
    });
  });

  it('verifies the server by IP address SAN when dialled by IP', async () => {
    const report = await get(strictServer, clientAuth);
    expect(report.authorized).toBe(true);
    expect(report.identity?.user).toBe('kubernetes-admin');
  });

  it('verifies an IPv6 SAN', async () => {
    const server = await startServer(pki, true, '::1');
    try {
      const report = await get(server, { ...clientAuth, host: '::1' });
      expect(report.authorized).toBe(true);
    } finally {
      await close(server);
    }
  });

  it('fails server verification for a name the certificate does not carry', async () => {
    await expect(
      get(strictServer, { ...clientAuth, servername: 'kubernetes.example.com' }),
    ).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });

  it('fails server verification against a CA that did not sign it', async () => {
    // The server sends its CA along with its certificate; the client trusts neither.
    await expect(
      get(strictServer, { ...clientAuth, ca: foreignCa.certificatePem, servername: 'kubernetes' }),
    ).rejects.toMatchObject({ code: 'SELF_SIGNED_CERT_IN_CHAIN' });
  });

  it('rejects a client certificate from a different CA', async () => {
    const foreign = { ...clientAuth, cert: foreignClient.certificatePem, key: foreignClient.privateKeyPem };
    // A server that requires verified clients ends the handshake; the client sees the connection drop.
    await expect(get(strictServer, foreign)).rejects.toThrow(/socket hang up|alert|ECONNRESET/i);
    const report = await get(lenientServer, foreign);
    expect(report.authorized).toBe(false);
    expect(report.authorizationError).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to (get|verify)/i);
  });

  it('rejects a serving certificate used as a client certificate (extKeyUsage)', async () => {
    const report = await get(lenientServer, {
      ...clientAuth,
      cert: pki.apiServer.certificatePem,
      key: pki.apiServer.privateKeyPem,
    });
    expect(report.authorized).toBe(false);
    expect(report.authorizationError).toMatch(/INVALID_PURPOSE|unsupported certificate purpose/i);
  });

  it('accepts a node client certificate as system:node:<name> in system:nodes', async () => {
    const node = await issueNodeClientCertificate(pki, 'worker-1');
    const report = await get(strictServer, {
      ...clientAuth,
      cert: node.certificatePem,
      key: node.privateKeyPem,
    });
    expect(report).toEqual({
      authorized: true,
      authorizationError: null,
      identity: { user: 'system:node:worker-1', groups: ['system:nodes'] },
    });
  });

  it('lets a client connect without a certificate, unauthenticated (as the apiserver allows anonymous)', async () => {
    const report = await get(lenientServer, { ca: pki.ca.certificatePem, servername: 'kubernetes' });
    expect(report.identity).toBeNull();
    expect(report.authorized).toBe(false);
  });
});
