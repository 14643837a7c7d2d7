// The TCP balancer in front of several apiservers: round-robin over the backends whose /readyz
// answers 200, a backend whose /readyz fails left out, and a refused backend skipped within the
// same client connection (the client never sees it). Real TLS servers with the cluster's PKI.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TcpBalancer } from '../../../src/balancer/tcp-balancer.js';
import { type ClusterPki, ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { eventually } from '../../support/control-plane.js';

interface FakeApiServer {
  readonly name: string;
  readonly server: Server;
  ready: boolean;
  port: number;
}

describe('TcpBalancer', () => {
  let pki: ClusterPki;
  const backends: FakeApiServer[] = [];
  let balancer: TcpBalancer;
  let balancerPort: number;
  const dir = mkdtempSync(join(tmpdir(), 'tkube-balancer-'));

  const who = (port = balancerPort): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/who', ca: pki.ca.certificatePem, agent: false },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end();
    });

  beforeAll(async () => {
    pki = await ensureClusterPki(join(dir, 'pki'));
    for (const name of ['a', 'b']) {
      const backend: FakeApiServer = {
        name,
        ready: true,
        port: 0,
        server: createServer(
          { key: pki.apiServer.privateKeyPem, cert: pki.apiServer.certificatePem },
          (req, res) => {
            if (req.url === '/readyz') {
              res.writeHead(backend.ready ? 200 : 500).end(backend.ready ? 'ok' : 'not ready');
            } else res.end(name);
          },
        ),
      };
      await new Promise<void>((resolve) => backend.server.listen(0, '127.0.0.1', resolve));
      backend.port = (backend.server.address() as AddressInfo).port;
      backends.push(backend);
    }
    balancer = new TcpBalancer({
      backends: backends.map((backend) => ({ host: '127.0.0.1', port: backend.port })),
      caPem: pki.ca.certificatePem,
      probeIntervalMs: 100,
    });
    await balancer.listen(['127.0.0.1'], 0);
    balancerPort = balancer.ports()[0]!;
    await eventually(async () => (balancer.isHealthy(0) && balancer.isHealthy(1) ? true : undefined));
  }, 30_000);

  afterAll(async () => {
    await balancer?.stop();
    for (const backend of backends) backend.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spreads connections over the ready backends', async () => {
    const answers = new Set<string>();
    for (let index = 0; index < 4; index++) answers.add(await who());
    expect([...answers].sort()).toEqual(['a', 'b']);
  });

  it('leaves out a backend whose /readyz fails, and takes it back once it passes', async () => {
    backends[1]!.ready = false;
    await eventually(async () => (balancer.isHealthy(1) ? undefined : true));
    for (let index = 0; index < 4; index++) expect(await who()).toBe('a');
    backends[1]!.ready = true;
    await eventually(async () => (balancer.isHealthy(1) ? true : undefined));
  });

  it('skips a refused backend within the same client connection, before any probe notices', async () => {
    // Probed once at the start only: what it learns of the refusal, it learns from the connection.
    const unprobed = new TcpBalancer({
      backends: backends.map((backend) => ({ host: '127.0.0.1', port: backend.port })),
      caPem: pki.ca.certificatePem,
      probeIntervalMs: 600_000,
    });
    await unprobed.listen(['127.0.0.1'], 0);
    try {
      await unprobed.waitHealthy(0);
      await unprobed.waitHealthy(1);
      backends[0]!.server.closeAllConnections();
      await new Promise<void>((resolve) => backends[0]!.server.close(() => resolve()));
      // However the round-robin falls, every request is answered, by b.
      for (let index = 0; index < 4; index++) expect(await who(unprobed.ports()[0])).toBe('b');
      expect(unprobed.isHealthy(0)).toBe(false);
    } finally {
      await unprobed.stop();
    }
  });
});
