// bin/run.js runs the CLI from its bundle (src/cli/bundle.ts, scripts/build/bundle-cli.ts) with
// the V8 code cache the build made; a bundle without a cache gets one from a command that lives
// long enough, which the next command takes; without the bundle it runs the commands from dist/
// as before. Either way a command's output and exit code are the same.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/cli.js';

const probe = new URL('./fixtures/code-cache-probe.mjs', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'tkube-cli-bundle-'));
/** A copy of the package whose dist/cli-bundle this test may change (the repository's is shared). */
const pkg = join(dir, 'package');
const pkgBundle = join(pkg, 'dist', 'cli-bundle', 'cli.cjs');

interface Probe {
  scripts: { cachedData: boolean; rejected: boolean }[];
  oclifFromNodeModules: boolean;
  bundleRequired: boolean;
}
interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
  probe: Probe;
}

let runs = 0;
async function run(root: string, args: string[], stayMs?: number): Promise<Run> {
  const out = join(dir, `probe-${runs++}.json`);
  const env: Record<string, string> = { PROBE_OUT: out, TKUBE_HOME: join(dir, 'home') };
  if (stayMs !== undefined) env.PROBE_STAY_MS = String(stayMs);
  const result = await execa(process.execPath, ['--import', probe, join(root, 'bin', 'run.js'), ...args], {
    env,
    reject: false,
  });
  const probed = JSON.parse(readFileSync(out, 'utf8')) as Probe;
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr, probe: probed };
}

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'dist', 'cli-bundle', 'cli.cjs')))
    throw new Error('dist/cli-bundle is missing: run `npm run build` first (npm test does)');
  mkdirSync(join(pkg, 'bin'), { recursive: true });
  mkdirSync(join(pkg, 'dist', 'cli-bundle'), { recursive: true });
  copyFileSync(join(repoRoot, 'bin', 'run.js'), join(pkg, 'bin', 'run.js'));
  for (const file of ['package.json', 'oclif.manifest.json'])
    copyFileSync(join(repoRoot, file), join(pkg, file));
  symlinkSync(join(repoRoot, 'node_modules'), join(pkg, 'node_modules'));
  for (const entry of readdirSync(join(repoRoot, 'dist')))
    if (entry !== 'cli-bundle') symlinkSync(join(repoRoot, 'dist', entry), join(pkg, 'dist', entry));
  // The bundle alone, without the cache the build made.
  copyFileSync(join(repoRoot, 'dist', 'cli-bundle', 'cli.cjs'), pkgBundle);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bin/run.js and the CLI bundle', () => {
  it('runs the built bundle with the code cache the build made', async () => {
    const result = await run(repoRoot, ['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('COMMANDS');
    expect(result.probe).toEqual({
      scripts: [{ cachedData: true, rejected: false }],
      oclifFromNodeModules: false,
      bundleRequired: true,
    });
  });

  it('runs the hidden controlplane command, left out of the bundle, from dist/', async () => {
    const result = await run(repoRoot, ['controlplane', '--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('--state-dir');
    expect(result.probe).toEqual({ scripts: [], oclifFromNodeModules: true, bundleRequired: false });
  });

  it('writes a missing cache from a long command, and the next command takes it', async () => {
    const cacheFile = `${pkgBundle}.cache`;
    rmSync(cacheFile, { force: true });
    const short = await run(pkg, ['up', '--help']);
    expect(short.exitCode).toBe(0);
    expect(short.probe.scripts).toEqual([{ cachedData: false, rejected: false }]);
    // Gone before the write is due (a command that takes longer, as `up`, writes it).
    expect(existsSync(cacheFile)).toBe(false);
    const long = await run(pkg, ['up', '--help'], 2_500);
    expect(long.probe.scripts).toEqual([{ cachedData: false, rejected: false }]);
    expect(existsSync(cacheFile)).toBe(true);
    const next = await run(pkg, ['up', '--help']);
    expect(next.probe.scripts).toEqual([{ cachedData: true, rejected: false }]);
    expect(next.stdout).toBe(short.stdout);
  });

  it('answers as the commands from dist/ do, and falls back to them without the bundle', async () => {
    const cases = [
      ['--help'],
      ['help', 'up'],
      ['nosuch'],
      ['up', '--nodes', 'abc'],
      ['list', '-o', 'json'],
      ['node'],
    ];
    const withBundle = await Promise.all(cases.map((args) => run(pkg, args)));
    rmSync(join(pkg, 'dist', 'cli-bundle'), { recursive: true, force: true });
    const without = await Promise.all(cases.map((args) => run(pkg, args)));
    cases.forEach((args, i) => {
      const [a, b] = [withBundle[i]!, without[i]!];
      expect(a.probe.bundleRequired, args.join(' ')).toBe(true);
      expect(b.probe).toEqual({ scripts: [], oclifFromNodeModules: true, bundleRequired: false });
      expect({ args, exitCode: a.exitCode, stdout: a.stdout, stderr: a.stderr }).toEqual({
        args,
        exitCode: b.exitCode,
        stdout: b.stdout,
        stderr: b.stderr,
      });
    });
    expect(withBundle.map((r) => r.exitCode)).toEqual([0, 2, 2, 2, 0, 0]);
  });
});
