// The generated text against the real iptables-restore, in a network namespace of its own so the
// machine's rules are never touched (needs root and unshare; skipped elsewhere).
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { generateRules, restoreInput } from '../../../../src/agent/proxy/rules.js';
import { endpoint, NODE, service, slice, state } from './fixtures.js';

const canUnshare =
  process.getuid?.() === 0 && spawnSync('unshare', ['-n', 'iptables-restore', '--version']).status === 0;

function restoreInFreshNamespace(...inputs: string[]): string {
  const script = inputs.map((_, i) => `iptables-restore --noflush <"$${i + 1}" || exit 1`).join('\n');
  const files = inputs.map((input, i) => {
    const path = `/tmp/tkube-proxy-restore-${process.pid}-${i}`;
    execFileSync('sh', ['-c', 'cat >"$1"', 'sh', path], { input });
    return path;
  });
  return execFileSync('unshare', ['-n', 'sh', '-c', `${script}\niptables-save`, 'sh', ...files], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe.skipIf(!canUnshare)('iptables-restore accepts the generated rules', () => {
  const ports = [
    { name: 'p80', port: 80, protocol: 'TCP', nodePort: 30080 },
    { name: 'u', port: 53, protocol: 'UDP', nodePort: 30053 },
  ];
  const svc = service(
    'svc1',
    {
      type: 'LoadBalancer',
      clusterIP: '10.96.0.5',
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 30999,
      sessionAffinity: 'ClientIP',
      loadBalancerSourceRanges: ['192.168.0.0/24'],
      externalIPs: ['172.30.0.201'],
      ports,
    },
    { status: { loadBalancer: { ingress: [{ ip: '172.30.0.200' }] } } },
  );
  const endpoints = ports.map(({ nodePort: _, ...port }) => port);
  const node = { clusterCIDR: '10.244.0.0/16', nodeName: NODE, zone: '' };

  it('loads a full sync, then a partial one that deletes an endpoint chain', () => {
    const before = generateRules(
      state(
        [svc, service('empty', { clusterIP: '10.96.0.6', ports: [{ port: 1 }] })],
        [slice('svc1', endpoints, [endpoint('10.244.1.2', NODE), endpoint('10.244.2.2', 'other')])],
      ),
      node,
    );
    const after = generateRules(
      state([svc], [slice('svc1', endpoints, [endpoint('10.244.1.2', NODE)])]),
      node,
    );
    const saved = restoreInFreshNamespace(
      restoreInput(before),
      restoreInput(after, { previous: before.serviceChains }),
    );
    expect(saved).toContain('--to-destination 10.244.1.2:80');
    expect(saved).not.toContain('10.244.2.2');
    expect(saved).not.toContain('ns1/empty');
    expect(saved).toMatch(/-A KUBE-SVC-XPGD46QRK7WJZT7O .*--rcheck --seconds 10800 --reap/);
  });

  it('rejects bad input as a whole: nothing of a failed restore is applied', () => {
    const good = restoreInput(generateRules(state([svc], []), node));
    const bad = good.replace('COMMIT\n*nat', '-A KUBE-FORWARD -j NO-SUCH-CHAIN\nCOMMIT\n*nat');
    expect(() => restoreInFreshNamespace(bad)).toThrow();
  });
});
