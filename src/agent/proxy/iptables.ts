// The node's iptables as the proxy drives it (k8s.io/kubernetes/pkg/util/iptables): the tables
// read with one `iptables-save`, everything written with one `iptables-restore --noflush` per
// sync (the kernel applies a restore whole or not at all), and `iptables -C` only where the
// saved text cannot tell whether a rule is there. Each command is a process the agent forks:
// at start-up they were most of its CPU time, so a sync runs two, not one per rule.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface Iptables {
  /** Every table's chains and rules, as `iptables-save` prints them. */
  save(): Promise<string>;
  /** Whether `chain` of `table` holds a rule with these arguments (`iptables -C`). */
  hasRule(table: string, chain: string, args: readonly string[]): Promise<boolean>;
  /** Applies restore input with `--noflush`; throws with iptables-restore's message on failure. */
  restore(input: string): Promise<void>;
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

/** One table as `iptables-save` printed it. */
export interface SavedTable {
  readonly chains: ReadonlySet<string>;
  /** Each chain's rules in order, as printed without the leading `-A <chain> `. */
  readonly rules: ReadonlyMap<string, readonly string[]>;
}

/** `iptables-save` output by table (`filter`, `nat`, ...). */
export function parseSaved(saved: string): Map<string, SavedTable> {
  const tables = new Map<string, SavedTable>();
  let chains = new Set<string>();
  let rules = new Map<string, string[]>();
  for (const line of saved.split('\n')) {
    if (line.startsWith('*')) {
      chains = new Set();
      rules = new Map();
      tables.set(line.slice(1).trim(), { chains, rules });
    } else if (line.startsWith(':')) {
      chains.add(line.slice(1).split(' ')[0]!);
    } else if (line.startsWith('-A ')) {
      const space = line.indexOf(' ', 3);
      const chain = space < 0 ? line.slice(3) : line.slice(3, space);
      const list = rules.get(chain) ?? [];
      list.push(space < 0 ? '' : line.slice(space + 1));
      rules.set(chain, list);
    }
  }
  return tables;
}

/** The chains of a saved table that `keep` accepts. */
export function chainsOf(table: SavedTable | undefined, keep: (chain: string) => boolean): Set<string> {
  return new Set([...(table?.chains ?? [])].filter(keep));
}

/** Rule arguments as iptables-save and iptables-restore write them: words with spaces quoted. */
export function ruleText(args: readonly string[]): string {
  return args.map((arg) => (/[\s"]/.test(arg) ? `"${arg.replaceAll('"', '\\"')}"` : arg)).join(' ');
}

/** iptables run with `prefix` before each command (tests use a network namespace of their own). */
export function iptablesIn(prefix: readonly string[]): Iptables {
  const run = runner(prefix);
  return {
    save: () => run('iptables-save', []),
    hasRule: (table, chain, args) =>
      run('iptables', ['-w', '-t', table, '-C', chain, ...args]).then(
        () => true,
        () => false,
      ),
    restore: (input) => runWithInput(prefix, 'iptables-restore', ['-w', '--noflush', '--counters'], input),
  };
}

/** The node's own iptables binaries (the entrypoint points them at the nft or legacy backend). */
export const nodeIptables: Iptables = iptablesIn([]);
