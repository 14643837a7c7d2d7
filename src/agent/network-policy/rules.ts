// The filter-table rules enforcing NetworkPolicy on this node (what Calico's or kube-router's
// per-pod chains do, written as tkube's proxy writes its own: one iptables-restore per sync). A
// main chain, jumped to first from FORWARD and INPUT, lets established traffic through and sends
// traffic from or to each isolated local pod to that pod's chain, which returns what a policy
// allows and drops the rest. Applied after the proxy's DNAT, so a service's traffic is judged by
// its backend pod. Pod chains are named by a hash of the pod, so a sync writes only changed chains.
import { createHash } from 'node:crypto';
import type { AllowRule, Direction, IsolatedPod, PortMatch } from './policy-model.js';

export const NETPOL_CHAIN = 'TKUBE-NETPOL';
export const POD_CHAIN_PREFIX = 'TKUBE-NP-';
/** The mark bit an ipBlock-with-except chain sets when it allows (kube-proxy uses bit 14). */
export const ALLOW_MARK = '0x20000';

export interface PolicyRules {
  /** The main chain's rules (written whole on every sync). */
  readonly main: readonly string[];
  /** Every pod chain and ipBlock chain with its rules. */
  readonly chains: ReadonlyMap<string, readonly string[]>;
}

/** The built-in chains that jump to the main chain, first in each. */
export const JUMP_CHAINS = ['FORWARD', 'INPUT'] as const;

function hashed(kind: string, text: string): string {
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16).toUpperCase();
  return `${POD_CHAIN_PREFIX}${kind}-${digest}`;
}

export function podChainName(namespace: string, name: string, direction: Direction): string {
  return hashed(direction === 'ingress' ? 'I' : 'E', `${namespace}/${name}`);
}

/** Whether an existing chain is one of ours (stale ones are removed). */
export function isPolicyChain(chain: string): boolean {
  return chain.startsWith(POD_CHAIN_PREFIX);
}

function portArgs(port: PortMatch): string {
  const protocol = `-p ${port.protocol.toLowerCase()}`;
  if (port.port === undefined) return protocol;
  const range = port.endPort !== undefined ? `${port.port}:${port.endPort}` : `${port.port}`;
  return `${protocol} -m ${port.protocol.toLowerCase()} --dport ${range}`;
}

function portVariants(rule: AllowRule): string[] {
  return rule.ports.length === 0 ? [''] : rule.ports.map((port) => ` ${portArgs(port)}`);
}

/** The rules for a set of isolated local pods; deterministic for the same input. */
export function generatePolicyRules(isolated: readonly IsolatedPod[]): PolicyRules {
  const main = [`-A ${NETPOL_CHAIN} -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN`];
  const chains = new Map<string, string[]>();
  for (const { pod, direction, rules } of isolated) {
    const chain = podChainName(pod.namespace, pod.name, direction);
    const side = direction === 'ingress' ? '-d' : '-s';
    const peerSide = direction === 'ingress' ? '-s' : '-d';
    main.push(
      `-A ${NETPOL_CHAIN} ${side} ${pod.ip}/32 -m comment --comment "${pod.namespace}/${pod.name} ${direction}" -j ${chain}`,
    );
    const lines: string[] = [];
    let clearsMark = false;
    for (const rule of rules) {
      const { peer } = rule;
      for (const ports of portVariants(rule)) {
        if (peer.kind === 'any') {
          lines.push(`-A ${chain}${ports} -j RETURN`);
        } else if (peer.except.length === 0) {
          lines.push(`-A ${chain} ${peerSide} ${peer.cidr}${ports} -j RETURN`);
        } else {
          const blockChain = hashed('X', `${direction} ${peer.cidr} ${peer.except.join(',')}`);
          if (!chains.has(blockChain)) {
            chains.set(blockChain, [
              ...peer.except.map((except) => `-A ${blockChain} ${peerSide} ${except} -j RETURN`),
              `-A ${blockChain} ${peerSide} ${peer.cidr} -j MARK --set-xmark ${ALLOW_MARK}/${ALLOW_MARK}`,
            ]);
          }
          clearsMark = true;
          lines.push(`-A ${chain}${ports} -j ${blockChain}`);
          lines.push(`-A ${chain} -m mark --mark ${ALLOW_MARK}/${ALLOW_MARK} -j RETURN`);
        }
      }
    }
    lines.push(`-A ${chain} -j DROP`);
    if (clearsMark) lines.unshift(`-A ${chain} -j MARK --set-xmark 0x0/${ALLOW_MARK}`);
    chains.set(chain, lines);
  }
  return { main, chains };
}

const chainLine = (chain: string) => `:${chain} - [0:0]`;

function sameLines(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((line, i) => line === b[i]);
}

/**
 * The iptables-restore input (for `--noflush`) taking the filter table from `previous` (what the
 * last successful sync wrote, or the chains found on the node) to `rules`: the main chain, the
 * chains that changed, and the removal of chains no longer used.
 */
export function policyRestoreInput(
  rules: PolicyRules,
  previous: ReadonlyMap<string, readonly string[] | undefined>,
): string {
  const changed = [...rules.chains].filter(([chain, lines]) => !sameLines(previous.get(chain), lines));
  const stale = [...previous.keys()].filter((chain) => !rules.chains.has(chain)).sort();
  return [
    '*filter',
    chainLine(NETPOL_CHAIN),
    ...changed.map(([chain]) => chainLine(chain)),
    ...stale.map(chainLine),
    ...rules.main,
    ...changed.flatMap(([, lines]) => lines),
    // After the main chain no longer jumps to them (declared above, so they are empty).
    ...stale.map((chain) => `-X ${chain}`),
    'COMMIT',
    '',
  ].join('\n');
}
