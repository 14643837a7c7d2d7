// CronJob schedule arithmetic (pkg/controller/cronjob/utils.go): the most recent start time a
// CronJob missed, how many it missed, and when it is next due — in its timeZone (UTC when unset),
// through cron-parser (five fields, @yearly/@monthly/@weekly/@daily/@hourly).
import { CronExpressionParser } from 'cron-parser';

/** More missed start times than this is a problem upstream reports (and then starts the latest). */
export const MAX_MISSED_START_TIMES = 100;

export interface Schedule {
  /** The first start time strictly after `afterMs`. */
  next(afterMs: number): number;
  /** The last start time at or before `atMs`, if any. */
  previous(atMs: number): number | undefined;
}

/** Parses a schedule; throws with the parser's message when it cannot. */
export function parseSchedule(schedule: string, timeZone: string | undefined): Schedule {
  const tz = timeZone ?? 'UTC';
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
  const latest = schedule.previous(nowMs);
  if (latest === undefined || latest <= from) return { mostRecent: undefined, tooMany: false };
  let count = 0;
  for (let t = schedule.next(from); t <= nowMs && count <= MAX_MISSED_START_TIMES; t = schedule.next(t))
    count++;
  return { mostRecent: latest, tooMany: count > MAX_MISSED_START_TIMES };
}

/** The Job name for a start time: `<cronjob>-<minutes since the epoch>`. */
export function jobNameFor(cronJobName: string, scheduledMs: number): string {
  return `${cronJobName}-${Math.floor(scheduledMs / 60_000)}`;
}
