// The cluster zone's answers, question by question, over a small cluster: ClusterIP, dual-stack,
// headless (with hostnames, not-ready and published-not-ready endpoints), ExternalName, SRV,
// PTR, pod records, and the NXDOMAIN / NODATA line (an empty NOERROR carries the zone's SOA).
import { describe, expect, it } from 'vitest';
import { ClusterRecords } from '../../../../src/agent/dns/cluster-records.js';
import {
  type Answered,
  DEFAULT_TTL,
  type ResolverSettings,
  resolve,
} from '../../../../src/agent/dns/resolver.js';
import type { Namespace, Service } from '../../../../src/api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../../../src/api/types/discovery-v1.generated.js';

const settings: ResolverSettings = {
  zone: 'cluster.local',
  ttl: DEFAULT_TTL,
  dnsService: { namespace: 'kube-system', name: 'kube-dns' },
};

function service(namespace: string, name: string, spec: Service['spec']): Service {
  return { metadata: { namespace, name }, spec };
}

function slice(
  namespace: string,
  service: string,
  name: string,
  endpoints: EndpointSlice['endpoints'],
  ports: EndpointSlice['ports'] = [],
  addressType = 'IPv4',
): EndpointSlice {
  return {
    metadata: { namespace, name, labels: { 'kubernetes.io/service-name': service } },
    addressType,
    endpoints,
    ports,
  };
}

function cluster(): ClusterRecords {
  const records = new ClusterRecords('cluster.local');
  for (const name of ['default', 'kube-system', 'empty']) {
    records.setNamespace({ metadata: { name } } as Namespace);
  }
  records.setService(
    service('kube-system', 'kube-dns', {
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      ports: [{ name: 'dns', port: 53, protocol: 'UDP' }],
    }),
  );
  records.setService(
    service('default', 'web', {
      clusterIP: '10.96.0.20',
      clusterIPs: ['10.96.0.20'],
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { port: 81, protocol: 'TCP' },
      ],
    }),
  );
  records.setEndpointSlice(
    slice(
      'default',
      'web',
      'web-abc',
      [{ addresses: ['10.244.1.5'], conditions: { ready: true } }],
      [{ name: 'http', port: 8080, protocol: 'TCP' }],
    ),
  );
  records.setService(
    service('default', 'dual', {
      clusterIP: '10.96.0.30',
      clusterIPs: ['10.96.0.30', 'fd00:10:96::30'],
      ipFamilies: ['IPv4', 'IPv6'],
    }),
  );
  records.setService(
    service('default', 'db', {
      clusterIP: 'None',
      clusterIPs: ['None'],
      ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
    }),
  );
  records.setEndpointSlice(
    slice(
      'default',
      'db',
      'db-1',
      [
        { addresses: ['10.244.1.10'], hostname: 'db-0', conditions: { ready: true } },
        { addresses: ['10.244.2.11'], hostname: 'db-1' },
        { addresses: ['10.244.2.12'], conditions: { ready: false } },
      ],
      [{ name: 'pg', port: 5432, protocol: 'TCP' }],
    ),
  );
  records.setService(
    service('default', 'late', { clusterIP: 'None', clusterIPs: ['None'], publishNotReadyAddresses: true }),
  );
  records.setEndpointSlice(
    slice('default', 'late', 'late-1', [{ addresses: ['10.244.3.7'], conditions: { ready: false } }]),
  );
  records.setService(service('default', 'nobody', { clusterIP: 'None', clusterIPs: ['None'] }));
  records.setService(service('default', 'ext', { type: 'ExternalName', externalName: 'example.com.' }));
  records.setService(
    service('default', 'alias', { type: 'ExternalName', externalName: 'web.default.svc.cluster.local' }),
  );
  return records;
}

function answered(name: string, type: string, records = cluster()): Answered {
  const resolution = resolve({ name, type }, records, settings);
  if (resolution.kind !== 'answer') throw new Error(`${name} ${type} was forwarded`);
  return resolution;
}

/** The answer section as `TYPE data` lines, sorted. */
function lines(resolution: Answered): string[] {
  return resolution.answers
    .map((answer) => {
      const data = 'data' in answer ? answer.data : undefined;
      if (answer.type === 'SRV' && data && typeof data === 'object' && 'target' in data) {
        return `SRV ${answer.name} ${data.priority} ${data.weight} ${data.port} ${data.target}`;
      }
      return `${answer.type} ${String(data)}`;
    })
    .sort();
}

describe('cluster zone answers', () => {
  const cases: [string, string, 'NOERROR' | 'NXDOMAIN', string[]][] = [
    ['web.default.svc.cluster.local', 'A', 'NOERROR', ['A 10.96.0.20']],
    ['WEB.Default.svc.cluster.local.', 'A', 'NOERROR', ['A 10.96.0.20']],
    ['web.default.svc.cluster.local', 'AAAA', 'NOERROR', []],
    ['web.default.svc.cluster.local', 'TXT', 'NOERROR', []],
    ['dual.default.svc.cluster.local', 'A', 'NOERROR', ['A 10.96.0.30']],
    ['dual.default.svc.cluster.local', 'AAAA', 'NOERROR', ['AAAA fd00:10:96::30']],
    ['missing.default.svc.cluster.local', 'A', 'NXDOMAIN', []],
    ['web.nowhere.svc.cluster.local', 'A', 'NXDOMAIN', []],
    ['empty.svc.cluster.local', 'A', 'NOERROR', []],
    ['nowhere.svc.cluster.local', 'A', 'NXDOMAIN', []],
    ['svc.cluster.local', 'A', 'NOERROR', []],
    ['other.cluster.local', 'A', 'NXDOMAIN', []],
    ['a.b.web.default.svc.cluster.local', 'A', 'NXDOMAIN', []],
    // Headless: ready endpoints only; hostnames name single endpoints; dashed addresses too.
    ['db.default.svc.cluster.local', 'A', 'NOERROR', ['A 10.244.1.10', 'A 10.244.2.11']],
    ['db-0.db.default.svc.cluster.local', 'A', 'NOERROR', ['A 10.244.1.10']],
    ['db-1.db.default.svc.cluster.local', 'A', 'NOERROR', ['A 10.244.2.11']],
    ['db-1.db.default.svc.cluster.local', 'AAAA', 'NOERROR', []],
    ['db-9.db.default.svc.cluster.local', 'A', 'NXDOMAIN', []],
    ['10-244-2-12.db.default.svc.cluster.local', 'A', 'NXDOMAIN', []],
    ['db-0.web.default.svc.cluster.local', 'A', 'NXDOMAIN', []],
    ['10-244-1-5.web.default.svc.cluster.local', 'A', 'NOERROR', ['A 10.244.1.5']],
    ['anything.ext.default.svc.cluster.local', 'A', 'NXDOMAIN', []],
    ['late.default.svc.cluster.local', 'A', 'NOERROR', ['A 10.244.3.7']],
    ['10-244-3-7.late.default.svc.cluster.local', 'A', 'NOERROR', ['A 10.244.3.7']],
    ['nobody.default.svc.cluster.local', 'A', 'NOERROR', []],
    // SRV: named ports only; a ClusterIP service's target is itself, a headless one's each endpoint.
    [
      '_http._tcp.web.default.svc.cluster.local',
      'SRV',
      'NOERROR',
      ['SRV _http._tcp.web.default.svc.cluster.local 0 100 80 web.default.svc.cluster.local'],
    ],
    ['_http._udp.web.default.svc.cluster.local', 'SRV', 'NXDOMAIN', []],
    ['_http._tcp.web.default.svc.cluster.local', 'A', 'NOERROR', []],
    ['_tcp.web.default.svc.cluster.local', 'A', 'NOERROR', []],
    ['_udp.web.default.svc.cluster.local', 'A', 'NXDOMAIN', []],
    [
      'web.default.svc.cluster.local',
      'SRV',
      'NOERROR',
      ['SRV _http._tcp.web.default.svc.cluster.local 0 100 80 web.default.svc.cluster.local'],
    ],
    [
      '_pg._tcp.db.default.svc.cluster.local',
      'SRV',
      'NOERROR',
      [
        'SRV _pg._tcp.db.default.svc.cluster.local 0 50 5432 db-0.db.default.svc.cluster.local',
        'SRV _pg._tcp.db.default.svc.cluster.local 0 50 5432 db-1.db.default.svc.cluster.local',
      ],
    ],
    // ExternalName: a CNAME whatever the type, its target to be resolved after it.
    ['ext.default.svc.cluster.local', 'A', 'NOERROR', ['CNAME example.com']],
    ['ext.default.svc.cluster.local', 'CNAME', 'NOERROR', ['CNAME example.com']],
    // Pods (`pods insecure`): any address in an existing namespace.
    ['10-244-1-99.default.pod.cluster.local', 'A', 'NOERROR', ['A 10.244.1.99']],
    ['fd00--1.default.pod.cluster.local', 'AAAA', 'NOERROR', ['AAAA fd00::1']],
    ['10-244-1-99.default.pod.cluster.local', 'AAAA', 'NOERROR', []],
    ['10-244-1-99.nowhere.pod.cluster.local', 'A', 'NXDOMAIN', []],
    ['not-an-ip.default.pod.cluster.local', 'A', 'NXDOMAIN', []],
    ['10-244-1-300.default.pod.cluster.local', 'A', 'NXDOMAIN', []],
    // The zone itself, its nameserver and the schema version.
    ['cluster.local', 'NS', 'NOERROR', ['NS ns.dns.cluster.local']],
    ['cluster.local', 'A', 'NOERROR', []],
    ['ns.dns.cluster.local', 'A', 'NOERROR', ['A 10.96.0.10']],
    ['dns-version.cluster.local', 'TXT', 'NOERROR', ['TXT 1.1.0']],
    // Reverse: service addresses, then endpoint addresses (hostname or dashed address).
    ['20.0.96.10.in-addr.arpa', 'PTR', 'NOERROR', ['PTR web.default.svc.cluster.local']],
    ['10.1.244.10.in-addr.arpa', 'PTR', 'NOERROR', ['PTR db-0.db.default.svc.cluster.local']],
    ['5.1.244.10.in-addr.arpa', 'PTR', 'NOERROR', ['PTR 10-244-1-5.web.default.svc.cluster.local']],
    [
      '0.3.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.6.9.0.0.0.1.0.0.0.0.d.f.ip6.arpa',
      'PTR',
      'NOERROR',
      ['PTR dual.default.svc.cluster.local'],
    ],
  ];

  it.each(cases)('%s %s → %s %j', (name, type, rcode, expected) => {
    const resolution = answered(name, type);
    expect(resolution.rcode).toBe(rcode);
    expect(lines(resolution)).toEqual(expected);
    for (const answer of resolution.answers) expect(answer).toMatchObject({ ttl: 30, class: 'IN' });
    if (expected.length === 0) {
      expect(resolution.authorities).toEqual([
        expect.objectContaining({
          type: 'SOA',
          name: 'cluster.local',
          ttl: 30,
          data: expect.objectContaining({ mname: 'ns.dns.cluster.local', rname: 'hostmaster.cluster.local' }),
        }),
      ]);
    } else {
      expect(resolution.authorities).toEqual([]);
    }
  });

  it('answers under the name as asked', () => {
    expect(answered('WEB.default.svc.cluster.local', 'A').answers[0]!.name).toBe(
      'WEB.default.svc.cluster.local',
    );
  });

  it('gives the SRV targets their addresses as additional records', () => {
    const resolution = answered('_pg._tcp.db.default.svc.cluster.local', 'SRV');
    expect(
      resolution.additionals.map((record) => `${record.name} ${'data' in record ? String(record.data) : ''}`),
    ).toEqual([
      'db-0.db.default.svc.cluster.local 10.244.1.10',
      'db-1.db.default.svc.cluster.local 10.244.2.11',
    ]);
  });

  it('asks for an ExternalName target to be resolved, but not for a CNAME query', () => {
    expect(answered('ext.default.svc.cluster.local', 'A').chase).toBe('example.com');
    expect(answered('alias.default.svc.cluster.local', 'AAAA').chase).toBe('web.default.svc.cluster.local');
    expect(answered('ext.default.svc.cluster.local', 'CNAME').chase).toBeUndefined();
  });

  it('forwards names outside the zone and reverse names of addresses it does not know', () => {
    for (const [name, type] of [
      ['example.com', 'A'],
      ['local', 'A'],
      ['cluster.local.example.com', 'A'],
      ['1.0.0.127.in-addr.arpa', 'PTR'],
      ['12.2.244.10.in-addr.arpa', 'PTR'],
      ['0.96.10.in-addr.arpa', 'PTR'],
    ] as const) {
      expect(resolve({ name, type }, cluster(), settings)).toEqual({ kind: 'forward' });
    }
  });

  it('follows changes: deleted services and slices, a slice moving between services', () => {
    const records = cluster();
    records.deleteService('default', 'web');
    expect(answered('web.default.svc.cluster.local', 'A', records).rcode).toBe('NXDOMAIN');
    records.deleteEndpointSlice('default', 'db-1');
    expect(lines(answered('db.default.svc.cluster.local', 'A', records))).toEqual([]);
    records.setEndpointSlice(
      slice('default', 'nobody', 'db-1', [{ addresses: ['10.244.9.9'], conditions: { ready: true } }]),
    );
    expect(lines(answered('nobody.default.svc.cluster.local', 'A', records))).toEqual(['A 10.244.9.9']);
    expect(resolve({ name: '20.0.96.10.in-addr.arpa', type: 'PTR' }, records, settings)).toEqual({
      kind: 'forward',
    });
    expect(lines(answered('9.9.244.10.in-addr.arpa', 'PTR', records))).toEqual([
      'PTR 10-244-9-9.nobody.default.svc.cluster.local',
    ]);
  });

  it('ignores FQDN slices and slices without a service label', () => {
    const records = cluster();
    records.setEndpointSlice(
      slice('default', 'nobody', 'fqdn', [{ addresses: ['example.com'] }], [], 'FQDN'),
    );
    records.setEndpointSlice({
      ...slice('default', 'x', 'orphan', [{ addresses: ['10.0.0.1'] }]),
      metadata: { namespace: 'default', name: 'orphan' },
    });
    expect(lines(answered('nobody.default.svc.cluster.local', 'A', records))).toEqual([]);
  });
});
