// The agent's DNS server against a real control plane, reading as the agents' DNS identity:
// kube-dns answers at once, a new service resolves within moments, a deleted one goes NXDOMAIN.
import { createSocket } from 'node:dgram';
import * as packet from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterDns } from '../../../../src/agent/dns/cluster-dns.js';
import type { Service } from '../../../../src/api/types/core-v1.generated.js';
import { SERVICES } from '../../../../src/client/resources.js';
import { CLUSTER_DNS_USER } from '../../../../src/controlplane/tkube-policy.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../../support/control-plane.js';

function lookup(port: number, name: string): Promise<packet.DecodedPacket & { rcode?: string }> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no answer for ${name}`));
    }, 2000);
    socket.on('message', (message) => {
      clearTimeout(timer);
      socket.close();
      resolve(packet.decode(message));
    });
    socket.send(packet.encode({ type: 'query', id: 1, questions: [{ name, type: 'A' }] }), port, '127.0.0.1');
  });
}

describe('the agent cluster DNS', () => {
  let cp: InProcessControlPlane;
  let dns: ClusterDns;
  const abort = new AbortController();
  let running: Promise<void>;

  beforeAll(async () => {
    cp = await startInProcessControlPlane();
    const client = cp.controlPlane.loopbackClient(
      { name: CLUSTER_DNS_USER, groups: ['system:authenticated'] },
      'test',
    );
    dns = new ClusterDns({
      client,
      host: '127.0.0.1',
      port: 0,
      metricsPort: 0,
      nameservers: [],
      log: () => {},
    });
    running = dns.run(abort.signal);
    await eventually(async () => (dns.port > 0 ? true : undefined));
  }, 30_000);
  afterAll(async () => {
    abort.abort();
    await running;
    await cp?.stop();
  });

  it('answers for kube-dns and the kubernetes service once serving', async () => {
    expect((await lookup(dns.port, 'kube-dns.kube-system.svc.cluster.local')).answers).toEqual([
      expect.objectContaining({ data: '10.96.0.10' }),
    ]);
    expect((await lookup(dns.port, 'kubernetes.default.svc.cluster.local')).answers).toEqual([
      expect.objectContaining({ data: '10.96.0.1' }),
    ]);
  });

  it('follows services as they come and go', async () => {
    const created = await cp.admin
      .resource<Service>(SERVICES)
      .create({ metadata: { name: 'fresh', namespace: 'default' }, spec: { ports: [{ port: 80 }] } });
    const ip = created.spec?.clusterIP;
    await eventually(async () => {
      const response = await lookup(dns.port, 'fresh.default.svc.cluster.local');
      return response.answers?.[0] && 'data' in response.answers[0] && response.answers[0].data === ip
        ? true
        : undefined;
    });
    await cp.admin.resource<Service>(SERVICES).delete('default', 'fresh');
    await eventually(async () =>
      (await lookup(dns.port, 'fresh.default.svc.cluster.local')).rcode === 'NXDOMAIN' ? true : undefined,
    );
  });

  it('keeps trying to listen while its port is taken', async () => {
    const client = cp.controlPlane.loopbackClient(
      { name: CLUSTER_DNS_USER, groups: ['system:authenticated'] },
      'test',
    );
    const logs: string[] = [];
    const second = new ClusterDns({
      client,
      host: '127.0.0.1',
      port: dns.port,
      metricsPort: 0,
      nameservers: [],
      log: (message) => logs.push(message),
    });
    const stop = new AbortController();
    const running = second.run(stop.signal);
    await eventually(async () => (logs.some((line) => line.includes('cannot listen')) ? true : undefined));
    expect(second.port).toBe(0);
    stop.abort();
    await running;
    await client.close();
  });

  it('counts queries in CoreDNS metrics on its metrics port', async () => {
    await lookup(dns.port, 'kube-dns.kube-system.svc.cluster.local');
    const response = await fetch(`http://127.0.0.1:${dns.metricsPort}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const server = `dns://127.0.0.1:${dns.port}`;
    expect(text).toMatch(
      new RegExp(
        `coredns_dns_requests_total\\{server="${server}",zone=".",view="",proto="udp",family="1",type="A"\\} [1-9]`,
      ),
    );
    expect(text).toMatch(
      new RegExp(
        `coredns_dns_responses_total\\{server="${server}",zone=".",view="",rcode="NXDOMAIN",plugin="kubernetes"\\} [1-9]`,
      ),
    );
    expect(text).toContain('coredns_dns_request_duration_seconds_bucket{');
    expect((await fetch(`http://127.0.0.1:${dns.metricsPort}/other`)).status).toBe(404);
  });
});
