// The metrics scraper against a real HTTPS "kubelet": client certificate required, the Summary
// decoded into the storage, NotReady nodes left out, an unreachable node skipped with a log line;
// rounds every resolution period, a silent node given up on within 90 % of it.
import { createServer, type Server } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../../../src/api/types/core-v1.generated.js';
import type { KubeletClientCredentials } from '../../../src/apiserver/handlers/kubelet-connection.js';
import { MetricsScraper } from '../../../src/apiserver/resource-metrics/scraper.js';
import { MetricsStorage } from '../../../src/apiserver/resource-metrics/storage.js';
import { createCertificateAuthority } from '../../../src/pki/certificate-authority.js';
import { issueClientCertificate, issueServingCertificate } from '../../../src/pki/certificates.js';

let server: Server;
let port = 0;
let credentials: KubeletClientCredentials;
const requests: { path: string; clientCn: string }[] = [];
let cpuNs = 0;

function summary() {
  const now = new Date().toISOString();
  cpuNs += 500_000_000;
  const stats = (start: string) => ({
    startTime: start,
    cpu: { time: now, usageCoreNanoSeconds: cpuNs },
    memory: { time: now, workingSetBytes: 4096 },
  });
  return {
    node: { nodeName: 'a', ...stats('2026-01-01T00:00:00Z') },
    pods: [
      {
        podRef: { name: 'busy', namespace: 'default' },
        containers: [{ name: 'burn', ...stats('2026-01-01T00:00:00Z') }],
      },
    ],
  };
}

beforeAll(async () => {
  const ca = await createCertificateAuthority({ commonName: 'kubelet-test-ca' });
  const serving = await issueServingCertificate(ca, { commonName: 'kubelet', ipAddresses: ['127.0.0.1'] });
  const client = await issueClientCertificate(ca, { user: 'kube-apiserver-kubelet-client' });
  credentials = {
    certificatePem: client.certificatePem,
    privateKeyPem: client.privateKeyPem,
    caPem: ca.certificatePem,
  };
  server = createServer(
    {
      cert: serving.certificatePem,
      key: serving.privateKeyPem,
      ca: ca.certificatePem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      requests.push({ path: req.url ?? '', clientCn: String(peer.subject?.CN ?? '') });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(summary()));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const node = (name: string, nodePort: number, ready = 'True', labels: Record<string, string> = {}): Node => ({
  metadata: { name, labels },
  status: {
    addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
    daemonEndpoints: { kubeletEndpoint: { Port: nodePort } },
    conditions: [{ type: 'Ready', status: ready }],
  },
});

describe('MetricsScraper', () => {
  it('stores the Ready nodes it reaches, skips the rest with a log line, never asks fake nodes', async () => {
    const storage = new MetricsStorage();
    const log: string[] = [];
    const scraper = new MetricsScraper({
      nodes: async () => [
        node('a', port),
        node('down', 1),
        node('notready', port, 'False'),
        node('fake', 1, 'True', { 'fake.tkube.dev/node': 'true' }),
      ],
      credentials: async () => credentials,
      storage,
      log: (line) => log.push(line),
    });
    await scraper.scrapeOnce();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await scraper.scrapeOnce();
    expect(requests.every((r) => r.path === '/stats/summary?only_cpu_and_memory=true')).toBe(true);
    expect(requests.map((r) => r.clientCn)).toEqual([
      'kube-apiserver-kubelet-client',
      'kube-apiserver-kubelet-client',
    ]);
    expect(storage.nodeNames()).toEqual(['a']);
    expect(storage.nodeUsage('a')?.cpuNanoCores).toBeGreaterThan(0);
    expect(storage.podUsage('default', 'busy')?.get('burn')?.memoryBytes).toBe(4096);
    expect(log).toHaveLength(2);
    expect(log[0]).toMatch(/^metrics-server: Failed to scrape node "down": dial tcp 127\.0\.0\.1:1: /);
  });

  it('scrapes every resolution period and gives up on a silent node within 90 % of it', async () => {
    // Accepts connections and never answers, not even the TLS handshake.
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const log: string[] = [];
    let rounds = 0;
    const scraper = new MetricsScraper({
      nodes: async () => {
        rounds += 1;
        return [node('silent', (silent.address() as AddressInfo).port)];
      },
      credentials: async () => credentials,
      storage: new MetricsStorage(),
      intervalMs: 200,
      log: (line) => log.push(line),
    });
    const started = Date.now();
    scraper.start();
    try {
      await expect.poll(() => log.length, { timeout: 2000, interval: 20 }).toBeGreaterThan(0);
      // 180 ms, not the 13.5 s of the default resolution.
      expect(Date.now() - started).toBeLessThan(1000);
      expect(log[0]).toMatch(/^metrics-server: Failed to scrape node "silent": /);
      await expect.poll(() => rounds, { timeout: 2000, interval: 20 }).toBeGreaterThanOrEqual(3);
    } finally {
      scraper.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
