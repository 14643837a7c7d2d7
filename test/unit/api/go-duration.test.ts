// Go's time.ParseDuration in milliseconds: what it accepts (units, fractions, signs, the bare
// `0`) and what it refuses (no unit, unknown units, a lone point, overflow).
import { describe, expect, it } from 'vitest';
import { parseGoDurationMs } from '../../../src/api/go-duration.js';

describe('parseGoDurationMs', () => {
  it.each([
    ['15s', 15_000],
    ['1m30s', 90_000],
    ['2m0s', 120_000],
    ['500ms', 500],
    ['1.5h', 5_400_000],
    ['1h2m3.5s', 3_723_500],
    ['.5s', 500],
    ['1.s', 1000],
    ['250us', 0.25],
    ['250\u00b5s', 0.25],
    ['250\u03bcs', 0.25],
    ['1000000ns', 1],
    ['0', 0],
    ['-0', 0],
    ['+5s', 5000],
    ['-1m', -60_000],
    ['0s', 0],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseGoDurationMs(text)).toBe(ms);
  });

  it.each(['', '5', '5 s', '5sec', '1d', '.s', '-', 's', '1m5', '3000000h'])('refuses %j', (text) => {
    expect(parseGoDurationMs(text)).toBeUndefined();
  });
});
