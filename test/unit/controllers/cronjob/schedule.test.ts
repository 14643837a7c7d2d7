// CronJob schedule arithmetic, table-driven: next and previous start times (macros, time zones),
// missed start times with and without startingDeadlineSeconds, Job names and timestamps.
import { describe, expect, it } from 'vitest';
import { scheduledTimestamp } from '../../../../src/controllers/cronjob/cronjob-jobs.js';
import { jobNameFor, missedStarts, parseSchedule } from '../../../../src/controllers/cronjob/schedule.js';

const at = (text: string): number => Date.parse(text);

describe('schedules', () => {
  it.each([
    ['*/5 * * * *', undefined, '2026-01-01T10:31:00Z', '2026-01-01T10:35:00Z', '2026-01-01T10:30:00Z'],
    ['@hourly', undefined, '2026-01-01T10:30:00Z', '2026-01-01T11:00:00Z', '2026-01-01T10:00:00Z'],
    ['@daily', undefined, '2026-01-01T10:30:00Z', '2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z'],
    ['0 9 * * *', 'America/New_York', '2026-01-01T10:30:00Z', '2026-01-01T14:00:00Z', '2025-12-31T14:00:00Z'],
    ['0 9 * * *', 'Asia/Tokyo', '2026-01-01T10:30:00Z', '2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z'],
  ])('%s in %s from %s: next %s, previous %s', (text, zone, now, next, previous) => {
    const schedule = parseSchedule(text, zone);
    expect(new Date(schedule.next(at(now))).toISOString()).toBe(new Date(at(next)).toISOString());
    expect(new Date(schedule.previous(at(now)) ?? 0).toISOString()).toBe(
      new Date(at(previous)).toISOString(),
    );
  });

  it.each([
    ['@every 1h', '2026-01-01T10:30:00.500Z', '2026-01-01T11:30:00Z'],
    ['@every 90s', '2026-01-01T10:30:00Z', '2026-01-01T10:31:30Z'],
    ['@every 1m30s', '2026-01-01T10:30:00Z', '2026-01-01T10:31:30Z'],
    ['@every 100ms', '2026-01-01T10:30:00Z', '2026-01-01T10:30:01Z'],
  ])('%s from %s: next %s', (text, now, next) => {
    expect(new Date(parseSchedule(text, undefined).next(at(now))).toISOString()).toBe(
      new Date(at(next)).toISOString(),
    );
  });

  it('walks @every to its latest missed start', () => {
    const missed = missedStarts(
      parseSchedule('@every 1m', undefined),
      at('2026-01-01T10:00:00Z'),
      at('2026-01-01T10:05:30Z'),
      undefined,
    );
    expect(missed).toEqual({ mostRecent: at('2026-01-01T10:05:00Z'), tooMany: false });
  });

  it('counts a start time exactly now as due', () => {
    expect(parseSchedule('* * * * *', undefined).previous(at('2026-01-01T10:30:00Z'))).toBe(
      at('2026-01-01T10:30:00Z'),
    );
  });

  it.each(['bogus', '* * *', '0 * * * * *', '61 * * * *', '@every', '@every 5x'])('rejects %j', (text) => {
    expect(() => parseSchedule(text, undefined)).toThrow();
  });
});

describe('missed start times', () => {
  const everyMinute = parseSchedule('* * * * *', undefined);
  it.each([
    ['none since the last', '2026-01-01T10:30:00Z', '2026-01-01T10:30:30Z', undefined, undefined, false],
    ['one due', '2026-01-01T10:30:00Z', '2026-01-01T10:31:10Z', undefined, '2026-01-01T10:31:00Z', false],
    [
      'several: the latest',
      '2026-01-01T10:30:00Z',
      '2026-01-01T10:35:10Z',
      undefined,
      '2026-01-01T10:35:00Z',
      false,
    ],
    ['too many', '2026-01-01T08:00:00Z', '2026-01-01T10:35:10Z', undefined, '2026-01-01T10:35:00Z', true],
    [
      'the deadline hides old ones',
      '2026-01-01T08:00:00Z',
      '2026-01-01T10:35:10Z',
      60,
      '2026-01-01T10:35:00Z',
      false,
    ],
    ['past its deadline', '2026-01-01T10:30:00Z', '2026-01-01T10:31:30Z', 10, undefined, false],
  ])('%s', (_name, earliest, now, deadline, expected, tooMany) => {
    const missed = missedStarts(everyMinute, at(earliest), at(now), deadline);
    expect(missed.mostRecent).toBe(expected === undefined ? undefined : at(expected));
    expect(missed.tooMany).toBe(tooMany);
  });
});

describe('jobs of a CronJob', () => {
  it('are named after the start minute since the epoch', () => {
    expect(jobNameFor('hello', at('2026-01-01T10:35:00Z'))).toBe(
      `hello-${at('2026-01-01T10:35:00Z') / 60_000}`,
    );
  });
  it.each([
    [undefined, '2026-01-01T10:35:00Z'],
    ['Asia/Tokyo', '2026-01-01T19:35:00+09:00'],
    ['America/New_York', '2026-01-01T05:35:00-05:00'],
  ])('carry the scheduled timestamp in %s', (zone, expected) => {
    expect(scheduledTimestamp(at('2026-01-01T10:35:00Z'), zone)).toBe(expected);
  });
});
