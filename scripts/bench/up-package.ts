// The single executable against the npm-installed CLI (issue 27): the executable's size and
// build time, its first run (writing its payload to the cache), and `tkube version` wall time
// of each, alternating in the same run. Used by bench:up (scripts/bench/up.ts);
// `tsx scripts/bench/up-package.ts` runs it alone (BENCH_UP_ROUNDS × 5 version runs, default 3).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { packAndInstallGlobally } from '../../test/support/npm-install.js';
import { buildExecutable } from '../build/executable.js';
import { percentile, printTable } from './report.js';

export interface PackageTimes {
  readonly executableBytes: number;
  readonly buildMs: number;
  /** `tkube version` with an empty cache: the payload is written first. */
  readonly firstRunMs: number;
  readonly executableVersionMs: number[];
  readonly npmVersionMs: number[];
}

async function timedRun(file: string, args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const result = await execa(file, args, { env, reject: false });
  const ms = performance.now() - started;
  if (result.exitCode !== 0) throw new Error(`${file} ${args.join(' ')} failed: ${result.stderr}`);
  return ms;
}

export async function benchPackage(rounds: number): Promise<PackageTimes> {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-package-'));
  try {
    const built = await buildExecutable();
    const installed = (await packAndInstallGlobally(dir)).bin;
    const env = { HOME: dir, PATH: process.env.PATH ?? '', TKUBE_CACHE_DIR: join(dir, 'cache') };
    const firstRunMs = await timedRun(built.path, ['version'], env);
    const times = { executableVersionMs: [] as number[], npmVersionMs: [] as number[] };
    // Alternating, so load from elsewhere on the machine hits both alike.
    for (let i = 0; i < rounds * 5; i++) {
      times.executableVersionMs.push(await timedRun(built.path, ['version'], env));
      times.npmVersionMs.push(await timedRun(installed, ['version'], env));
    }
    return { executableBytes: statSync(built.path).size, buildMs: built.durationMs, firstRunMs, ...times };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printPackage(times: PackageTimes): void {
  const s = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
  const spread = (values: number[]) =>
    `${s(percentile(values, 50))} (${s(Math.min(...values))}–${s(Math.max(...values))})`;
  printTable(
    `One executable against the npm-installed CLI (median and range of ${times.npmVersionMs.length})`,
    [
      ['measure', 'executable', 'npm install -g'],
      ['size', `${(times.executableBytes / 2 ** 20).toFixed(1)} MiB`, ''],
      ['npm run package, after npm run build', s(times.buildMs), ''],
      ['tkube version, first run (payload written)', s(times.firstRunMs), ''],
      ['tkube version', spread(times.executableVersionMs), spread(times.npmVersionMs)],
    ],
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printPackage(await benchPackage(Number(process.env.BENCH_UP_ROUNDS ?? 3)));
}
