import { describe, expect, it } from 'vitest';
import {
  formatGoDuration,
  formatRfc3339,
  formatRfc3339Micro,
} from '../../../src/apiserver/protobuf/go-format.js';

describe('formatGoDuration (time.Duration.String)', () => {
  it.each([
    [0n, '0s'],
    [1n, '1ns'],
    [999n, '999ns'],
    [1_500n, '1.5µs'],
    [100_000_000n, '100ms'],
    [1_234_567n, '1.234567ms'],
    [1_500_000_000n, '1.5s'],
    [90_000_000_000n, '1m30s'],
    [120_000_000_000n, '2m0s'],
    [3_600_000_000_000n, '1h0m0s'],
    [3_723_400_000_000n, '1h2m3.4s'],
    [-2_000_000_000n, '-2s'],
    [-1_500n, '-1.5µs'],
  ])('%s ns is %s', (nanos, text) => {
    expect(formatGoDuration(nanos)).toBe(text);
  });
});

describe('time formats', () => {
  it('prints RFC 3339 in UTC with whole seconds', () => {
    expect(formatRfc3339(0n)).toBe('1970-01-01T00:00:00Z');
    expect(formatRfc3339(1_700_000_000n)).toBe('2023-11-14T22:13:20Z');
    expect(formatRfc3339(-1n)).toBe('1969-12-31T23:59:59Z');
    // Go pads years to four digits and does not refuse years past 9999.
    expect(formatRfc3339(-62_135_596_800n + 86_400n)).toBe('0001-01-02T00:00:00Z');
    expect(formatRfc3339(253_402_300_800n)).toBe('10000-01-01T00:00:00Z');
  });

  it('prints every int64 second count, past the years a JavaScript Date holds', () => {
    expect(formatRfc3339(-62_135_596_798n)).toBe('0001-01-01T00:00:02Z');
    expect(formatRfc3339(-62_135_596_801n)).toBe('0000-12-31T23:59:59Z');
    expect(formatRfc3339(-62_167_219_201n)).toBe('-0001-12-31T23:59:59Z');
    expect(formatRfc3339(951_782_400n)).toBe('2000-02-29T00:00:00Z');
    expect(formatRfc3339(8_640_000_000_000n)).toBe('275760-09-13T00:00:00Z');
    expect(formatRfc3339(8_640_000_000_001n)).toBe('275760-09-13T00:00:01Z');
    expect(formatRfc3339(-8_640_000_000_001n)).toBe('-271821-04-19T23:59:59Z');
    expect(formatRfc3339Micro(-62_135_596_798n, 5_000n)).toBe('0001-01-01T00:00:02.000005Z');
  });

  it('prints microseconds, truncating nanoseconds', () => {
    expect(formatRfc3339Micro(1_700_000_000n, 0n)).toBe('2023-11-14T22:13:20.000000Z');
    expect(formatRfc3339Micro(1_700_000_000n, 999_999_999n)).toBe('2023-11-14T22:13:20.999999Z');
    // Negative nanos count back from the second, as time.Unix normalises them.
    expect(formatRfc3339Micro(1_700_000_000n, -1_000n)).toBe('2023-11-14T22:13:19.999999Z');
  });
});
