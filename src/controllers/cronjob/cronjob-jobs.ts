// What the CronJob controller reads off its Jobs (pkg/controller/cronjob/utils.go): whether one
// finished and how, and the scheduled-timestamp annotation it puts on them (RFC 3339 in the
// CronJob's time zone).
import type { Job } from '../../api/types/batch-v1.generated.js';

/** 'Complete' or 'Failed' when the Job finished, else undefined. */
export function finishedCondition(job: Job): 'Complete' | 'Failed' | undefined {
  for (const condition of job.status?.conditions ?? []) {
    if ((condition.type === 'Complete' || condition.type === 'Failed') && condition.status === 'True') {
      return condition.type;
    }
  }
  return undefined;
}

/** The start time as RFC 3339, with the offset of `timeZone` (UTC, `Z`, when unset). */
export function scheduledTimestamp(scheduledMs: number, timeZone: string | undefined): string {
  if (timeZone === undefined || timeZone === 'UTC' || timeZone === 'Etc/UTC') {
    return new Date(scheduledMs).toISOString().replace(/\.\d+Z$/, 'Z');
  }
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    })
      .formatToParts(new Date(scheduledMs))
      .map((part) => [part.type, part.value]),
  );
  const offset = (parts.timeZoneName ?? 'GMT').replace(/^GMT/, '') || 'Z';
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}
