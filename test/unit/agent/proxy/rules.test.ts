import { describe, expect, it } from 'vitest';
import { generateRules, restoreInput } from '../../../../src/agent/proxy/rules.js';
import { CLUSTER_CIDR, endpoint, NODE, service, slice, state } from './fixtures.js';

const node = { clusterCIDR: CLUSTER_CIDR, nodeName: NODE, zone: '' };
const SVC = 'KUBE-SVC-XPGD46QRK7WJZT7O';
const EXT = 'KUBE-EXT-XPGD46QRK7WJZT7O';
const SVL = 'KUBE-SVL-XPGD46QRK7WJZT7O';

/** The whole restore text of a state, for assertions on lines. */
function linesOf(...args: Parameters<typeof state>): string[] {
  return restoreInput(generateRules(state(...args), node)).split('\n');
}

const web = (spec: Record<string, unknown> = {}) =>
  service('svc1', { clusterIP: '172.30.0.41', ports: [{ name: 'p80', port: 80, protocol: 'TCP' }], ...spec });
const webSlice = (...endpoints: ReturnType<typeof endpoint>[]) =>
  slice('svc1', [{ name: 'p80', port: 80, protocol: 'TCP' }], endpoints);

describe('generateRules', () => {
  it('spreads a cluster IP evenly over three endpoints with statistic probabilities', () => {
    const lines = linesOf(
      [web()],
      [
        webSlice(
          endpoint('10.180.0.3', 'other'),
          endpoint('10.180.0.1', NODE),
          endpoint('10.180.0.2', 'other'),
        ),
      ],
    );
    expect(lines).toContain(
      `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j ${SVC}`,
    );
    const svcRules = lines.filter((line) => line.startsWith(`-A ${SVC} `));
    expect(svcRules).toEqual([
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ`,
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m statistic --mode random --probability 0.3333333333 -j KUBE-SEP-SXIVWICOYRO3J4NJ`,
      expect.stringMatching(
        /-> 10\.180\.0\.2:80" -m statistic --mode random --probability 0\.5000000000 -j KUBE-SEP-/,
      ),
      expect.stringMatching(/-> 10\.180\.0\.3:80" -j KUBE-SEP-/),
    ]);
    expect(lines).toContain(':KUBE-SEP-SXIVWICOYRO3J4NJ - [0:0]');
    expect(lines).toContain(
      '-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ',
    );
    expect(lines).toContain(
      '-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80',
    );
  });

  it('writes the fixed chains: postrouting masquerade by mark, forward rules, nodeports last', () => {
    const text = restoreInput(generateRules(state([], []), node));
    expect(text).toBe(
      [
        '*filter',
        ':KUBE-SERVICES - [0:0]',
        ':KUBE-EXTERNAL-SERVICES - [0:0]',
        ':KUBE-FORWARD - [0:0]',
        ':KUBE-NODEPORTS - [0:0]',
        ':KUBE-PROXY-FIREWALL - [0:0]',
        ':KUBE-FIREWALL - [0:0]',
        '-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP',
        '-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP',
        '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x004000/0x004000 -j ACCEPT',
        '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
        'COMMIT',
        '*nat',
        ':KUBE-SERVICES - [0:0]',
        ':KUBE-NODEPORTS - [0:0]',
        ':KUBE-POSTROUTING - [0:0]',
        ':KUBE-MARK-MASQ - [0:0]',
        '-A KUBE-POSTROUTING -m mark ! --mark 0x004000/0x004000 -j RETURN',
        '-A KUBE-POSTROUTING -j MARK --xor-mark 0x004000',
        '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
        '-A KUBE-MARK-MASQ -j MARK --or-mark 0x004000',
        '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
        'COMMIT',
        '',
      ].join('\n'),
    );
  });

  it('rejects traffic to a service without endpoints in the filter table, and writes no nat chain', () => {
    const lines = linesOf(
      [web({ type: 'NodePort', ports: [{ name: 'p80', port: 80, nodePort: 30080 }] })],
      [],
    );
    expect(lines).toContain(
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j REJECT',
    );
    expect(lines).toContain(
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j REJECT',
    );
    expect(lines.filter((line) => line.includes('KUBE-SVC-') || line.includes('KUBE-SEP-'))).toEqual([]);
  });

  it('sends node ports (TCP, UDP, SCTP) through the external chain, masqueraded under Cluster policy', () => {
    const ports = [
      { name: 'p80', port: 80, protocol: 'TCP', nodePort: 30080 },
      { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 },
      { name: 'sc', port: 9, protocol: 'SCTP', nodePort: 30009 },
    ];
    const lines = linesOf(
      [web({ type: 'NodePort', ports })],
      [
        slice(
          'svc1',
          ports.map(({ nodePort: _, ...port }) => port),
          [endpoint('10.180.0.1', 'other')],
        ),
      ],
    );
    expect(lines).toContain(
      `-A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp --dport 30080 -j ${EXT}`,
    );
    expect(lines).toContain(
      `-A ${EXT} -m comment --comment "masquerade traffic for ns1/svc1:p80 external destinations" -j KUBE-MARK-MASQ`,
    );
    expect(lines).toContain(`-A ${EXT} -j ${SVC}`);
    expect(
      lines.some((line) => /-A KUBE-NODEPORTS .* -m udp -p udp --dport 30053 -j KUBE-EXT-/.test(line)),
    ).toBe(true);
    expect(
      lines.some((line) => /-A KUBE-NODEPORTS .* -m sctp -p sctp --dport 30009 -j KUBE-EXT-/.test(line)),
    ).toBe(true);
    expect(lines.some((line) => line.includes('-m udp -p udp -j DNAT --to-destination 10.180.0.1:53'))).toBe(
      true,
    );
  });

  it('keeps the source address under externalTrafficPolicy Local and uses only local endpoints', () => {
    const spec = {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 30999,
      ports: [{ name: 'p80', port: 80, nodePort: 30080 }],
    };
    const slices = [webSlice(endpoint('10.180.0.1', NODE), endpoint('10.180.1.1', 'other'))];
    const lines = linesOf([web(spec)], slices);
    expect(lines.filter((line) => line.startsWith(`-A ${EXT} `))).toEqual([
      `-A ${EXT} -m comment --comment "pod traffic for ns1/svc1:p80 external destinations" -s 10.244.0.0/16 -j ${SVC}`,
      `-A ${EXT} -m comment --comment "masquerade LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
      `-A ${EXT} -m comment --comment "route LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j ${SVC}`,
      `-A ${EXT} -j ${SVL}`,
    ]);
    expect(lines.filter((line) => line.startsWith(`-A ${SVL} `))).toEqual([
      `-A ${SVL} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ`,
    ]);
    expect(lines).toContain(
      '-A KUBE-NODEPORTS -m comment --comment "ns1/svc1:p80 health check node port" -m tcp -p tcp --dport 30999 -j ACCEPT',
    );
    const rules = generateRules(state([web(spec)], slices), node);
    expect(rules.healthChecks).toEqual([{ namespace: 'ns1', name: 'svc1', port: 30999, localEndpoints: 1 }]);

    // On a node without a local endpoint: outside traffic is dropped, pods still reach the service.
    const remote = linesOf([web(spec)], [webSlice(endpoint('10.180.1.1', 'other'))]);
    expect(remote).toContain(
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j DROP',
    );
    expect(remote).not.toContain(`-A ${EXT} -j ${SVL}`);
    expect(
      remote.some((line) => line.startsWith(`-A ${EXT} `) && line.endsWith(`-s 10.244.0.0/16 -j ${SVC}`)),
    ).toBe(true);
  });

  it('routes internalTrafficPolicy Local only to the node its own endpoint, and drops it without one', () => {
    const dns = (node: string) =>
      linesOf(
        [
          service('kube-dns', {
            clusterIP: '10.96.0.10',
            internalTrafficPolicy: 'Local',
            ports: [{ name: 'dns', port: 53, protocol: 'UDP' }],
          }),
        ],
        [
          slice(
            'kube-dns',
            [{ name: 'dns', port: 53, protocol: 'UDP' }],
            [endpoint('172.30.0.2', 'px-node-1'), endpoint('172.30.0.3', 'px-node-2')],
          ),
        ],
        node,
      );
    const onNode1 = dns('px-node-1');
    const svl = onNode1.find((line) => line.startsWith('-A KUBE-SERVICES') && line.includes('10.96.0.10'));
    expect(svl).toMatch(/-m udp -p udp -d 10\.96\.0\.10 --dport 53 -j KUBE-SVL-/);
    expect(onNode1.filter((line) => line.includes('-j DNAT'))).toEqual([
      expect.stringContaining('--to-destination 172.30.0.2:53'),
    ]);
    expect(dns('px-node-3')).toContain(
      '-A KUBE-SERVICES -m comment --comment "ns1/kube-dns:dns has no local endpoints" -m udp -p udp -d 10.96.0.10 --dport 53 -j DROP',
    );
  });

  it('pins a client with the recent module and the affinity timeout', () => {
    const spec = { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } };
    const lines = linesOf(
      [web(spec)],
      [webSlice(endpoint('10.180.0.1', NODE), endpoint('10.180.0.2', NODE))],
    );
    const svcRules = lines.filter((line) => line.startsWith(`-A ${SVC} `));
    expect(svcRules[1]).toBe(
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m recent --name KUBE-SEP-SXIVWICOYRO3J4NJ --rcheck --seconds 60 --reap -j KUBE-SEP-SXIVWICOYRO3J4NJ`,
    );
    expect(lines).toContain(
      '-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m recent --name KUBE-SEP-SXIVWICOYRO3J4NJ --set -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80',
    );
    const defaults = linesOf(
      [web({ sessionAffinity: 'ClientIP' })],
      [webSlice(endpoint('10.180.0.1', NODE))],
    );
    expect(defaults.some((line) => line.includes('--rcheck --seconds 10800 --reap'))).toBe(true);
  });

  it('resolves a named targetPort per endpoint from the slices ports', () => {
    const lines = linesOf(
      [web()],
      [
        slice(
          'svc1',
          [{ name: 'p80', port: 8080, protocol: 'TCP' }],
          [endpoint('10.180.0.1', NODE)],
          {},
          'a',
        ),
        slice(
          'svc1',
          [{ name: 'p80', port: 9090, protocol: 'TCP' }],
          [endpoint('10.180.0.2', NODE)],
          {},
          'b',
        ),
      ],
    );
    const dnat = lines.filter((line) => line.includes('-j DNAT')).map((line) => line.split(' ').pop());
    expect(dnat).toEqual(['10.180.0.1:8080', '10.180.0.2:9090']);
  });

  it('falls back to serving terminating endpoints only when none is ready', () => {
    const terminating = { ready: false, serving: true, terminating: true };
    const both = linesOf(
      [web()],
      [webSlice(endpoint('10.180.0.1', NODE), endpoint('10.180.0.2', NODE, terminating))],
    );
    expect(both.filter((line) => line.includes('-j DNAT'))).toHaveLength(1);
    const onlyTerminating = linesOf(
      [web()],
      [
        webSlice(
          endpoint('10.180.0.2', NODE, terminating),
          endpoint('10.180.0.3', NODE, { ready: false, serving: false, terminating: true }),
        ),
      ],
    );
    expect(onlyTerminating.filter((line) => line.includes('-j DNAT'))).toEqual([
      expect.stringContaining('--to-destination 10.180.0.2:80'),
    ]);
    const notReady = linesOf(
      [web()],
      [webSlice(endpoint('10.180.0.2', NODE, { ready: false, serving: false }))],
    );
    expect(notReady.some((line) => line.endsWith('-j REJECT'))).toBe(true);
  });

  it('ignores ExternalName, headless and other proxies services', () => {
    const lines = linesOf(
      [
        service('ext', { type: 'ExternalName', externalName: 'example.com' }),
        service('headless', { clusterIP: 'None', ports: [{ port: 80 }] }),
        service(
          'other',
          { clusterIP: '172.30.0.50', ports: [{ port: 80 }] },
          {
            metadata: {
              name: 'other',
              namespace: 'ns1',
              labels: { 'service.kubernetes.io/service-proxy-name': 'x' },
            },
          },
        ),
      ],
      [],
    );
    expect(lines.filter((line) => line.includes('ns1/'))).toEqual([]);
  });

  it('routes load-balancer addresses and filters them by loadBalancerSourceRanges', () => {
    const spec = {
      type: 'LoadBalancer',
      loadBalancerSourceRanges: ['192.168.0.0/24'],
      ports: [{ name: 'p80', port: 80, nodePort: 30080 }],
    };
    const lines = linesOf(
      [web(spec)].map((svc) => ({ ...svc, status: { loadBalancer: { ingress: [{ ip: '172.30.0.200' }] } } })),
      [webSlice(endpoint('10.180.0.1', NODE))],
    );
    expect(lines).toContain(
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 loadbalancer IP" -m tcp -p tcp -d 172.30.0.200 --dport 80 -j KUBE-FW-XPGD46QRK7WJZT7O',
    );
    expect(lines).toContain(
      `-A KUBE-FW-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 loadbalancer IP" -s 192.168.0.0/24 -j ${EXT}`,
    );
    expect(lines).toContain(
      '-A KUBE-PROXY-FIREWALL -m comment --comment "ns1/svc1:p80 traffic not accepted by KUBE-FW-XPGD46QRK7WJZT7O" -m tcp -p tcp -d 172.30.0.200 --dport 80 -j DROP',
    );
  });
});

describe('large clusters', () => {
  it('drops the endpoint rules comments above 1000 endpoints, as upstream', () => {
    const ips = (n: number) =>
      Array.from({ length: n }, (_, i) => endpoint(`10.180.${i >> 8}.${i & 255}`, NODE));
    const small = linesOf([web()], [webSlice(...ips(1000))]);
    expect(
      small.filter((line) => line.startsWith('-A KUBE-SEP-')).every((line) => line.includes('--comment')),
    ).toBe(true);
    const large = linesOf([web()], [webSlice(...ips(1001))]);
    const endpointRules = large.filter(
      (line) => line.startsWith('-A KUBE-SEP-') || line.includes('-j KUBE-SEP-'),
    );
    expect(endpointRules).toHaveLength(3 * 1001);
    expect(endpointRules.some((line) => line.includes('--comment'))).toBe(false);
    expect(large).toContain('-A KUBE-SEP-SXIVWICOYRO3J4NJ -s 10.180.0.1 -j KUBE-MARK-MASQ');
  });
});

describe('malformed input', () => {
  it('skips what it cannot use in hand-written slices and services, and still writes valid rules', () => {
    const bad = [
      { ...webSlice(endpoint('10.180.0.1', NODE)), addressType: 'FQDN' },
      slice('svc1', [{ name: 'p80', port: 0, protocol: 'TCP' }], [endpoint('10.180.0.2', NODE)], {}, 'b'),
      slice('svc1', [{ name: 'p80', port: 80, protocol: 'ICMP' }], [endpoint('10.180.0.3', NODE)], {}, 'c'),
      slice(
        'svc1',
        [{ name: 'p80', port: 80, protocol: 'TCP' }],
        [{ addresses: [] }, { addresses: ['not-an-ip'] }],
        {},
        'd',
      ),
      {
        ...webSlice(endpoint('10.180.0.4', NODE)),
        ports: undefined,
        endpoints: undefined,
      } as unknown as ReturnType<typeof webSlice>,
      { ...webSlice(endpoint('10.180.0.5', NODE)), metadata: { namespace: 'ns1', name: 'nolabel' } },
    ];
    const badService = web({
      ports: [
        { name: 'p80', port: 70000 },
        { name: 'x', port: 80, protocol: 'ICMP' },
      ],
    });
    const lines = linesOf([web(), badService], bad);
    expect(lines.filter((line) => line.includes('-j DNAT'))).toEqual([]);
    expect(lines).toContain(
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j REJECT',
    );
    expect(lines.some((line) => line.includes('70000') || line.includes('icmp'))).toBe(false);
  });
});

describe('restoreInput', () => {
  const before = generateRules(
    state([web()], [webSlice(endpoint('10.180.0.1', NODE), endpoint('10.180.0.2', NODE))]),
    node,
  );

  it('writes only the service chains that changed, and deletes the ones gone', () => {
    const after = generateRules(state([web()], [webSlice(endpoint('10.180.0.1', NODE))]), node);
    const text = restoreInput(after, { previous: before.serviceChains }).split('\n');
    const removedSep = [...before.serviceChains.keys()].find((chain) => !after.serviceChains.has(chain))!;
    expect(text).toContain(`:${SVC} - [0:0]`);
    expect(text).not.toContain(':KUBE-SEP-SXIVWICOYRO3J4NJ - [0:0]');
    expect(text).toContain(`:${removedSep} - [0:0]`);
    expect(text).toContain(`-X ${removedSep}`);
    // Deletions come after every rule that could still point at the chain.
    expect(text.indexOf(`-X ${removedSep}`)).toBeGreaterThan(text.lastIndexOf(`-A ${SVC} `.trim()));
  });

  it('writes nothing of an unchanged service, and every chain without a previous state', () => {
    const unchanged = restoreInput(before, { previous: before.serviceChains });
    expect(unchanged).not.toContain('KUBE-SEP-');
    expect(unchanged).toContain('-j KUBE-SVC-XPGD46QRK7WJZT7O');
    const full = restoreInput(before, { staleChains: ['KUBE-SEP-AAAAAAAAAAAAAAAA'] });
    expect(full).toContain(':KUBE-SEP-SXIVWICOYRO3J4NJ - [0:0]');
    expect(full).toContain('-X KUBE-SEP-AAAAAAAAAAAAAAAA');
  });
});

describe('topology hints (pkg/proxy/topology.go)', () => {
  const hinted = (ip: string, on: string, hints: { nodes?: string[]; zones?: string[] }, ready = true) => ({
    ...endpoint(ip, on, { ready }),
    hints: {
      ...(hints.zones && { forZones: hints.zones.map((name) => ({ name })) }),
      ...(hints.nodes && { forNodes: hints.nodes.map((name) => ({ name })) }),
    },
  });
  /** The endpoints the service's cluster chain reaches on a node in `zone`. */
  const clusterTargets = (endpoints: ReturnType<typeof endpoint>[], zone = '', spec = {}) => {
    const rules = generateRules(state([web(spec)], [webSlice(...endpoints)]), { ...node, zone });
    return restoreInput(rules)
      .split('\n')
      .filter((line) => line.startsWith(`-A ${SVC} `) && line.includes('-j KUBE-SEP-'))
      .map((line) => /-> ([\d.]+):80"/.exec(line)?.[1])
      .sort();
  };

  it('keeps traffic on this node when every ready endpoint has a node hint and one names it', () => {
    expect(
      clusterTargets([
        hinted('10.180.0.1', NODE, { nodes: [NODE], zones: ['zone-a'] }),
        hinted('10.180.1.1', 'other', { nodes: ['other'], zones: ['zone-a'] }),
        hinted('10.180.2.1', 'third', { nodes: ['third'], zones: ['zone-b'] }),
      ]),
    ).toEqual(['10.180.0.1']);
  });

  it('falls back to zone hints, then to every endpoint, where node hints cannot be used', () => {
    const inZones = (ownNode: string[]) => [
      hinted('10.180.0.1', NODE, { nodes: ownNode, zones: ['zone-a'] }),
      hinted('10.180.1.1', 'other', { nodes: ['other'], zones: ['zone-a'] }),
      hinted('10.180.2.1', 'third', { nodes: ['third'], zones: ['zone-b'] }),
    ];
    // No endpoint is meant for this node: the zone decides.
    expect(clusterTargets(inZones(['elsewhere']), 'zone-a')).toEqual(['10.180.0.1', '10.180.1.1']);
    expect(clusterTargets(inZones(['elsewhere']), 'zone-b')).toEqual(['10.180.2.1']);
    // A node outside every hinted zone, or without a zone label, uses them all.
    expect(clusterTargets(inZones(['elsewhere']), 'zone-c')).toHaveLength(3);
    expect(clusterTargets(inZones(['elsewhere']), '')).toHaveLength(3);
    // One ready endpoint without a node hint voids the node hints of all of them.
    expect(
      clusterTargets([...inZones([NODE]).slice(1), endpoint('10.180.0.1', NODE)], 'zone-b'),
    ).toHaveLength(3);
  });

  it('ignores hints of endpoints that are not ready, and never routes to them', () => {
    const targets = clusterTargets([
      hinted('10.180.0.1', NODE, { nodes: [NODE] }, false),
      hinted('10.180.1.1', 'other', { nodes: ['other'] }),
      endpoint('10.180.2.1', 'third', { ready: false }),
    ]);
    // This node's only hinted endpoint is not ready: no same-node mode, every ready endpoint.
    expect(targets).toEqual(['10.180.1.1']);
  });

  it('sends pods to a LoadBalancer address through the hinted cluster endpoints under externalTrafficPolicy Local', () => {
    const spec = {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 30999,
      ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 30080 }],
    };
    const endpoints = [
      hinted('10.180.0.1', NODE, { nodes: [NODE] }),
      hinted('10.180.1.1', 'other', { nodes: ['other'] }),
    ];
    expect(clusterTargets(endpoints, '', spec)).toEqual(['10.180.0.1']);
    const lines = restoreInput(generateRules(state([web(spec)], [webSlice(...endpoints)]), node)).split('\n');
    expect(lines).toContain(
      `-A ${EXT} -m comment --comment "pod traffic for ns1/svc1:p80 external destinations" -s 10.244.0.0/16 -j ${SVC}`,
    );
    // The other node's endpoint keeps no chain here: nothing on this node routes to it.
    expect(lines.some((line) => line.includes('--to-destination 10.180.1.1:80'))).toBe(false);
  });
});
