// Accepted benchmark figures kept in the repo (scripts/bench/baselines/<benchmark>.json), so a run
// prints its change against them and says loudly when a figure got worse by more than the noise.
// Accepting new figures: run the benchmark with BENCH_ACCEPT=1 and commit the rewritten JSON.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One measured figure; lower is better for all of them (times, memory, CPU). */
export interface Figure {
  readonly value: number;
  readonly unit: string;
  /** This run's spread (e.g. half the range of its rounds): a change within it is not a regression. */
  readonly noise?: number;
}

export type Figures = Readonly<Record<string, Figure>>;

/** Relative change tolerated as noise on any figure, whatever the run's own spread. */
export const RELATIVE_NOISE = 0.15;

export type Verdict = 'new' | 'same' | 'better' | 'worse';

export interface Comparison {
  readonly name: string;
  readonly unit: string;
  readonly accepted?: number;
  readonly current: number;
  /** (current - accepted) / accepted; undefined without an accepted figure. */
  readonly change?: number;
  readonly verdict: Verdict;
}

export function compareFigures(accepted: Readonly<Record<string, number>>, current: Figures): Comparison[] {
  return Object.entries(current).map(([name, figure]) => {
    const before = accepted[name];
    if (before === undefined || !Number.isFinite(before) || before <= 0) {
      return { name, unit: figure.unit, current: figure.value, verdict: 'new' };
    }
    const delta = figure.value - before;
    const tolerance = Math.max(before * RELATIVE_NOISE, figure.noise ?? 0);
    const verdict: Verdict = delta > tolerance ? 'worse' : delta < -tolerance ? 'better' : 'same';
    return {
      name,
      unit: figure.unit,
      accepted: before,
      current: figure.value,
      change: delta / before,
      verdict,
    };
  });
}

export function baselinePath(benchmark: string): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'baselines', `${benchmark}.json`);
}

/** The accepted figures of a benchmark: `{ "<figure>": number }`; none when the file is absent. */
export function readBaseline(path: string): Record<string, number> {
  if (!existsSync(path)) return {};
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const figures: Record<string, number> = {};
  if (typeof parsed === 'object' && parsed !== null && 'figures' in parsed) {
    const stored = (parsed as { figures: unknown }).figures;
    if (typeof stored === 'object' && stored !== null) {
      for (const [name, value] of Object.entries(stored))
        if (typeof value === 'number') figures[name] = value;
    }
  }
  return figures;
}

export function writeBaseline(path: string, current: Figures, commit: string): void {
  const figures: Record<string, number> = {};
  for (const [name, figure] of Object.entries(current)) figures[name] = Math.round(figure.value * 100) / 100;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ commit, figures }, null, 2)}\n`);
}

function format(value: number, unit: string): string {
  return unit === 'ms' ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(0)} ${unit}`;
}

/** The comparison as printable lines; a loud banner first when any figure is worse. */
export function describeComparison(benchmark: string, comparisons: readonly Comparison[]): string[] {
  const lines: string[] = [];
  const worse = comparisons.filter((c) => c.verdict === 'worse');
  if (worse.length > 0) {
    const banner = `!!! ${benchmark}: ${worse.length} figure(s) WORSE than the accepted ones beyond noise: ${worse
      .map((c) => c.name)
      .join(', ')} !!!`;
    lines.push('!'.repeat(banner.length), banner, '!'.repeat(banner.length));
  }
  lines.push(
    `Against the accepted figures (${benchmark}; noise: ±${RELATIVE_NOISE * 100}% or the run's spread)`,
  );
  for (const c of comparisons) {
    const before = c.accepted === undefined ? '—' : format(c.accepted, c.unit);
    const change = c.change === undefined ? '' : `${c.change >= 0 ? '+' : ''}${(c.change * 100).toFixed(0)}%`;
    const mark = c.verdict === 'worse' ? 'WORSE' : c.verdict;
    lines.push(
      `  ${c.name.padEnd(28)} ${before.padStart(10)} -> ${format(c.current, c.unit).padStart(10)}  ${change.padStart(5)}  ${mark}`,
    );
  }
  if (worse.length === 0) lines.push("  (BENCH_ACCEPT=1 rewrites the accepted figures with this run's)");
  return lines;
}

/** Prints the change against the accepted figures; with BENCH_ACCEPT=1 stores this run's instead. */
export function reportAgainstBaseline(benchmark: string, current: Figures, commit: string): Comparison[] {
  const path = baselinePath(benchmark);
  const comparisons = compareFigures(readBaseline(path), current);
  for (const line of describeComparison(benchmark, comparisons)) console.log(line);
  if (process.env.BENCH_ACCEPT === '1') {
    writeBaseline(path, current, commit);
    console.log(`Accepted: wrote ${path}`);
  }
  return comparisons;
}
