// `tkube completion bash|zsh`: the printed script is sourced by a real interactive bash, which
// must then complete tkube's commands and subcommands as a user's Tab would.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tkube } from '../../support/cli.js';

let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tkube-completion-'));
  // The plugin generates into tkube's cache directory: a private one.
  env = { XDG_CACHE_HOME: join(dir, 'cache') };
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What bash offers for `line` (ending where Tab is pressed), after sourcing `script`. */
async function bashCompletions(script: string, line: string): Promise<{ complete: string; words: string[] }> {
  const words = line.split(' ');
  const program = [
    `source ${script}`,
    'complete -p tkube',
    `COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    `COMP_LINE='${line}'`,
    `COMP_POINT=${line.length}`,
    '"$(complete -p tkube | sed -E "s/.*-F ([^ ]+).*/\\1/")"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's expansion, not a template.
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const result = await execa('bash', ['--norc', '--noprofile', '-i', '-c', program], { reject: false });
  expect(result.stderr).not.toMatch(/command not found|syntax error/);
  const [complete = '', ...offered] = result.stdout.split('\n');
  return { complete, words: offered.filter((word) => word !== '') };
}

describe('tkube completion bash', () => {
  let script: string;

  beforeAll(async () => {
    const result = await tkube(['completion', 'bash'], env);
    expect(result.exitCode).toBe(0);
    script = join(dir, 'tkube.bash');
    await writeFile(script, result.stdout);
  }, 60_000);

  it('registers a completion function for tkube when sourced by bash', async () => {
    const { complete } = await bashCompletions(script, 'tkube ');
    expect(complete).toMatch(/^complete -F \S+ tkube$/);
  });

  it('completes "tkube u" to up', async () => {
    expect((await bashCompletions(script, 'tkube u')).words).toEqual(['up']);
  });

  it('offers the subcommands of a topic: "tkube node " → add, remove', async () => {
    const { words } = await bashCompletions(script, 'tkube node ');
    expect(words).toEqual(expect.arrayContaining(['add', 'remove']));
    expect(words).not.toContain('up');
  });

  it('completes a command\'s flags: "tkube up --fake" → --fake-nodes', async () => {
    expect((await bashCompletions(script, 'tkube up --fake')).words).toEqual(['--fake-nodes']);
  });
});

describe('tkube completion zsh', () => {
  it('prints a script that registers _tkube with compdef when sourced', async () => {
    const result = await tkube(['completion', 'zsh'], env);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^#compdef tkube$/m);
    expect(result.stdout).toMatch(/^_tkube\(\) \{$/m);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('compdef _tkube tkube');
    expect(result.stdout).toMatch(/"up\[Create a cluster/);
  });
});

describe('tkube completion: bad input', () => {
  it('refuses a shell it does not support, naming the ones it does', async () => {
    const result = await tkube(['completion', 'fish'], env);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/Expected fish to be one of: bash, zsh/);
  });
});
