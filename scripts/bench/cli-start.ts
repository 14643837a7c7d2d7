// The CLI's own start-up, as a user of the npm package sees it (`npm run bench:cli-start`, builds
// first): `tkube --help` and `tkube up --nodes 0` (time to the first progress line, and whole),
// run from the CLI's bundle with its code cache (bin/run.js, src/cli/bundle.ts) and, alternately in
// the same run, module by module from dist/ as without the bundle, and another build's
// (BENCH_CLI_PREVIOUS_RUN_JS, e.g. main's checkout). Median and range of BENCH_CLI_ROUNDS
// (default 5), with the machine's load average, which skews them on a shared host.
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { isolatedCliEnv } from './cli-env.js';
import { percentile, printTable } from './report.js';

const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 5);
/** Cluster names start with this (BENCH_CLI_CLUSTER_PREFIX), so runs beside each other do not collide. */
const prefix = process.env.BENCH_CLI_CLUSTER_PREFIX ?? 'benchcli';
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const previousRunJs = process.env.BENCH_CLI_PREVIOUS_RUN_JS;
const bundleDir = fileURLToPath(new URL('../../dist/cli-bundle', import.meta.url));
const hiddenBundleDir = `${bundleDir}.bench-hidden`;
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-cli-'));
const env = isolatedCliEnv(dir);

type Variant = 'bundle' | 'modules' | 'previous';
const variants: Variant[] = ['bundle', 'modules', ...(previousRunJs ? (['previous'] as const) : [])];
interface Timing {
  firstLineMs: number;
  wallMs: number;
}

/** Runs the CLI, timing its first line on stderr or stdout and its exit. */
async function time(variant: Variant, args: string[]): Promise<Timing> {
  const started = performance.now();
  let firstLine: number | undefined;
  const child = execa(process.execPath, [variant === 'previous' ? previousRunJs! : runJs, ...args], {
    env,
    reject: false,
  });
  const mark = () => {
    firstLine ??= performance.now();
  };
  child.stdout?.once('data', mark);
  child.stderr?.once('data', mark);
  const result = await child;
  const ended = performance.now();
  if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
  return { firstLineMs: (firstLine ?? ended) - started, wallMs: ended - started };
}

/** Without the bundle, bin/run.js falls back to dist/ module by module. */
function useVariant(variant: Variant): void {
  if (variant === 'modules' && existsSync(bundleDir)) renameSync(bundleDir, hiddenBundleDir);
  if (variant !== 'modules' && existsSync(hiddenBundleDir)) renameSync(hiddenBundleDir, bundleDir);
}

const results = Object.fromEntries(
  variants.map((variant) => [
    variant,
    { help: [] as number[], upFirst: [] as number[], upWall: [] as number[] },
  ]),
) as Record<Variant, { help: number[]; upFirst: number[]; upWall: number[] }>;
if (!existsSync(bundleDir)) throw new Error('dist/cli-bundle is missing: run `npm run build` first');
const loadBefore = loadavg();
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) {
      useVariant(variant);
      results[variant].help.push((await time(variant, ['--help'])).wallMs);
      const cluster = `${prefix}${round}${variant[0]}`;
      const up = await time(variant, ['up', cluster, '--nodes', '0']);
      results[variant].upFirst.push(up.firstLineMs);
      results[variant].upWall.push(up.wallMs);
      await time(variant, ['down', cluster]);
    }
  }
} finally {
  useVariant('bundle');
  rmSync(dir, { recursive: true, force: true });
}
const loadAfter = loadavg();

const figure = (values: number[]) =>
  `${percentile(values, 50).toFixed(0)} ms (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`;
const header: Record<Variant, string> = {
  bundle: 'bundle + code cache',
  modules: 'modules from dist/',
  previous: `${previousRunJs}`,
};
printTable(`CLI start-up, median (range) of ${ROUNDS}, alternating`, [
  ['', ...variants.map((variant) => header[variant])],
  ['tkube --help', ...variants.map((variant) => figure(results[variant].help))],
  ['up --nodes 0: first line', ...variants.map((variant) => figure(results[variant].upFirst))],
  ['up --nodes 0: whole', ...variants.map((variant) => figure(results[variant].upWall))],
]);
console.log(
  `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
);
