import { describe, expect, it } from 'vitest';
import {
  clusterPolicyChain,
  endpointChain,
  externalChain,
  isServiceChain,
  servicePortNameString,
} from '../../../../src/agent/proxy/chain-names.js';

describe('kube-proxy chain names', () => {
  it('hashes the service port name and protocol as upstream (sha256, base32, 16 characters)', () => {
    // Values from kube-proxy's own tests (pkg/proxy/iptables/proxier_test.go).
    expect(clusterPolicyChain('ns1/svc1:p80', 'tcp')).toBe('KUBE-SVC-XPGD46QRK7WJZT7O');
    expect(externalChain('ns1/svc1:p80', 'tcp')).toBe('KUBE-EXT-XPGD46QRK7WJZT7O');
    expect(endpointChain('ns1/svc1:p80', 'tcp', '10.180.0.1:80')).toBe('KUBE-SEP-SXIVWICOYRO3J4NJ');
  });

  it('gives the same names from its memo, and past the memo generations (120,000 other names)', () => {
    const first = endpointChain('ns1/svc1:p80', 'tcp', '10.180.0.1:80');
    expect(endpointChain('ns1/svc1:p80', 'tcp', '10.180.0.1:80')).toBe(first);
    const names = new Set<string>();
    for (let i = 0; i < 120_000; i++)
      names.add(endpointChain('ns1/svc1:p80', 'tcp', `10.1.${i >> 8}.${i & 255}:80`));
    expect(names.size).toBe(120_000);
    expect(endpointChain('ns1/svc1:p80', 'tcp', '10.180.0.1:80')).toBe('KUBE-SEP-SXIVWICOYRO3J4NJ');
    expect(clusterPolicyChain('ns1/svc1:p80', 'tcp')).toBe('KUBE-SVC-XPGD46QRK7WJZT7O');
  });

  it('names an unnamed port without the colon', () => {
    expect(servicePortNameString('ns1', 'svc1', '')).toBe('ns1/svc1');
    expect(servicePortNameString('ns1', 'svc1', 'p80')).toBe('ns1/svc1:p80');
  });

  it('tells the per-service chains from the fixed ones', () => {
    expect(isServiceChain('KUBE-SEP-SXIVWICOYRO3J4NJ')).toBe(true);
    expect(isServiceChain('KUBE-SERVICES')).toBe(false);
    expect(isServiceChain('KUBE-MARK-MASQ')).toBe(false);
  });
});
