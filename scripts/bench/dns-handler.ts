// The agent's DNS query path measured in this process, free of sockets and of the machine's other
// load: CPU per A query for a service (parse, resolve from the cluster records, encode with name
// compression, metrics), as bench:network prints beside the load from a pod.
import * as packet from 'dns-packet';
import { ClusterRecords } from '../../src/agent/dns/cluster-records.js';
import { DnsHandler } from '../../src/agent/dns/handler.js';
import { DnsMetrics } from '../../src/agent/dns/metrics.js';
import { DEFAULT_TTL } from '../../src/agent/dns/resolver.js';
import { Upstream } from '../../src/agent/dns/upstream.js';

/** CPU microseconds per query, one figure per round of `perRound` queries over `services` names. */
export async function dnsHandlerCpuPerQuery(
  services = 100,
  rounds = 5,
  perRound = 50_000,
): Promise<number[]> {
  const records = new ClusterRecords('cluster.local');
  records.setNamespace({ metadata: { name: 'default' } });
  for (let i = 0; i < services; i++) {
    const ip = `10.96.${Math.floor(i / 250) + 1}.${(i % 250) + 1}`;
    records.setService({
      metadata: { namespace: 'default', name: `svc-${i}` },
      spec: { clusterIP: ip, clusterIPs: [ip] },
    });
  }
  const handler = new DnsHandler(
    records,
    { zone: 'cluster.local', ttl: DEFAULT_TTL, dnsService: { namespace: 'kube-system', name: 'kube-dns' } },
    new Upstream([], 500),
    new DnsMetrics(() => 'dns://:53'),
  );
  const queries = Array.from({ length: services }, (_, i) =>
    packet.encode({
      type: 'query',
      id: i,
      flags: packet.RECURSION_DESIRED,
      questions: [{ name: `svc-${i}.default.svc.cluster.local`, type: 'A' }],
    }),
  );
  const figures: number[] = [];
  // One round first to warm the JIT.
  for (let round = 0; round <= rounds; round++) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < perRound; i++) await handler.handle(queries[i % services]!, 'udp');
    const used = process.cpuUsage(cpu);
    if (round > 0) figures.push((used.user + used.system) / perRound);
  }
  return figures;
}
