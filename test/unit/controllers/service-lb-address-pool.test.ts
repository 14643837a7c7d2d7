// Choosing LoadBalancer addresses from tkube's pool: requested addresses, keeping a held one,
// the lowest free one, and the errors for an address out of range, taken, or an empty pool.
import { describe, expect, it } from 'vitest';
import { loadBalancerRange } from '../../../src/cluster/nodes/load-balancer-range.js';
import {
  chooseAddress,
  formatAddressRange,
  parseAddressRange,
  rangeContains,
} from '../../../src/controllers/service-lb/address-pool.js';

const range = parseAddressRange('172.30.1.224-172.30.1.226')!;

describe('load balancer address pool', () => {
  it('is the top of the node network, above the node addresses', () => {
    expect(loadBalancerRange('172.30.7.0/24')).toBe('172.30.7.224-172.30.7.254');
    expect(() => loadBalancerRange('nonsense')).toThrow(/invalid node network/);
  });

  it('parses and formats ranges, rejecting malformed and reversed ones', () => {
    expect(formatAddressRange(range)).toBe('172.30.1.224-172.30.1.226');
    expect(parseAddressRange('172.30.1.9-172.30.1.1')).toBeUndefined();
    expect(parseAddressRange('172.30.1.1')).toBeUndefined();
    expect(parseAddressRange('172.30.1.1-x')).toBeUndefined();
    expect(rangeContains(range, '172.30.1.226')).toBe(true);
    expect(rangeContains(range, '172.30.1.227')).toBe(false);
    expect(rangeContains(range, 'fd00::1')).toBe(false);
  });

  it('hands out the lowest free address', () => {
    expect(chooseAddress(range, new Set(), undefined, undefined)).toEqual({ ip: '172.30.1.224' });
    expect(chooseAddress(range, new Set(['172.30.1.224']), undefined, undefined)).toEqual({
      ip: '172.30.1.225',
    });
  });

  it('keeps the address a service holds unless another service holds it too', () => {
    expect(chooseAddress(range, new Set(['172.30.1.224']), '172.30.1.226', undefined)).toEqual({
      ip: '172.30.1.226',
    });
    expect(chooseAddress(range, new Set(['172.30.1.226']), '172.30.1.226', undefined)).toEqual({
      ip: '172.30.1.224',
    });
    // An address outside the pool (the pool changed) is replaced.
    expect(chooseAddress(range, new Set(), '10.0.0.1', undefined)).toEqual({ ip: '172.30.1.224' });
  });

  it('honours spec.loadBalancerIP when it is free and in range, else says why not', () => {
    expect(chooseAddress(range, new Set(), '172.30.1.224', '172.30.1.225')).toEqual({ ip: '172.30.1.225' });
    expect(chooseAddress(range, new Set(['172.30.1.225']), undefined, '172.30.1.225')).toEqual({
      error: 'requested IP 172.30.1.225 is already allocated',
    });
    expect(chooseAddress(range, new Set(), undefined, '10.1.2.3')).toEqual({
      error: 'requested IP 10.1.2.3 is not in the load balancer address range 172.30.1.224-172.30.1.226',
    });
  });

  it('reports an exhausted pool', () => {
    const full = new Set(['172.30.1.224', '172.30.1.225', '172.30.1.226']);
    expect(chooseAddress(range, full, undefined, undefined)).toEqual({
      error: 'no free address in the load balancer address range 172.30.1.224-172.30.1.226',
    });
  });
});
