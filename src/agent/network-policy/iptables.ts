// The node's filter table as network policy enforcement drives it: the main chain's jump kept
// first in FORWARD and INPUT (ahead of the proxy's KUBE-FORWARD, which accepts some traffic
// outright), our chains read back from the table, and restores through the proxy's runner. The
// jump check reads the table with one iptables-save and repairs it with one restore.
import { chainsOf, iptablesIn, parseSaved, ruleText, runner, type SavedTable } from '../proxy/iptables.js';
import { isPolicyChain, JUMP_CHAINS, NETPOL_CHAIN } from './rules.js';

export interface PolicyIptables {
  /** Creates the main chain and makes its jump the first rule of FORWARD and INPUT. */
  ensureJumpsFirst(): Promise<void>;
  /** Our pod and ipBlock chains now in the filter table. */
  policyChains(): Promise<Set<string>>;
  /** Applies restore input with `--noflush`; throws with iptables-restore's message on failure. */
  restore(input: string): Promise<void>;
}

const JUMP = ruleText(['-m', 'comment', '--comment', 'tkube network policies', '-j', NETPOL_CHAIN]);

/**
 * The restore input that puts the main chain's jump first in each of JUMP_CHAINS, or undefined
 * when the saved filter table has it so: the chain created when missing, a jump found lower down
 * deleted by its number (from the bottom, so the numbers above stay right), then one put first.
 */
export function jumpsFirstInput(filter: SavedTable | undefined): string | undefined {
  const lines: string[] = [];
  if (!filter?.chains.has(NETPOL_CHAIN)) lines.push(`:${NETPOL_CHAIN} - [0:0]`);
  for (const chain of JUMP_CHAINS) {
    const rules = filter?.rules.get(chain) ?? [];
    if (rules[0]?.endsWith(`-j ${NETPOL_CHAIN}`)) continue;
    for (let index = rules.length - 1; index >= 0; index--) {
      if (rules[index]!.endsWith(`-j ${NETPOL_CHAIN}`)) lines.push(`-D ${chain} ${index + 1}`);
    }
    lines.push(`-I ${chain} 1 ${JUMP}`);
  }
  return lines.length === 0 ? undefined : ['*filter', ...lines, 'COMMIT', ''].join('\n');
}

/** iptables run with `prefix` before each command (tests use a network namespace of their own). */
export function policyIptablesIn(prefix: readonly string[]): PolicyIptables {
  const run = runner(prefix);
  const { restore } = iptablesIn(prefix);
  const savedFilter = async () => parseSaved(await run('iptables-save', ['-t', 'filter'])).get('filter');
  return {
    async ensureJumpsFirst() {
      const input = jumpsFirstInput(await savedFilter());
      if (input) await restore(input);
    },
    policyChains: async () => chainsOf(await savedFilter(), isPolicyChain),
    restore,
  };
}

/** The node's own iptables binaries. */
export const nodePolicyIptables: PolicyIptables = policyIptablesIn([]);
