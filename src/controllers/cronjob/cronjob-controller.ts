// The CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go): at each start time of
// its schedule a CronJob creates a Job named `<cronjob>-<minutes since the epoch>`, as its
// concurrencyPolicy allows (Allow, Forbid, Replace) and within startingDeadlineSeconds; it keeps
// status.active, lastScheduleTime and lastSuccessfulTime, deletes finished Jobs beyond the
// history limits, and syncs again when the next start time is due.
import type { CronJob, CronJobStatus, Job } from '../../api/types/batch-v1.generated.js';
import type { ObjectReference } from '../../api/types/core-v1.generated.js';
import { Controller, type SyncResult, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import type { Lister } from '../../client/informers/index.js';
import { CRON_JOBS, JOBS } from '../../client/resources.js';
import { isAlreadyExists, isNotFound } from '../../client/rest/index.js';
import type { ApiObject, ResourceClient } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../context.js';
import { controllerRefOf, newControllerRef } from '../controller-utils/owner-references.js';
import { messageOf } from '../controller-utils/pod-control.js';
import { finishedCondition, scheduledTimestamp } from './cronjob-jobs.js';
import { jobNameFor, missedStarts, parseSchedule, type Schedule } from './schedule.js';

const SERVICE_ACCOUNT = 'cronjob-controller';
const CRONJOB_KIND = { apiVersion: 'batch/v1', kind: 'CronJob' };
export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** Synced again this long after the next start time, so the start time has surely passed. */
const NEXT_SCHEDULE_DELTA_MS = 100;

export interface CronJobControllerOptions {
  readonly now?: () => number;
}

export class CronJobController implements RunnableController {
  readonly controller: Controller;
  private readonly cronJobs: Lister<CronJob>;
  private readonly jobLister: Lister<Job>;
  private readonly cronJobClient: ResourceClient<CronJob>;
  private readonly jobClient: ResourceClient<Job>;
  private readonly events: EventRecorder;
  private readonly now: () => number;

  constructor(context: ControllerContext, options: CronJobControllerOptions = {}) {
    this.now = options.now ?? Date.now;
    const client = context.clientFor(SERVICE_ACCOUNT);
    this.cronJobClient = client.resource<CronJob>(CRON_JOBS);
    this.jobClient = client.resource<Job>(JOBS);
    this.events = context.recorderFor(SERVICE_ACCOUNT, 'cronjob-controller');
    const cronJobs = context.informers.informerFor<CronJob>(CRON_JOBS);
    const jobs = context.informers.informerFor<Job>(JOBS);
    this.cronJobs = cronJobs.lister;
    this.jobLister = jobs.lister;
    this.controller = new Controller({ name: 'cronjob', workers: 5, sync: (key) => this.sync(key) });
    this.controller.watch(cronJobs);
    this.controller.watch(jobs, (job) => {
      const reference = controllerRefOf(job);
      return reference?.kind === 'CronJob' ? `${job.metadata?.namespace}/${reference.name}` : undefined;
    });
  }

  /** An event about the object, named with its kind (cached objects need not carry it). */
  private recordEvent(object: ApiObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.event({ ...object, ...CRONJOB_KIND }, type, reason, message);
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  async sync(key: string): Promise<SyncResult | undefined> {
    const { namespace, name } = splitKey(key);
    const cached = this.cronJobs.get(namespace, name);
    if (!cached) return undefined;
    const cronJob = structuredClone(cached);
    const status: CronJobStatus = cronJob.status ?? {};
    cronJob.status = status;
    const jobs = this.jobLister
      .list(namespace)
      .filter((job) => controllerRefOf(job)?.uid === cronJob.metadata?.uid);
    let changed = await this.reconcileActive(cronJob, jobs);
    let requeue: SyncResult | undefined;
    if (cronJob.metadata?.deletionTimestamp === undefined) {
      const result = await this.schedule(cronJob, jobs);
      changed ||= result.changed;
      requeue = result.requeue;
    }
    if (changed) {
      await this.cronJobClient.updateStatus({ ...cached, status: cronJob.status });
    }
    await this.cleanUpHistory(cronJob, jobs);
    return requeue;
  }

  /** Drops finished and missing Jobs from status.active; records lastSuccessfulTime. */
  private async reconcileActive(cronJob: CronJob, jobs: Job[]): Promise<boolean> {
    const status = cronJob.status as CronJobStatus;
    const before = JSON.stringify(status);
    const active = status.active ?? [];
    const ours = new Set(jobs.map((job) => job.metadata?.uid));
    for (const job of jobs) {
      const listed = active.some((reference) => reference.uid === job.metadata?.uid);
      const finished = finishedCondition(job);
      if (!listed && finished === undefined) {
        this.recordEvent(
          cronJob,
          'Warning',
          'UnexpectedJob',
          `Saw a job that the controller did not create or forgot: ${job.metadata?.name}`,
        );
      } else if (listed && finished !== undefined) {
        status.active = (status.active ?? []).filter((reference) => reference.uid !== job.metadata?.uid);
        this.recordEvent(
          cronJob,
          'Normal',
          'SawCompletedJob',
          `Saw completed job: ${job.metadata?.name}, condition: ${finished}`,
        );
      }
      const completed = job.status?.completionTime;
      if (finished === 'Complete' && completed !== undefined) {
        if (
          status.lastSuccessfulTime === undefined ||
          Date.parse(completed) > Date.parse(status.lastSuccessfulTime)
        ) {
          status.lastSuccessfulTime = completed;
        }
      }
    }
    for (const reference of [...(status.active ?? [])]) {
      if (ours.has(reference.uid)) continue;
      // Not in the cache: ask the server before calling it gone.
      let gone = false;
      try {
        const job = await this.jobClient.get(reference.namespace ?? '', reference.name ?? '');
        gone = job.metadata?.uid !== reference.uid;
      } catch (error) {
        if (!isNotFound(error)) throw error;
        gone = true;
      }
      if (gone) {
        this.recordEvent(cronJob, 'Normal', 'MissingJob', `Active job went missing: ${reference.name}`);
        status.active = (status.active ?? []).filter((r) => r.uid !== reference.uid);
      }
    }
    return JSON.stringify(status) !== before;
  }

  /** Starts the Job now due, if any; returns when to look again. */
  private async schedule(
    cronJob: CronJob,
    jobs: Job[],
  ): Promise<{ changed: boolean; requeue: SyncResult | undefined }> {
    const spec = cronJob.spec;
    const status = cronJob.status as CronJobStatus;
    if (!spec) return { changed: false, requeue: undefined };
    if (spec.timeZone !== undefined && !isKnownTimeZone(spec.timeZone)) {
      this.recordEvent(
        cronJob,
        'Warning',
        'UnknownTimeZone',
        `invalid timeZone: "${spec.timeZone}": unknown time zone ${spec.timeZone}`,
      );
      return { changed: false, requeue: undefined };
    }
    let schedule: Schedule;
    try {
      schedule = parseSchedule(spec.schedule, spec.timeZone);
    } catch (error) {
      this.recordEvent(
        cronJob,
        'Warning',
        'UnparseableSchedule',
        `unparseable schedule: "${spec.schedule}" : ${messageOf(error)}`,
      );
      return { changed: false, requeue: undefined };
    }
    if (spec.suspend === true) return { changed: false, requeue: undefined };
    const nowMs = this.now();
    const requeueNext = (): SyncResult => ({
      requeueAfterMs: Math.max(0, schedule.next(nowMs) - nowMs) + NEXT_SCHEDULE_DELTA_MS,
    });
    const earliest = Date.parse(status.lastScheduleTime ?? cronJob.metadata?.creationTimestamp ?? '');
    const missed = missedStarts(
      schedule,
      Number.isNaN(earliest) ? nowMs : earliest,
      nowMs,
      spec.startingDeadlineSeconds,
    );
    if (missed.tooMany) {
      this.recordEvent(
        cronJob,
        'Warning',
        'TooManyMissedTimes',
        'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
      );
    }
    const scheduled = missed.mostRecent;
    if (scheduled === undefined) return { changed: false, requeue: requeueNext() };
    const jobName = jobNameFor(cronJob.metadata?.name ?? '', scheduled);
    const existing = jobs.find((job) => job.metadata?.name === jobName);
    const lastScheduled = Date.parse(status.lastScheduleTime ?? '');
    if (existing && (Number.isNaN(lastScheduled) || lastScheduled < scheduled)) {
      // Created before the status said so (a restart in between): record it now, not again.
      const listed = (status.active ?? []).some((reference) => reference.uid === existing.metadata?.uid);
      if (!listed && finishedCondition(existing) === undefined) {
        status.active = [...(status.active ?? []), jobReference(existing)];
      }
      status.lastScheduleTime = rfc3339(scheduled);
      return { changed: true, requeue: requeueNext() };
    }
    if (existing || (status.active ?? []).some((reference) => reference.name === jobName)) {
      return { changed: false, requeue: requeueNext() };
    }
    const policy = spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && (status.active ?? []).length > 0) {
      this.recordEvent(
        cronJob,
        'Normal',
        'JobAlreadyActive',
        'Not starting job because prior execution is running and concurrency policy is Forbid',
      );
      return { changed: false, requeue: requeueNext() };
    }
    if (policy === 'Replace') {
      for (const reference of [...(status.active ?? [])]) {
        await this.deleteJob(cronJob, reference.namespace ?? '', reference.name ?? '');
        status.active = (status.active ?? []).filter((r) => r.uid !== reference.uid);
      }
    }
    const job = this.jobFromTemplate(cronJob, jobName, scheduled);
    let created: Job;
    try {
      created = await this.jobClient.create(job);
      this.recordEvent(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${jobName}`);
    } catch (error) {
      if (!isAlreadyExists(error)) {
        this.recordEvent(cronJob, 'Warning', 'FailedCreate', `Error creating job: ${messageOf(error)}`);
        throw error;
      }
      // Created before (a restart between creating it and writing the status): adopt the record.
      created = await this.jobClient.get(cronJob.metadata?.namespace ?? '', jobName);
      if (controllerRefOf(created)?.uid !== cronJob.metadata?.uid)
        return { changed: true, requeue: requeueNext() };
    }
    status.active = [...(status.active ?? []), jobReference(created)];
    status.lastScheduleTime = rfc3339(scheduled);
    return { changed: true, requeue: requeueNext() };
  }

  private jobFromTemplate(cronJob: CronJob, name: string, scheduledMs: number): Job {
    const template = cronJob.spec?.jobTemplate;
    return {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace: cronJob.metadata?.namespace,
        labels: { ...template?.metadata?.labels },
        annotations: {
          ...template?.metadata?.annotations,
          [SCHEDULED_TIMESTAMP_ANNOTATION]: scheduledTimestamp(scheduledMs, cronJob.spec?.timeZone),
        },
        ownerReferences: [newControllerRef(cronJob, CRONJOB_KIND)],
      },
      spec: structuredClone(template?.spec ?? { template: {} }),
    };
  }

  /** Deletes finished Jobs beyond successfulJobsHistoryLimit (3) and failedJobsHistoryLimit (1), oldest first. */
  private async cleanUpHistory(cronJob: CronJob, jobs: Job[]): Promise<void> {
    const limits = {
      Complete: cronJob.spec?.successfulJobsHistoryLimit ?? 3,
      Failed: cronJob.spec?.failedJobsHistoryLimit ?? 1,
    };
    for (const outcome of ['Complete', 'Failed'] as const) {
      const finished = jobs
        .filter((job) => finishedCondition(job) === outcome && job.metadata?.deletionTimestamp === undefined)
        .sort((a, b) => startOf(a) - startOf(b));
      const excess = finished.length - limits[outcome];
      for (const job of finished.slice(0, Math.max(0, excess))) {
        await this.deleteJob(cronJob, job.metadata?.namespace ?? '', job.metadata?.name ?? '');
      }
    }
  }

  private async deleteJob(cronJob: CronJob, namespace: string, name: string): Promise<void> {
    try {
      await this.jobClient.delete(namespace, name, { propagationPolicy: 'Background' });
    } catch (error) {
      if (isNotFound(error)) return;
      this.recordEvent(cronJob, 'Warning', 'FailedDelete', `Deleted job: ${messageOf(error)}`);
      throw error;
    }
    this.recordEvent(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${name}`);
  }
}

function jobReference(job: Job): ObjectReference {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    namespace: job.metadata?.namespace,
    name: job.metadata?.name,
    uid: job.metadata?.uid,
    resourceVersion: job.metadata?.resourceVersion,
  };
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Whether this runtime's time zone database knows the zone. */
function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

function startOf(job: Job): number {
  const time = Date.parse(job.status?.startTime ?? job.metadata?.creationTimestamp ?? '');
  return Number.isNaN(time) ? 0 : time;
}

export const cronJobController: ControllerDescriptor = {
  name: 'cronjob-controller',
  create: (context) => new CronJobController(context),
};
