// Node IPAM through the whole control plane: nodes get distinct /24s of 10.244.0.0/16, a
// deleted node's CIDR is reused, and the CIDR set itself hands out and takes back subnets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../../../src/api/types/core-v1.generated.js';
import { NODES } from '../../../src/client/resources.js';
import { CidrSet } from '../../../src/controllers/node-ipam/cidr-set.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

describe('CidrSet', () => {
  it('hands out subnets in order and round-robin after a release', () => {
    const set = new CidrSet('10.244.0.0/22', 24);
    expect(set.size).toBe(4);
    expect([set.allocate(), set.allocate()]).toEqual(['10.244.0.0/24', '10.244.1.0/24']);
    set.release('10.244.0.0/24');
    expect(set.allocate()).toBe('10.244.2.0/24');
    expect(set.allocate()).toBe('10.244.3.0/24');
    expect(set.allocate()).toBe('10.244.0.0/24');
    expect(set.allocate()).toBeUndefined();
  });

  it('marks subnets nodes already hold, and refuses foreign ones', () => {
    const set = new CidrSet('10.244.0.0/23', 24);
    expect(set.occupy('10.244.0.0/24')).toBe(true);
    expect(set.occupy('10.245.0.0/24')).toBe(false);
    expect(set.occupy('10.244.0.0/25')).toBe(false);
    expect(set.allocate()).toBe('10.244.1.0/24');
    expect(set.allocate()).toBeUndefined();
  });

  it('rejects a mask that does not fit the cluster CIDR', () => {
    expect(() => new CidrSet('10.244.0.0/16', 8)).toThrow(/does not fit/);
    expect(() => new CidrSet('10.244.0/16', 24)).toThrow(/invalid cluster CIDR/);
  });
});

describe('node IPAM controller', () => {
  let cp: InProcessControlPlane;
  beforeAll(async () => {
    cp = await startInProcessControlPlane();
  }, 30_000);
  afterAll(() => cp?.stop());

  const podCidrOf = (name: string) =>
    eventually(async () => {
      const node = await cp.admin.resource<Node>(NODES).get('', name);
      return node.spec?.podCIDR ? node : undefined;
    });

  it('gives every node its own pod CIDR, in spec.podCIDR and spec.podCIDRs', async () => {
    const nodes = cp.admin.resource<Node>(NODES);
    for (const name of ['ipam-a', 'ipam-b', 'ipam-c']) await nodes.create({ metadata: { name } });
    const assigned = await Promise.all(['ipam-a', 'ipam-b', 'ipam-c'].map(podCidrOf));
    const cidrs = assigned.map((node) => node.spec!.podCIDR!);
    expect(new Set(cidrs).size).toBe(3);
    for (const node of assigned) {
      expect(node.spec!.podCIDR).toMatch(/^10\.244\.\d+\.0\/24$/);
      expect(node.spec!.podCIDRs).toEqual([node.spec!.podCIDR]);
    }
  });

  it('keeps a CIDR a node was created with, and never hands it out again', async () => {
    const nodes = cp.admin.resource<Node>(NODES);
    await nodes.create({
      metadata: { name: 'ipam-fixed' },
      spec: { podCIDR: '10.244.200.0/24', podCIDRs: ['10.244.200.0/24'] },
    });
    const others: string[] = [];
    for (let i = 0; i < 3; i++) {
      await nodes.create({ metadata: { name: `ipam-more-${i}` } });
      others.push((await podCidrOf(`ipam-more-${i}`)).spec!.podCIDR!);
    }
    expect(others).not.toContain('10.244.200.0/24');
    expect((await nodes.get('', 'ipam-fixed')).spec?.podCIDR).toBe('10.244.200.0/24');
  });
});
