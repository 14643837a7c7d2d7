// Printers of the batch group.
import type { KubeObject } from '../../api/object.js';
import { at, int, list, optBool, optInt, optStr, str } from './access.js';
import { AGE, column, fieldColumn, NAME, templateColumns, wideFieldColumn } from './columns.js';
import { humanDuration, parseTimestamp, since } from './duration.js';
import { boolPointer, containerCells, formatLabelSelector } from './format.js';
import { ageOf, isDeleting, nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

// hasJobCondition: the first condition of the type decides.
function hasJobCondition(job: KubeObject, type: string): boolean {
  const condition = list(job, 'status', 'conditions').find((c) => str(c, 'type') === type);
  return condition !== undefined && str(condition, 'status') === 'True';
}

function jobStatus(job: KubeObject): string {
  if (hasJobCondition(job, 'Complete')) return 'Complete';
  if (hasJobCondition(job, 'Failed')) return 'Failed';
  if (isDeleting(job)) return 'Terminating';
  if (hasJobCondition(job, 'Suspended')) return 'Suspended';
  if (hasJobCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(job: KubeObject): string {
  const succeeded = int(job, 'status', 'succeeded');
  const completions = optInt(job, 'spec', 'completions');
  if (completions !== undefined) return `${succeeded}/${completions}`;
  const parallelism = optInt(job, 'spec', 'parallelism') ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: KubeObject, now: Date): string {
  const start = parseTimestamp(at(job, 'status', 'startTime'));
  if (start === undefined) return '';
  const completion = parseTimestamp(at(job, 'status', 'completionTime'));
  return humanDuration((completion ?? now.getTime()) - start);
}

export const jobs: KindPrinter = {
  columns: [
    NAME,
    column('Status', 'string', 'Status of the job.'),
    fieldColumn('Completions', 'string', 'batch/v1.JobStatus.succeeded'),
    column('Duration', 'string', 'Time required to complete the job.'),
    AGE,
    ...templateColumns(),
    wideFieldColumn('Selector', 'string', 'batch/v1.JobSpec.selector'),
  ],
  row(job, now) {
    const [names, images] = containerCells(list(job, 'spec', 'template', 'spec', 'containers'));
    return [
      nameOf(job),
      jobStatus(job),
      jobCompletions(job),
      jobDuration(job, now),
      ageOf(job, now),
      names,
      images,
      formatLabelSelector(at(job, 'spec', 'selector')),
    ];
  },
};

export const cronJobs: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Schedule', 'string', 'batch/v1beta1.CronJobSpec.schedule'),
    fieldColumn('Timezone', 'string', 'batch/v1beta1.CronJobSpec.timeZone'),
    fieldColumn('Suspend', 'boolean', 'batch/v1beta1.CronJobSpec.suspend'),
    fieldColumn('Active', 'integer', 'batch/v1beta1.CronJobStatus.active'),
    fieldColumn('Last Schedule', 'string', 'batch/v1beta1.CronJobStatus.lastScheduleTime'),
    AGE,
    ...templateColumns(),
    wideFieldColumn('Selector', 'string', 'batch/v1.JobSpec.selector'),
  ],
  row(cronJob, now) {
    const jobSpec = at(cronJob, 'spec', 'jobTemplate', 'spec');
    const [names, images] = containerCells(list(jobSpec, 'template', 'spec', 'containers'));
    const lastSchedule = at(cronJob, 'status', 'lastScheduleTime');
    return [
      nameOf(cronJob),
      str(cronJob, 'spec', 'schedule'),
      optStr(cronJob, 'spec', 'timeZone') ?? '<none>',
      boolPointer(optBool(cronJob, 'spec', 'suspend')),
      list(cronJob, 'status', 'active').length,
      lastSchedule === undefined ? '<none>' : since(lastSchedule, now),
      ageOf(cronJob, now),
      names,
      images,
      formatLabelSelector(at(jobSpec, 'selector')),
    ];
  },
};
