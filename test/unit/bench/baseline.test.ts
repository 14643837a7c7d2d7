import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  compareFigures,
  describeComparison,
  readBaseline,
  writeBaseline,
} from '../../../scripts/bench/baseline.js';

describe('benchmark baselines', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('calls a figure worse only beyond 15% or the run spread, whichever is larger', () => {
    const result = compareFigures(
      { up1: 1000, up3: 1000, rss: 100, gone: 5 },
      {
        up1: { value: 1100, unit: 'ms' },
        up3: { value: 1300, unit: 'ms', noise: 400 },
        rss: { value: 120, unit: 'MiB' },
        fresh: { value: 7, unit: 'ms' },
      },
    );
    expect(result.map((c) => [c.name, c.verdict])).toEqual([
      ['up1', 'same'],
      ['up3', 'same'],
      ['rss', 'worse'],
      ['fresh', 'new'],
    ]);
    expect(result[2]!.change).toBeCloseTo(0.2);
    expect(compareFigures({ up1: 1000 }, { up1: { value: 700, unit: 'ms' } })[0]!.verdict).toBe('better');
  });

  it('prints a loud banner naming the worse figures, and none otherwise', () => {
    const worse = describeComparison(
      'up',
      compareFigures({ rss: 100 }, { rss: { value: 150, unit: 'MiB' } }),
    );
    expect(worse[1]).toContain('WORSE');
    expect(worse[1]).toContain('rss');
    const same = describeComparison('up', compareFigures({ rss: 100 }, { rss: { value: 101, unit: 'MiB' } }));
    expect(same.join('\n')).not.toContain('WORSE');
  });

  it('round-trips accepted figures through the JSON file, and reads none from a missing file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-baseline-'));
    dirs.push(dir);
    const path = join(dir, 'baselines', 'up.json');
    expect(readBaseline(path)).toEqual({});
    writeBaseline(path, { up1: { value: 1234.567, unit: 'ms' } }, 'abc123');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ commit: 'abc123', figures: { up1: 1234.57 } });
    expect(readBaseline(path)).toEqual({ up1: 1234.57 });
  });
});
