// The agent's pod network steps against a recording command runner: routes to peers' pod CIDRs
// are added, replaced and pruned; the masquerade rule is added once; the CNI config is written
// only when it changes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cniConfigList, writeCniConfig } from '../../../src/agent/network/cni-config.js';
import type { RunCommand } from '../../../src/agent/network/host-commands.js';
import { ensurePodMasquerade } from '../../../src/agent/network/masquerade.js';
import { reconcilePodRoutes } from '../../../src/agent/network/routes.js';
import { tempDir } from '../../support/temp.js';

function recorder(routes: object[], failing: RegExp[] = []): { run: RunCommand; calls: string[] } {
  const calls: string[] = [];
  const run: RunCommand = async (file, args) => {
    const line = [file, ...args].join(' ');
    calls.push(line);
    if (failing.some((pattern) => pattern.test(line))) throw new Error(`${line} failed`);
    return line === 'ip -j route show' ? JSON.stringify(routes) : '';
  };
  return { run, calls };
}

describe('pod routes', () => {
  it('adds missing routes, replaces moved ones and removes routes of vanished nodes', async () => {
    const { run, calls } = recorder([
      { dst: 'default', gateway: '172.30.0.1' },
      { dst: '10.244.1.0/24', gateway: '172.30.0.11' },
      { dst: '10.244.2.0/24', gateway: '172.30.0.99' },
      { dst: '10.244.9.0/24', gateway: '172.30.0.19' },
      { dst: '10.244.0.0/24', dev: 'tkube0' },
    ]);
    const result = await reconcilePodRoutes(
      run,
      [
        { name: 'b', address: '172.30.0.11', podCIDR: '10.244.1.0/24' },
        { name: 'c', address: '172.30.0.12', podCIDR: '10.244.2.0/24' },
        { name: 'd', address: '172.30.0.13', podCIDR: '10.244.3.0/24' },
      ],
      '10.244.0.0/16',
    );
    expect(result).toEqual({ added: ['10.244.2.0/24', '10.244.3.0/24'], removed: ['10.244.9.0/24'] });
    expect(calls.slice(1)).toEqual([
      'ip route replace 10.244.2.0/24 via 172.30.0.12',
      'ip route replace 10.244.3.0/24 via 172.30.0.13',
      'ip route del 10.244.9.0/24',
    ]);
  });

  it('leaves routes outside the pod network alone', async () => {
    const { run, calls } = recorder([{ dst: '192.168.5.0/24', gateway: '172.30.0.1' }]);
    await reconcilePodRoutes(run, [], '10.244.0.0/16');
    expect(calls).toEqual(['ip -j route show']);
  });
});

describe('masquerade rule', () => {
  it('checks before appending, so restarts never duplicate it', async () => {
    const present = recorder([]);
    await ensurePodMasquerade(present.run, '10.244.0.0/16');
    expect(present.calls).toHaveLength(1);
    expect(present.calls[0]).toMatch(
      /^iptables -t nat -C POSTROUTING -s 10\.244\.0\.0\/16 ! -d 10\.244\.0\.0\/16 /,
    );
    const absent = recorder([], [/ -C /]);
    await ensurePodMasquerade(absent.run, '10.244.0.0/16');
    expect(absent.calls[1]).toMatch(/^iptables -t nat -A POSTROUTING .* -j MASQUERADE$/);
  });
});

describe('CNI config', () => {
  it('is a bridge + portmap conflist on the node pod CIDR, rewritten only on change', async () => {
    const path = join(tempDir(), 'net.d', '10-tkube.conflist');
    expect(await writeCniConfig('10.244.3.0/24', path)).toBe(true);
    expect(await writeCniConfig('10.244.3.0/24', path)).toBe(false);
    const written = JSON.parse(readFileSync(path, 'utf8'));
    expect(written).toEqual(cniConfigList('10.244.3.0/24'));
    expect(written.plugins.map((plugin: { type: string }) => plugin.type)).toEqual(['bridge', 'portmap']);
    expect(written.plugins[0].ipam.ranges).toEqual([[{ subnet: '10.244.3.0/24' }]]);
    expect(written.plugins[0].ipMasq).toBe(false);
  });
});
