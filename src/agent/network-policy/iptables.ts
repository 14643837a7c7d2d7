// The node's filter table as network policy enforcement drives it: the main chain's jump kept
// first in FORWARD and INPUT (ahead of the proxy's KUBE-FORWARD, which accepts some traffic
// outright), our chains read back from the table, and restores through the proxy's runner.
import { iptablesIn, runner, savedChains } from '../proxy/iptables.js';
import { isPolicyChain, JUMP_CHAINS, NETPOL_CHAIN } from './rules.js';

export interface PolicyIptables {
  /** Creates the main chain and makes its jump the first rule of FORWARD and INPUT. */
  ensureJumpsFirst(): Promise<void>;
  /** Our pod and ipBlock chains now in the filter table. */
  policyChains(): Promise<Set<string>>;
  /** Applies restore input with `--noflush`; throws with iptables-restore's message on failure. */
  restore(input: string): Promise<void>;
}

const JUMP = ['-m', 'comment', '--comment', 'tkube network policies', '-j', NETPOL_CHAIN];

/** iptables run with `prefix` before each command (tests use a network namespace of their own). */
export function policyIptablesIn(prefix: readonly string[]): PolicyIptables {
  const run = runner(prefix);
  return {
    async ensureJumpsFirst() {
      try {
        await run('iptables', ['-w', '-N', NETPOL_CHAIN]);
      } catch (error) {
        if (!/exists/i.test(String(error))) throw error;
      }
      for (const chain of JUMP_CHAINS) {
        const listed = await run('iptables', ['-w', '-S', chain]);
        const first = listed.split('\n').find((line) => line.startsWith(`-A ${chain} `));
        if (first?.endsWith(`-j ${NETPOL_CHAIN}`)) continue;
        // Somewhere below another rule (the proxy inserted its jumps later): move it up.
        await run('iptables', ['-w', '-D', chain, ...JUMP]).catch(() => undefined);
        await run('iptables', ['-w', '-I', chain, '1', ...JUMP]);
      }
    },
    policyChains: async () => savedChains(await run('iptables-save', ['-t', 'filter']), isPolicyChain),
    restore: (input) => iptablesIn(prefix).restore(input),
  };
}

/** The node's own iptables binaries. */
export const nodePolicyIptables: PolicyIptables = policyIptablesIn([]);
