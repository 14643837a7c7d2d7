import { describe, expect, it } from 'vitest';
import { humanDuration, parseTimestamp, since } from '../../../src/apiserver/printers/duration.js';
import { ago, NOW } from './helpers.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

describe('humanDuration (duration.HumanDuration)', () => {
  it.each([
    [0, '0s'],
    [999, '0s'],
    [59 * S, '59s'],
    [90 * S, '90s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [2 * M + 3 * S, '2m3s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M, '10m'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [3 * H + 5 * M, '3h5m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 30 * M, '8h'],
    [47 * H, '47h'],
    [2 * D, '2d'],
    [2 * D + 3 * H, '2d3h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D, '8d'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [2 * Y, '2y'],
    [2 * Y + 45 * D, '2y45d'],
    [8 * Y + 100 * D, '8y'],
  ])('%d ms reads %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it('reads up to two seconds of clock skew as now and more as invalid', () => {
    expect(humanDuration(-1500)).toBe('0s');
    expect(humanDuration(-2500)).toBe('<invalid>');
  });
});

describe('since (translateTimestampSince)', () => {
  it('measures from the given clock', () => {
    expect(since(ago({ h: 3, m: 5 }), NOW)).toBe('3h5m');
    expect(since('2025-06-01T11:59:59.500000Z', NOW)).toBe('0s');
  });

  it('prints <unknown> for a missing timestamp', () => {
    expect(since(undefined, NOW)).toBe('<unknown>');
    expect(since('', NOW)).toBe('<unknown>');
  });
});

describe('parseTimestamp', () => {
  it('keeps the microseconds of a MicroTime', () => {
    expect(parseTimestamp('2025-06-01T11:59:30.000001Z')).toBeCloseTo(
      Date.parse('2025-06-01T11:59:30Z') + 0.001,
      6,
    );
    expect(since('2025-06-01T11:59:30.000001Z', NOW)).toBe('29s');
  });

  it('reads offsets and rejects what is no time', () => {
    expect(parseTimestamp('2025-06-01T14:00:00+02:00')).toBe(NOW.getTime());
    expect(parseTimestamp('yesterday')).toBeUndefined();
    expect(parseTimestamp(1748779200)).toBeUndefined();
  });
});
