// The iptables rules for isolated pods, and the restore input writing only what changed.
import { describe, expect, it } from 'vitest';
import { isolatedPods } from '../../../../src/agent/network-policy/policy-model.js';
import {
  generatePolicyRules,
  NETPOL_CHAIN,
  podChainName,
  policyRestoreInput,
} from '../../../../src/agent/network-policy/rules.js';
import { NODE, namespace, pod, policy } from './fixtures.js';

const namespaces = [namespace('x'), namespace('y')];
const pods = [pod('x', 'a', '10.244.1.2'), pod('y', 'b', '10.244.2.3', { node: 'node-2' })];

function rulesFor(policies: Parameters<typeof isolatedPods>[0]['policies']) {
  return generatePolicyRules(isolatedPods({ pods, namespaces, policies }, NODE));
}

describe('generatePolicyRules', () => {
  it('keeps established traffic and sends the pod’s traffic to its chain, which drops the rest', () => {
    const rules = rulesFor([policy('x', 'deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] })]);
    const ingress = podChainName('x', 'a', 'ingress');
    const egress = podChainName('x', 'a', 'egress');
    expect(rules.main).toEqual([
      `-A ${NETPOL_CHAIN} -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN`,
      `-A ${NETPOL_CHAIN} -d 10.244.1.2/32 -m comment --comment "x/a ingress" -j ${ingress}`,
      `-A ${NETPOL_CHAIN} -s 10.244.1.2/32 -m comment --comment "x/a egress" -j ${egress}`,
    ]);
    expect(rules.chains.get(ingress)).toEqual([`-A ${ingress} -j DROP`]);
    expect(rules.chains.get(egress)).toEqual([`-A ${egress} -j DROP`]);
    expect(ingress).toMatch(/^TKUBE-NP-I-[0-9A-F]{16}$/);
    expect(ingress.length).toBeLessThanOrEqual(28);
  });

  it('allows peers by source on ingress and destination on egress, per port and range', () => {
    const rules = rulesFor([
      policy('x', 'p', {
        podSelector: {},
        policyTypes: ['Ingress', 'Egress'],
        ingress: [
          {
            from: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }],
            ports: [{ port: 80 }, { protocol: 'UDP', port: 53, endPort: 54 }],
          },
        ],
        egress: [{ ports: [{ protocol: 'UDP', port: 53 }] }],
      }),
    ]);
    const ingress = podChainName('x', 'a', 'ingress');
    const egress = podChainName('x', 'a', 'egress');
    expect(rules.chains.get(ingress)).toEqual([
      `-A ${ingress} -s 10.244.2.3/32 -p tcp -m tcp --dport 80 -j RETURN`,
      `-A ${ingress} -s 10.244.2.3/32 -p udp -m udp --dport 53:54 -j RETURN`,
      `-A ${ingress} -j DROP`,
    ]);
    expect(rules.chains.get(egress)).toEqual([
      `-A ${egress} -p udp -m udp --dport 53 -j RETURN`,
      `-A ${egress} -j DROP`,
    ]);
  });

  it('an ipBlock with excepts goes through a chain of its own that marks what it allows', () => {
    const rules = rulesFor([
      policy('x', 'p', {
        podSelector: {},
        ingress: [
          { from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.244.2.0/24', '10.244.3.0/24'] } }] },
        ],
      }),
    ]);
    const ingress = podChainName('x', 'a', 'ingress');
    const lines = rules.chains.get(ingress)!;
    const block = /-j (TKUBE-NP-X-[0-9A-F]{16})$/.exec(lines[1]!)![1]!;
    expect(lines).toEqual([
      `-A ${ingress} -j MARK --set-xmark 0x0/0x20000`,
      `-A ${ingress} -j ${block}`,
      `-A ${ingress} -m mark --mark 0x20000/0x20000 -j RETURN`,
      `-A ${ingress} -j DROP`,
    ]);
    expect(rules.chains.get(block)).toEqual([
      `-A ${block} -s 10.244.2.0/24 -j RETURN`,
      `-A ${block} -s 10.244.3.0/24 -j RETURN`,
      `-A ${block} -s 10.0.0.0/8 -j MARK --set-xmark 0x20000/0x20000`,
    ]);
  });
});

describe('policyRestoreInput', () => {
  const deny = rulesFor([policy('x', 'deny', { podSelector: {} })]);
  const chain = podChainName('x', 'a', 'ingress');

  it('writes the main chain and every chain not known to be current', () => {
    expect(policyRestoreInput(deny, new Map([['TKUBE-NP-I-0000000000000000', undefined]]))).toBe(
      [
        '*filter',
        `:${NETPOL_CHAIN} - [0:0]`,
        `:${chain} - [0:0]`,
        ':TKUBE-NP-I-0000000000000000 - [0:0]',
        ...deny.main,
        `-A ${chain} -j DROP`,
        '-X TKUBE-NP-I-0000000000000000',
        'COMMIT',
        '',
      ].join('\n'),
    );
  });

  it('leaves unchanged chains alone and removes chains no longer used', () => {
    expect(policyRestoreInput(deny, deny.chains)).toBe(
      ['*filter', `:${NETPOL_CHAIN} - [0:0]`, ...deny.main, 'COMMIT', ''].join('\n'),
    );
    const none = rulesFor([]);
    expect(policyRestoreInput(none, deny.chains)).toBe(
      [
        '*filter',
        `:${NETPOL_CHAIN} - [0:0]`,
        `:${chain} - [0:0]`,
        ...none.main,
        `-X ${chain}`,
        'COMMIT',
        '',
      ].join('\n'),
    );
  });
});
