// Which local pods the policies isolate and what they allow: selectors, ipBlocks, ports.
import { describe, expect, it } from 'vitest';
import { isolatedPods, policyDirections } from '../../../../src/agent/network-policy/policy-model.js';
import { NODE, namespace, pod, policy } from './fixtures.js';

const namespaces = [namespace('x'), namespace('y'), namespace('z')];
const pods = [
  pod('x', 'a', '10.244.1.2', { ports: [{ name: 'serve-80', port: 80 }] }),
  pod('x', 'b', '10.244.2.2', { node: 'node-2', ports: [{ name: 'serve-80', port: 8080 }] }),
  pod('y', 'a', '10.244.1.3'),
  pod('y', 'b', '10.244.2.3', { node: 'node-2' }),
  pod('z', 'c', '10.244.1.4', { labels: { pod: 'c', tier: 'db' } }),
];

function isolate(policies: Parameters<typeof isolatedPods>[0]['policies'], all = pods) {
  return isolatedPods({ pods: all, namespaces, policies }, NODE);
}

describe('isolatedPods', () => {
  it('isolates nothing without policies, and only local pods the podSelector picks', () => {
    expect(isolate([])).toEqual([]);
    const result = isolate([policy('x', 'deny', { podSelector: {} })]);
    expect(result.map((entry) => `${entry.pod.namespace}/${entry.pod.name} ${entry.direction}`)).toEqual([
      'x/a ingress',
    ]);
    expect(result[0]!.rules).toEqual([]);
  });

  it('defaults policyTypes from the rules: Egress only when egress rules are given', () => {
    expect(policyDirections(policy('x', 'p', { podSelector: {} }))).toEqual(['ingress']);
    expect(policyDirections(policy('x', 'p', { podSelector: {}, egress: [{}] }))).toEqual([
      'ingress',
      'egress',
    ]);
    expect(policyDirections(policy('x', 'p', { podSelector: {}, policyTypes: ['Egress'] }))).toEqual([
      'egress',
    ]);
  });

  it('an empty rule allows everything; empty from allows every source', () => {
    const [entry] = isolate([
      policy('x', 'all', { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{}] }),
    ]);
    expect(entry!.rules).toEqual([{ peer: { kind: 'any' }, ports: [] }]);
  });

  it('podSelector alone picks pods of the policy namespace, namespaceSelector alone every pod there', () => {
    const [own] = isolate([
      policy('x', 'p', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] }),
    ]);
    expect(own!.rules.map((rule) => rule.peer)).toEqual([
      { kind: 'cidr', cidr: '10.244.1.2/32', except: [] },
      { kind: 'cidr', cidr: '10.244.2.2/32', except: [] },
    ]);
    const [other] = isolate([
      policy('x', 'p', {
        podSelector: {},
        ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }] }],
      }),
    ]);
    expect(other!.rules.map((rule) => rule.peer)).toEqual([
      { kind: 'cidr', cidr: '10.244.1.3/32', except: [] },
      { kind: 'cidr', cidr: '10.244.2.3/32', except: [] },
    ]);
  });

  it('namespaceSelector and podSelector in one peer are ANDed, in two peers ORed', () => {
    const and = isolate([
      policy('x', 'p', {
        podSelector: {},
        ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchLabels: { tier: 'db' } } }] }],
      }),
    ]);
    expect(and[0]!.rules.map((rule) => rule.peer)).toEqual([
      { kind: 'cidr', cidr: '10.244.1.4/32', except: [] },
    ]);
    const or = isolate([
      policy('x', 'p', {
        podSelector: {},
        ingress: [
          {
            from: [
              { namespaceSelector: { matchLabels: { ns: 'z' } } },
              { podSelector: { matchLabels: { pod: 'b' } } },
            ],
          },
        ],
      }),
    ]);
    expect(or[0]!.rules.map((rule) => rule.peer)).toEqual([
      { kind: 'cidr', cidr: '10.244.1.4/32', except: [] },
      { kind: 'cidr', cidr: '10.244.2.2/32', except: [] },
    ]);
  });

  it('keeps an ipBlock with its excepts in canonical form', () => {
    const [entry] = isolate([
      policy('x', 'p', {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [{ to: [{ ipBlock: { cidr: '10.244.0.0/16', except: ['10.244.2.7/24'] } }] }],
      }),
    ]);
    expect(entry!.direction).toBe('egress');
    expect(entry!.rules).toEqual([
      { peer: { kind: 'cidr', cidr: '10.244.0.0/16', except: ['10.244.2.0/24'] }, ports: [] },
    ]);
  });

  it('ports: protocol defaults to TCP, endPort makes a range, a named ingress port is the local pod’s', () => {
    const [entry] = isolate([
      policy('x', 'p', {
        podSelector: {},
        ingress: [
          {
            ports: [
              { port: 81 },
              { protocol: 'UDP', port: 53 },
              { port: 1000, endPort: 2000 },
              { port: 'serve-80' },
              { port: 'missing' },
              { protocol: 'SCTP' },
            ],
          },
        ],
      }),
    ]);
    expect(entry!.rules).toEqual([
      {
        peer: { kind: 'any' },
        ports: [
          { protocol: 'TCP', port: 81 },
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 1000, endPort: 2000 },
          { protocol: 'SCTP' },
          { protocol: 'TCP', port: 80 },
        ],
      },
    ]);
  });

  it('a rule whose ports are all named and absent from the pod allows nothing', () => {
    const [entry] = isolate([
      policy('y', 'p', { podSelector: {}, ingress: [{ ports: [{ port: 'serve-80' }] }] }),
    ]);
    expect(entry!.rules).toEqual([]);
  });

  it('a named egress port is each destination pod’s own', () => {
    const [entry] = isolate([
      policy('y', 'p', {
        podSelector: { matchLabels: { pod: 'a' } },
        policyTypes: ['Egress'],
        egress: [
          { to: [{ namespaceSelector: { matchLabels: { ns: 'x' } } }], ports: [{ port: 'serve-80' }] },
        ],
      }),
    ]);
    expect(entry!.rules).toEqual([
      { peer: { kind: 'cidr', cidr: '10.244.1.2/32', except: [] }, ports: [{ protocol: 'TCP', port: 80 }] },
      { peer: { kind: 'cidr', cidr: '10.244.2.2/32', except: [] }, ports: [{ protocol: 'TCP', port: 8080 }] },
    ]);
  });

  it('leaves out pods on the host network, finished or without an address', () => {
    const hostNetwork = pod('x', 'h', '172.18.0.2');
    hostNetwork.spec!.hostNetwork = true;
    const done = pod('x', 'd', '10.244.1.9');
    done.status!.phase = 'Succeeded';
    const pending = pod('x', 'p', '');
    const result = isolate([policy('x', 'deny', { podSelector: {} })], [hostNetwork, done, pending]);
    expect(result).toEqual([]);
  });

  it('follows namespace label changes', () => {
    const relabelled = [namespace('x'), namespace('y', { ns: 'z' }), namespace('z', { ns: 'other' })];
    const [entry] = isolatedPods(
      {
        pods,
        namespaces: relabelled,
        policies: [
          policy('x', 'p', {
            podSelector: {},
            ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'z' } } }] }],
          }),
        ],
      },
      NODE,
    );
    expect(entry!.rules.map((rule) => rule.peer)).toEqual([
      { kind: 'cidr', cidr: '10.244.1.3/32', except: [] },
      { kind: 'cidr', cidr: '10.244.2.3/32', except: [] },
    ]);
  });
});
