// The enforcer against the real kernel: a "node" network namespace routing to two "pod"
// namespaces (a veth each, routed as Calico routes pods), its iptables written by the enforcer
// from fake informers, and real TCP connections between the pods. Needs root and `ip netns`;
// skipped elsewhere.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkPolicyEnforcer } from '../../../../src/agent/network-policy/enforcer.js';
import { jumpsFirstInput, policyIptablesIn } from '../../../../src/agent/network-policy/iptables.js';
import { parseSaved } from '../../../../src/agent/proxy/iptables.js';
import { findResource } from '../../../../src/api/resources/lookup.js';
import type { Namespace, Pod } from '../../../../src/api/types/core-v1.generated.js';
import type { NetworkPolicy } from '../../../../src/api/types/networking-v1.generated.js';
import { SharedInformer } from '../../../../src/client/informers/index.js';
import { eventually, FakeResourceClient } from '../../client-runtime/fake-client.js';
import { NODE, namespace, pod, policy } from './fixtures.js';

const tag = process.pid % 100000;
const NODE_NS = `tkube-np-node-${tag}`;
const POD_NS = { a: `tkube-np-a-${tag}`, b: `tkube-np-b-${tag}` } as const;
const IPS = { a: '10.244.1.2', b: '10.244.1.3' } as const;
const canNetns = process.getuid?.() === 0 && spawnSync('ip', ['netns', 'list']).status === 0;

const inNs = (ns: string, ...command: string[]) =>
  execFileSync('ip', ['netns', 'exec', ns, ...command], { encoding: 'utf8' });

function wirePod(name: 'a' | 'b'): void {
  const ns = POD_NS[name];
  execFileSync('ip', ['netns', 'add', ns]);
  inNs(NODE_NS, 'ip', 'link', 'add', `v${name}`, 'type', 'veth', 'peer', 'name', `p${name}`);
  inNs(NODE_NS, 'ip', 'link', 'set', `p${name}`, 'netns', ns);
  inNs(NODE_NS, 'ip', 'link', 'set', `v${name}`, 'up');
  inNs(NODE_NS, 'ip', 'route', 'add', `${IPS[name]}/32`, 'dev', `v${name}`);
  inNs(ns, 'ip', 'link', 'set', 'lo', 'up');
  inNs(ns, 'ip', 'link', 'set', `p${name}`, 'up');
  inNs(ns, 'ip', 'addr', 'add', `${IPS[name]}/32`, 'dev', `p${name}`);
  inNs(ns, 'ip', 'route', 'add', '169.254.1.1', 'dev', `p${name}`);
  // The gateway's address resolved to the node's end (no proxy ARP: the node has no other route).
  const [link] = JSON.parse(inNs(NODE_NS, 'ip', '-j', 'link', 'show', `v${name}`)) as { address: string }[];
  inNs(ns, 'ip', 'neigh', 'replace', '169.254.1.1', 'lladdr', link!.address, 'dev', `p${name}`);
  inNs(ns, 'ip', 'route', 'add', 'default', 'via', '169.254.1.1', 'dev', `p${name}`);
}

/** A node process in a pod namespace speaking line by line. */
function nodeIn(ns: string, script: string): { child: ChildProcess; lines: AsyncIterator<string> } {
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return { child, lines };
}

/** Whether pod a opens a TCP connection to pod b within a second (node's start included). */
function connects(): boolean {
  const script = `const s=require('net').connect(80,'${IPS.b}',()=>{process.exit(0)});s.on('error',()=>process.exit(1));setTimeout(()=>process.exit(2),1000);`;
  return spawnSync('ip', ['netns', 'exec', POD_NS.a, process.execPath, '-e', script]).status === 0;
}

describe.skipIf(!canNetns)('NetworkPolicyEnforcer on real traffic', () => {
  const children: ChildProcess[] = [];
  const abort = new AbortController();
  const pods = new FakeResourceClient<Pod>(findResource('', 'v1', 'pods')!);
  const namespaces = new FakeResourceClient<Namespace>(findResource('', 'v1', 'namespaces')!);
  const policies = new FakeResourceClient<NetworkPolicy>(
    findResource('networking.k8s.io', 'v1', 'networkpolicies')!,
  );
  let enforcer: NetworkPolicyEnforcer;
  let done: Promise<unknown>;
  const save = () => inNs(NODE_NS, 'iptables-save', '-t', 'filter');

  beforeAll(async () => {
    execFileSync('ip', ['netns', 'add', NODE_NS]);
    inNs(NODE_NS, 'ip', 'link', 'set', 'lo', 'up');
    inNs(NODE_NS, 'sysctl', '-qw', 'net.ipv4.ip_forward=1');
    wirePod('a');
    wirePod('b');
    // An echo server in pod b.
    const server = nodeIn(
      POD_NS.b,
      "require('net').createServer((s)=>s.pipe(s)).listen(80,()=>console.log('listening'))",
    );
    children.push(server.child);
    expect((await server.lines.next()).value).toBe('listening');
    namespaces.put(namespace('x'));
    pods.put(pod('x', 'a', IPS.a));
    pods.put(pod('x', 'b', IPS.b));
    const informers = [
      new SharedInformer<Pod>(pods, { log: () => {} }),
      new SharedInformer<Namespace>(namespaces, { log: () => {} }),
      new SharedInformer<NetworkPolicy>(policies, { log: () => {} }),
    ] as const;
    enforcer = new NetworkPolicyEnforcer({
      nodeName: NODE,
      pods: informers[0],
      namespaces: informers[1],
      policies: informers[2],
      iptables: policyIptablesIn(['ip', 'netns', 'exec', NODE_NS]),
    });
    done = Promise.all([
      ...informers.map((informer) => informer.run(abort.signal)),
      enforcer.run(abort.signal),
    ]);
    await eventually(() => enforcer.restoreCount >= 1, 5000);
  });

  afterAll(async () => {
    abort.abort();
    await done;
    for (const child of children) child.kill();
    for (const ns of [POD_NS.a, POD_NS.b, NODE_NS]) spawnSync('ip', ['netns', 'delete', ns]);
  });

  it('puts its jump first in FORWARD and INPUT and lets everything through without policies', () => {
    const filter = save();
    expect(filter).toMatch(/^-A FORWARD -m comment --comment "tkube network policies" -j TKUBE-NETPOL$/m);
    expect(filter.split('\n').find((line) => line.startsWith('-A FORWARD'))).toContain('-j TKUBE-NETPOL');
    expect(filter.split('\n').find((line) => line.startsWith('-A INPUT'))).toContain('-j TKUBE-NETPOL');
    expect(connects()).toBe(true);
  });

  it('moves its jump back first when another rule got ahead of it, leaving one jump', async () => {
    const forwardRules = () =>
      save()
        .split('\n')
        .filter((line) => line.startsWith('-A FORWARD '));
    const other = ['-s', '192.0.2.1/32', '-j', 'DROP'];
    inNs(NODE_NS, 'iptables', '-I', 'FORWARD', '1', ...other);
    inNs(
      NODE_NS,
      'iptables',
      '-A',
      'FORWARD',
      '-m',
      'comment',
      '--comment',
      'tkube network policies',
      '-j',
      'TKUBE-NETPOL',
    );
    try {
      expect(forwardRules()[0]).toBe('-A FORWARD -s 192.0.2.1/32 -j DROP');
      const iptables = policyIptablesIn(['ip', 'netns', 'exec', NODE_NS]);
      await iptables.ensureJumpsFirst();
      const rules = forwardRules();
      expect(rules[0]).toBe('-A FORWARD -m comment --comment "tkube network policies" -j TKUBE-NETPOL');
      expect(rules.filter((line) => line.endsWith('-j TKUBE-NETPOL'))).toHaveLength(1);
      expect(rules).toContain('-A FORWARD -s 192.0.2.1/32 -j DROP');
      // In place: the check reads the table and writes nothing.
      expect(jumpsFirstInput(parseSaved(save()).get('filter'))).toBeUndefined();
    } finally {
      inNs(NODE_NS, 'iptables', '-D', 'FORWARD', ...other);
    }
  });

  it('default deny drops new connections but keeps an established one', async () => {
    // A connection held open from pod a, echoing a line on demand.
    const client = nodeIn(
      POD_NS.a,
      `const s=require('net').connect(80,'${IPS.b}',()=>console.log('open'));s.setEncoding('utf8');s.on('data',(d)=>console.log('echo '+d.trim()));process.stdin.on('data',(d)=>s.write(d));`,
    );
    children.push(client.child);
    expect((await client.lines.next()).value).toBe('open');
    policies.put(policy('x', 'deny', { podSelector: { matchLabels: { pod: 'b' } } }));
    await eventually(() => save().includes('"x/b ingress"'), 5000);
    expect(connects()).toBe(false);
    client.child.stdin!.write('still there\n');
    expect((await client.lines.next()).value).toBe('echo still there');
  });

  it('follows a label change: the source labelled into the policy gets in', async () => {
    policies.put(
      policy('x', 'deny', {
        podSelector: { matchLabels: { pod: 'b' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }], ports: [{ port: 80 }] }],
      }),
    );
    // No pod has the label yet: the rules are those of default deny, and nothing is rewritten.
    expect(connects()).toBe(false);
    pods.put(pod('x', 'a', IPS.a, { labels: { pod: 'a', role: 'client' } }));
    await eventually(() => save().includes(`-s ${IPS.a}/32 -p tcp -m tcp --dport 80 -j RETURN`), 5000);
    expect(connects()).toBe(true);
  });

  it('an ipBlock except keeps the excepted source out', async () => {
    policies.put(
      policy('x', 'deny', {
        podSelector: { matchLabels: { pod: 'b' } },
        ingress: [{ from: [{ ipBlock: { cidr: '10.244.0.0/16', except: [`${IPS.a}/32`] } }] }],
      }),
    );
    await eventually(() => save().includes('TKUBE-NP-X-'), 5000);
    expect(connects()).toBe(false);
    policies.put(
      policy('x', 'deny', {
        podSelector: { matchLabels: { pod: 'b' } },
        ingress: [{ from: [{ ipBlock: { cidr: '10.244.0.0/16', except: ['10.244.2.0/24'] } }] }],
      }),
    );
    await eventually(() => save().includes('10.244.2.0/24'), 5000);
    expect(connects()).toBe(true);
  });

  it('egress isolation of the source applies too, and removing policies removes every chain', async () => {
    policies.put(
      policy('x', 'no-egress', { podSelector: { matchLabels: { pod: 'a' } }, policyTypes: ['Egress'] }),
    );
    await eventually(() => save().includes('"x/a egress"'), 5000);
    expect(connects()).toBe(false);
    await policies.delete('x', 'no-egress');
    await policies.delete('x', 'deny');
    await eventually(() => !save().includes('TKUBE-NP-'), 5000);
    expect(connects()).toBe(true);
  });
});
