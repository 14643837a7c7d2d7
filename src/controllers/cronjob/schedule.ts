// CronJob schedule arithmetic (pkg/controller/cronjob/utils.go): the most recent start time a
// CronJob missed, how many it missed, and when it is next due — in its timeZone (UTC when unset),
// through cron-parser (five fields, @yearly/@monthly/@weekly/@daily/@hourly), and `@every`.
import { CronExpressionParser } from 'cron-parser';

/** More missed start times than this is a problem upstream reports (and then starts the latest). */
export const MAX_MISSED_START_TIMES = 100;
/** How far a schedule without a grid (`@every`) is walked to its latest start before giving up. */
const MAX_WALKED_START_TIMES = 1_000_000;

export interface Schedule {
  /** The first start time strictly after `afterMs`. */
  next(afterMs: number): number;
  /** The last start time at or before `atMs`, if any. */
  previous(atMs: number): number | undefined;
}

/** Parses a schedule; throws with the parser's message when it cannot. */
export function parseSchedule(schedule: string, timeZone: string | undefined): Schedule {
  const tz = timeZone ?? 'UTC';
  const every = /^@every\s+(\S+)$/.exec(schedule.trim());
  if (every) return everySchedule(every[1] as string, schedule);
  // The standard syntax has exactly five fields; the parser would also take seconds or fill gaps.
  const fields = schedule.trim().split(/\s+/);
  if (!schedule.trim().startsWith('@') && fields.length !== 5) {
    throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  }
  // Parse once up front so a bad schedule fails here, not in the first computation.
  CronExpressionParser.parse(schedule, { tz, currentDate: new Date(0) });
  return {
    next(afterMs) {
      return CronExpressionParser.parse(schedule, { tz, currentDate: new Date(afterMs) })
        .next()
        .getTime();
    },
    previous(atMs) {
      try {
        // `prev` is strictly before its start: start a millisecond later to include `atMs`.
        return CronExpressionParser.parse(schedule, { tz, currentDate: new Date(atMs + 1) })
          .prev()
          .getTime();
      } catch {
        return undefined;
      }
    },
  };
}

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * `@every <Go duration>` (robfig/cron's ConstantDelaySchedule): a start every so long after the
 * previous one, counted in whole seconds (shorter delays round up to a second). It has no fixed
 * grid, so no `previous`.
 */
function everySchedule(text: string, schedule: string): Schedule {
  const parts = [...text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) {
    throw new Error(`failed to parse duration ${schedule}: time: invalid duration "${text}"`);
  }
  const ms = parts.reduce(
    (sum, part) => sum + Number(part[1]) * (DURATION_UNITS_MS[part[2] as string] ?? 0),
    0,
  );
  const delayMs = Math.max(1000, Math.floor(ms / 1000) * 1000);
  return {
    next: (afterMs) => Math.floor(afterMs / 1000) * 1000 + delayMs,
    previous: () => undefined,
  };
}

export interface MissedStarts {
  /** The most recent start time not yet run, if any. */
  readonly mostRecent: number | undefined;
  /** Whether more than MAX_MISSED_START_TIMES were missed. */
  readonly tooMany: boolean;
}

/**
 * The start times between the last scheduled one (or the CronJob's creation) and now; with
 * startingDeadlineSeconds, only those within the deadline count.
 */
export function missedStarts(
  schedule: Schedule,
  earliestMs: number,
  nowMs: number,
  startingDeadlineSeconds: number | undefined,
): MissedStarts {
  let from = earliestMs;
  if (startingDeadlineSeconds !== undefined) from = Math.max(from, nowMs - startingDeadlineSeconds * 1000);
  if (from > nowMs) return { mostRecent: undefined, tooMany: false };
  let latest: number | undefined;
  let count = 0;
  for (let t = schedule.next(from); t <= nowMs; t = schedule.next(t)) {
    latest = t;
    count++;
    if (count > MAX_MISSED_START_TIMES) {
      // Far behind: jump to the latest start (a schedule without a grid walks on, boundedly).
      const previous = schedule.previous(nowMs);
      if (previous !== undefined) return { mostRecent: previous, tooMany: true };
      if (count > MAX_WALKED_START_TIMES) break;
    }
  }
  return { mostRecent: latest, tooMany: count > MAX_MISSED_START_TIMES };
}

/** The Job name for a start time: `<cronjob>-<minutes since the epoch>`. */
export function jobNameFor(cronJobName: string, scheduledMs: number): string {
  return `${cronJobName}-${Math.floor(scheduledMs / 60_000)}`;
}
