// The proxy's sync loop against the real iptables, in a network namespace made for the test (needs
// root and `ip netns`; skipped elsewhere). Informers read a fake API.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Iptables } from '../../../../src/agent/proxy/iptables.js';
import { iptablesIn } from '../../../../src/agent/proxy/iptables.js';
import { Proxier } from '../../../../src/agent/proxy/proxier.js';
import { findResource } from '../../../../src/api/resources/lookup.js';
import type { Node, Service } from '../../../../src/api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../../../src/api/types/discovery-v1.generated.js';
import { SharedInformer } from '../../../../src/client/informers/index.js';
import { eventually, FakeResourceClient } from '../../client-runtime/fake-client.js';
import { CLUSTER_CIDR, endpoint, NODE, service, slice } from './fixtures.js';

const NETNS = `tkube-px-${process.pid}`;
const canNetns = process.getuid?.() === 0 && spawnSync('ip', ['netns', 'list']).status === 0;

const save = (table: string) =>
  execFileSync('ip', ['netns', 'exec', NETNS, 'iptables-save', '-t', table], { encoding: 'utf8' });

describe.skipIf(!canNetns)('Proxier', () => {
  beforeAll(() => {
    execFileSync('ip', ['netns', 'add', NETNS]);
  });
  afterAll(() => {
    spawnSync('ip', ['netns', 'delete', NETNS]);
  });

  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    // A clean namespace for the next test.
    spawnSync('ip', ['netns', 'delete', NETNS]);
    execFileSync('ip', ['netns', 'add', NETNS]);
  });

  function start(
    options: {
      iptables?: Iptables;
      minSyncPeriodMs?: number;
      syncPeriodMs?: number;
      fullSyncPeriodMs?: number;
    } = {},
  ) {
    const services = new FakeResourceClient<Service>(findResource('', 'v1', 'services')!);
    const slices = new FakeResourceClient<EndpointSlice>(
      findResource('discovery.k8s.io', 'v1', 'endpointslices')!,
    );
    const servicesInformer = new SharedInformer<Service>(services, { log: () => {} });
    const slicesInformer = new SharedInformer<EndpointSlice>(slices, { log: () => {} });
    const nodes = new FakeResourceClient<Node>(findResource('', 'v1', 'nodes')!);
    const nodeInformer = new SharedInformer<Node>(nodes, { log: () => {} });
    const restores: string[] = [];
    const commands: string[] = [];
    const real = options.iptables ?? iptablesIn(['ip', 'netns', 'exec', NETNS]);
    const logs: string[] = [];
    const proxier = new Proxier({
      nodeName: NODE,
      clusterCIDR: CLUSTER_CIDR,
      services: servicesInformer,
      endpointSlices: slicesInformer,
      node: nodeInformer,
      iptables: {
        save: () => {
          commands.push('save');
          return real.save();
        },
        hasRule: (table, chain, args) => {
          commands.push(`check ${chain}`);
          return real.hasRule(table, chain, args);
        },
        restore: async (input) => {
          restores.push(input);
          commands.push('restore');
          await real.restore(input);
        },
      },
      conntrack: async () => {},
      minSyncPeriodMs: options.minSyncPeriodMs ?? 200,
      syncPeriodMs: options.syncPeriodMs ?? 60_000,
      fullSyncPeriodMs: options.fullSyncPeriodMs ?? 60_000,
      log: (message) => logs.push(message),
    });
    const abort = new AbortController();
    const done = Promise.all([
      servicesInformer.run(abort.signal),
      slicesInformer.run(abort.signal),
      nodeInformer.run(abort.signal),
      proxier.run(abort.signal),
    ]);
    stops.push(async () => {
      abort.abort();
      await done;
    });
    return { services, slices, nodes, proxier, restores, commands, logs };
  }

  const web = service('web', { clusterIP: '10.96.0.20', ports: [{ name: 'http', port: 80 }] });
  const webSlice = (...ips: string[]) =>
    slice(
      'web',
      [{ name: 'http', port: 8080, protocol: 'TCP' }],
      ips.map((ip) => endpoint(ip, NODE)),
    );

  it('programs the jumps and the rules once both caches are synced', async () => {
    const { services, slices, proxier } = start();
    services.put(web);
    slices.put(webSlice('10.244.1.2', '10.244.1.3'));
    await eventually(() => proxier.syncs >= 1, 5000);
    const nat = save('nat');
    expect(nat).toContain('-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES');
    expect(nat).toContain(
      '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
    );
    expect(nat).toMatch(/-A KUBE-SEP-\w+ .*-j DNAT --to-destination 10\.244\.1\.3:8080/);
    expect(save('filter')).toContain(
      '-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD',
    );
  });

  const jumpCount = (saved: string, line: string) => saved.split('\n').filter((l) => l === line).length;
  const SERVICES_FROM_OUTPUT = '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES';
  const FORWARD_RULES = '-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD';

  it('puts the jumps in with one save and one restore, and full resyncs neither repeat nor re-check them', async () => {
    const { services, slices, proxier, commands } = start({ fullSyncPeriodMs: 300, syncPeriodMs: 300 });
    services.put(web);
    slices.put(webSlice('10.244.1.2'));
    await eventually(() => proxier.syncs >= 4, 10_000);
    // A fresh table: every jump's target chain is missing, so no `iptables -C` is needed.
    expect(commands.slice(0, 2)).toEqual(['save', 'restore']);
    // Later full syncs find every jump as iptables-save prints it.
    expect(commands.filter((command) => command.startsWith('check'))).toEqual([]);
    expect(commands.filter((command) => command === 'save').length).toBeGreaterThanOrEqual(2);
    expect(jumpCount(save('nat'), SERVICES_FROM_OUTPUT)).toBe(1);
    expect(jumpCount(save('filter'), FORWARD_RULES)).toBe(1);
    // Upstream's order: each jump put first in turn, so the last listed leads its chain.
    const input = save('filter')
      .split('\n')
      .filter((line) => line.startsWith('-A INPUT '));
    expect(input[0]).toBe('-A INPUT -j KUBE-FIREWALL');
  });

  it('puts back a jump deleted by hand at the next full sync, and keeps rules found there', async () => {
    const iptables = (...args: string[]) => execFileSync('ip', ['netns', 'exec', NETNS, 'iptables', ...args]);
    const comment = (text: string, target: string) => ['-m', 'comment', '--comment', text, '-j', target];
    // An earlier agent's chains and one of its jumps, as after a restart.
    iptables('-t', 'nat', '-N', 'KUBE-SERVICES');
    iptables('-t', 'nat', '-A', 'OUTPUT', ...comment('kubernetes service portals', 'KUBE-SERVICES'));
    const { services, proxier } = start({ fullSyncPeriodMs: 300, syncPeriodMs: 300 });
    services.put(web);
    await eventually(() => proxier.syncs >= 1, 5000);
    expect(jumpCount(save('nat'), SERVICES_FROM_OUTPUT)).toBe(1);
    iptables('-D', 'FORWARD', ...comment('kubernetes forwarding rules', 'KUBE-FORWARD'));
    expect(jumpCount(save('filter'), FORWARD_RULES)).toBe(0);
    await eventually(() => jumpCount(save('filter'), FORWARD_RULES) === 1, 5000);
    expect(jumpCount(save('nat'), SERVICES_FROM_OUTPUT)).toBe(1);
  });

  it('follows its node zone label: zone hints apply once the node is labelled', async () => {
    const { services, slices, nodes, proxier } = start();
    const inZone = (ip: string, zone: string) => ({
      ...endpoint(ip, `node-in-${zone}`),
      zone,
      hints: { forZones: [{ name: zone }] },
    });
    services.put(web);
    slices.put(
      slice(
        'web',
        [{ name: 'http', port: 8080, protocol: 'TCP' }],
        [inZone('10.244.1.2', 'zone-a'), inZone('10.244.2.2', 'zone-b')],
      ),
    );
    nodes.put({ metadata: { name: NODE } });
    const destinations = () =>
      [...save('nat').matchAll(/--to-destination ([\d.]+):8080/g)].map((match) => match[1]).sort();
    await eventually(() => proxier.syncs >= 1, 5000);
    expect(destinations()).toEqual(['10.244.1.2', '10.244.2.2']);
    nodes.put({ metadata: { name: NODE, labels: { 'topology.kubernetes.io/zone': 'zone-b' } } });
    await eventually(() => destinations().length === 1, 5000);
    expect(destinations()).toEqual(['10.244.2.2']);
  });

  it('coalesces a burst of changes into one sync and writes only the changed chains', async () => {
    const { services, slices, proxier, restores } = start({ minSyncPeriodMs: 500 });
    services.put(web);
    services.put(service('other', { clusterIP: '10.96.0.21', ports: [{ port: 81 }] }));
    slices.put(webSlice('10.244.1.2'));
    slices.put(slice('other', [{ port: 81, protocol: 'TCP' }], [endpoint('10.244.7.9', NODE)]));
    await eventually(
      () => save('nat').includes('10.244.7.9:81') && save('nat').includes('10.244.1.2:8080'),
      5000,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = proxier.syncs;
    const firstRestores = restores.length;
    for (let i = 3; i < 13; i++)
      slices.put(webSlice(...Array.from({ length: i - 1 }, (_, j) => `10.244.1.${j + 2}`)));
    await eventually(() => save('nat').includes('10.244.1.12:8080'), 5000);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(proxier.syncs - before).toBeLessThanOrEqual(2);
    const partial = restores.slice(firstRestores).join('\n');
    // The other service's chains were not rewritten.
    expect(partial).not.toContain('10.244.7.9');
    expect(partial).toContain('-A KUBE-SERVICES'); // fixed chains are written whole
    expect(save('nat')).toContain('10.244.7.9:81');
  });

  it('deletes the chains of removed endpoints and services, leaving no stale chain', async () => {
    const { services, slices } = start();
    services.put(web);
    slices.put(webSlice('10.244.1.2', '10.244.1.3'));
    await eventually(() => save('nat').includes('10.244.1.3:8080'), 5000);
    slices.put(webSlice('10.244.1.2'));
    await eventually(() => !save('nat').includes('10.244.1.3'), 5000);
    services.remove('ns1', 'web');
    slices.remove('ns1', 'web-abcde');
    await eventually(() => !/KUBE-(SVC|SEP)-/.test(save('nat')), 5000);
    expect(save('filter')).not.toContain('ns1/web');
  });

  it('rejects a service without endpoints at once in the filter table', async () => {
    const { services, proxier } = start();
    services.put(web);
    await eventually(() => proxier.syncs >= 1, 5000);
    expect(save('filter')).toContain(
      '-A KUBE-SERVICES -d 10.96.0.20/32 -p tcp -m comment --comment "ns1/web:http has no endpoints" -m tcp --dport 80 -j REJECT',
    );
  });

  it('leaves the old rules when a restore fails, and retries with a full sync', async () => {
    const real = iptablesIn(['ip', 'netns', 'exec', NETNS]);
    let failNext = false;
    const { services, slices, proxier, logs } = start({
      syncPeriodMs: 600,
      iptables: {
        ...real,
        // The fault: iptables-restore refusing input, as when the kernel lacks a module.
        restore: async (input) => {
          if (failNext) {
            failNext = false;
            throw new Error('iptables-restore: line 3 failed');
          }
          await real.restore(input);
        },
      },
    });
    services.put(web);
    slices.put(webSlice('10.244.1.2'));
    await eventually(() => proxier.syncs >= 1, 5000);
    failNext = true;
    slices.put(webSlice('10.244.1.5'));
    await eventually(() => logs.some((line) => line.includes('partial sync failed')), 5000);
    expect(save('nat')).toContain('10.244.1.2:8080');
    await eventually(() => save('nat').includes('10.244.1.5:8080'), 5000);
    expect(save('nat')).not.toContain('10.244.1.2:8080');
    expect(proxier.metrics.render()).toContain(
      'kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total 1',
    );
  });

  it('puts back rules removed behind its back at the periodic full resync', async () => {
    const { services, slices, proxier } = start({ syncPeriodMs: 400, fullSyncPeriodMs: 1200 });
    services.put(web);
    slices.put(webSlice('10.244.1.2'));
    await eventually(() => save('nat').includes('--to-destination 10.244.1.2:8080'), 5000);
    const sep = /^:(KUBE-SEP-\w+)/m.exec(save('nat'))![1]!;
    execFileSync('ip', ['netns', 'exec', NETNS, 'iptables', '-t', 'nat', '-F', sep]);
    execFileSync('ip', [
      'netns',
      'exec',
      NETNS,
      'iptables',
      '-t',
      'nat',
      '-D',
      'PREROUTING',
      '-m',
      'comment',
      '--comment',
      'kubernetes service portals',
      '-j',
      'KUBE-SERVICES',
    ]);
    expect(save('nat')).not.toContain('--to-destination 10.244.1.2:8080');
    const before = proxier.syncs;
    await eventually(() => save('nat').includes('--to-destination 10.244.1.2:8080'), 5000);
    expect(save('nat')).toContain(
      '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    );
    expect(proxier.syncs).toBeGreaterThan(before);
    await eventually(
      () => /kubeproxy_sync_full_proxy_rules_duration_seconds_count [2-9]/.test(proxier.metrics.render()),
      5000,
    );
  });

  it('reports sync durations, the last sync time and network programming latency', async () => {
    const { services, slices, proxier } = start();
    services.put(web);
    await eventually(() => proxier.syncs >= 1, 5000);
    const changed = webSlice('10.244.1.2');
    changed.metadata!.annotations = {
      'endpoints.kubernetes.io/last-change-trigger-time': new Date().toISOString(),
    };
    slices.put(changed);
    await eventually(() => proxier.syncs >= 2, 5000);
    const text = proxier.metrics.render();
    expect(text).toMatch(/kubeproxy_sync_proxy_rules_duration_seconds_count [1-9]/);
    expect(text).toMatch(/kubeproxy_sync_proxy_rules_last_timestamp_seconds \d/);
    expect(text).toContain('kubeproxy_network_programming_duration_seconds_count 1');
    expect(text).toContain('kubeproxy_network_programming_duration_seconds_bucket{le="2"} 1');
  });
});
