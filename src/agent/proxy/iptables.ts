// The node's iptables as the proxy drives it (k8s.io/kubernetes/pkg/util/iptables): jump rules
// from the built-in chains ensured one by one, everything else in one `iptables-restore
// --noflush` per sync (the kernel applies a restore whole or not at all), and the nat table's
// chain list read back to find chains a previous agent left.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { isServiceChain } from './chain-names.js';
import type { JumpRule } from './rules.js';

const execFileAsync = promisify(execFile);

export interface Iptables {
  /** Creates each jump's target chain and puts the jump first in its built-in chain, unless there. */
  ensureJumps(jumps: readonly JumpRule[]): Promise<void>;
  /** Applies restore input with `--noflush`; throws with iptables-restore's message on failure. */
  restore(input: string): Promise<void>;
  /** The per-service chains (KUBE-SVC-, KUBE-SEP-, ...) now in the nat table. */
  serviceChains(): Promise<Set<string>>;
}

export type Run = (file: string, args: readonly string[]) => Promise<string>;

/** Runs the tool itself, or behind a prefix such as `ip netns exec <name>`. */
export function runner(prefix: readonly string[]): Run {
  return async (file, args) => {
    const [command, ...rest] = [...prefix, file, ...args];
    try {
      return (await execFileAsync(command!, rest, { encoding: 'utf8' })).stdout;
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim();
      throw new Error(`${file} ${args.join(' ')} failed${stderr ? `: ${stderr}` : ''}`);
    }
  };
}

function runWithInput(
  prefix: readonly string[],
  file: string,
  args: readonly string[],
  input: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const [command, ...rest] = [...prefix, file, ...args];
    const child = spawn(command!, rest, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${file} ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/** The chains `iptables-save` output declares that `keep` accepts. */
export function savedChains(saved: string, keep: (chain: string) => boolean): Set<string> {
  const chains = new Set<string>();
  for (const line of saved.split('\n')) {
    if (!line.startsWith(':')) continue;
    const chain = line.slice(1).split(' ')[0]!;
    if (keep(chain)) chains.add(chain);
  }
  return chains;
}

/** iptables run with `prefix` before each command (tests use a network namespace of their own). */
export function iptablesIn(prefix: readonly string[]): Iptables {
  const run = runner(prefix);
  return {
    async ensureJumps(jumps) {
      for (const jump of jumps) {
        try {
          await run('iptables', ['-w', '-t', jump.table, '-N', jump.target]);
        } catch (error) {
          if (!/exists/i.test(String(error))) throw error;
        }
        try {
          await run('iptables', ['-w', '-t', jump.table, '-C', jump.chain, ...jump.args]);
        } catch {
          await run('iptables', ['-w', '-t', jump.table, '-I', jump.chain, '1', ...jump.args]);
        }
      }
    },
    restore: (input) => runWithInput(prefix, 'iptables-restore', ['-w', '--noflush', '--counters'], input),
    serviceChains: async () => savedChains(await run('iptables-save', ['-t', 'nat']), isServiceChain),
  };
}

/** The node's own iptables binaries (the entrypoint points them at the nft or legacy backend). */
export const nodeIptables: Iptables = iptablesIn([]);
