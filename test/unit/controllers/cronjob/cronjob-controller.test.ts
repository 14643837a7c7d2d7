// The CronJob controller through the whole control plane on fake nodes. Start times are made due
// without waiting for the clock by moving status.lastScheduleTime back, as a controller that was
// down for a while would find it: the latest missed start runs, Forbid and Replace treat a running
// Job as upstream does, too many missed starts are reported, and finished Jobs beyond the history
// limits go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CronJob, Job } from '../../../../src/api/types/batch-v1.generated.js';
import type { Event } from '../../../../src/api/types/core-v1.generated.js';
import { CRON_JOBS, EVENTS, JOBS } from '../../../../src/client/resources.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../../support/control-plane.js';

const namespace = 'default';
let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane({ fakeNodes: { count: 1 } });
}, 60_000);
afterAll(() => cp?.stop(), 60_000);

const cronJobs = () => cp.admin.resource<CronJob>(CRON_JOBS);
const jobs = () => cp.admin.resource<Job>(JOBS);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const minute = (ms: number) => Math.floor(ms / 60_000) * 60_000;

async function createCronJob(
  name: string,
  spec: Partial<CronJob['spec']> = {},
  exitCode?: number,
): Promise<CronJob> {
  return cronJobs().create({
    metadata: { name, namespace },
    spec: {
      schedule: '* * * * *',
      concurrencyPolicy: 'Allow',
      ...spec,
      jobTemplate: {
        spec: {
          template: {
            metadata:
              exitCode === undefined ? {} : { annotations: { 'fake.tkube.dev/exit-code': String(exitCode) } },
            spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
          },
        },
      },
    },
  });
}

/** Makes start times since `minutesAgo` due (the status as a controller down that long would find it). */
async function missSince(name: string, minutesAgo: number, active?: CronJob['status']): Promise<void> {
  await cronJobs().patch(
    namespace,
    name,
    'merge',
    { status: { lastScheduleTime: iso(minute(Date.now()) - minutesAgo * 60_000), ...active } },
    { subresource: 'status' },
  );
}

/** A schedule whose latest start was two minutes ago. */
function twoMinutesAgo(): string {
  return `${(new Date().getUTCMinutes() + 58) % 60} * * * *`;
}

async function ownedJobs(name: string): Promise<Job[]> {
  const cronJob = await cronJobs().get(namespace, name);
  return (await jobs().list(namespace)).items.filter((job) =>
    job.metadata?.ownerReferences?.some((reference) => reference.uid === cronJob.metadata?.uid),
  );
}

async function eventReasons(name: string): Promise<string[]> {
  const events = await cp.admin.resource<Event>(EVENTS).list(namespace);
  return events.items
    .filter((event) => event.involvedObject.name === name && event.involvedObject.kind === 'CronJob')
    .map((event) => event.reason ?? '');
}

describe('CronJob controller', () => {
  it('runs the latest missed start and records it, then its success', async () => {
    await createCronJob('hello', {}, 0);
    await missSince('hello', 3);
    const due = minute(Date.now());
    const job = await eventually(async () => (await ownedJobs('hello'))[0], 20_000);
    expect(job.metadata?.name).toBe(`hello-${due / 60_000}`);
    expect(job.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe(iso(due));
    const done = await eventually(async () => {
      const cronJob = await cronJobs().get(namespace, 'hello');
      return cronJob.status?.lastSuccessfulTime && (cronJob.status.active ?? []).length === 0
        ? cronJob
        : undefined;
    }, 30_000);
    expect(done.status?.lastScheduleTime).toBe(iso(due));
    expect(await eventReasons('hello')).toEqual(
      expect.arrayContaining(['SuccessfulCreate', 'SawCompletedJob']),
    );
  }, 60_000);

  it('keeps a running Job under Forbid and replaces it under Replace', async () => {
    // The first start two minutes ago; then every minute, so the next one has another name.
    await createCronJob('forbid', { concurrencyPolicy: 'Forbid', schedule: twoMinutesAgo() });
    await missSince('forbid', 5);
    const first = await eventually(async () => (await ownedJobs('forbid'))[0], 20_000);
    // Make an earlier start due again while the first Job still runs (its pod never ends).
    await cronJobs().patch(namespace, 'forbid', 'merge', { spec: { schedule: '* * * * *' } });
    await eventually(
      async () => ((await eventReasons('forbid')).includes('JobAlreadyActive') ? true : undefined),
      20_000,
    );
    expect((await ownedJobs('forbid')).map((job) => job.metadata?.name)).toEqual([first.metadata?.name]);

    await createCronJob('replace', { concurrencyPolicy: 'Replace', schedule: twoMinutesAgo() });
    await missSince('replace', 5);
    const old = await eventually(async () => (await ownedJobs('replace'))[0], 20_000);
    await cronJobs().patch(namespace, 'replace', 'merge', { spec: { schedule: '* * * * *' } });
    await eventually(async () => {
      const names = (await ownedJobs('replace'))
        .filter((job) => job.metadata?.deletionTimestamp === undefined)
        .map((job) => job.metadata?.name);
      return names.length === 1 && names[0] !== old.metadata?.name ? true : undefined;
    }, 20_000);
    const cronJob = await cronJobs().get(namespace, 'replace');
    expect(cronJob.status?.active).toHaveLength(1);
  }, 90_000);

  it('reports too many missed start times and still runs the latest', async () => {
    await createCronJob('late', {}, 0);
    await missSince('late', 200);
    await eventually(
      async () => ((await eventReasons('late')).includes('TooManyMissedTimes') ? true : undefined),
      20_000,
    );
    await eventually(async () => (await ownedJobs('late'))[0], 20_000);
  }, 60_000);

  it('records a Job it created before a restart instead of creating it again', async () => {
    const cronJob = await createCronJob('crashed', { suspend: true });
    const due = minute(Date.now());
    // What a controller that died between creating the Job and writing the status leaves behind.
    const owner = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      name: 'crashed',
      uid: cronJob.metadata?.uid ?? '',
      controller: true,
    };
    const job = await jobs().create({
      metadata: { name: `crashed-${due / 60_000}`, namespace, ownerReferences: [owner] },
      spec: structuredClone(cronJob.spec?.jobTemplate.spec ?? { template: {} }),
    });
    await cronJobs().patch(namespace, 'crashed', 'merge', { spec: { suspend: false } });
    await missSince('crashed', 3);
    const recorded = await eventually(async () => {
      const current = await cronJobs().get(namespace, 'crashed');
      return current.status?.lastScheduleTime === iso(due) ? current : undefined;
    }, 20_000);
    expect(recorded.status?.active?.map((reference) => reference.uid)).toEqual([job.metadata?.uid]);
    expect(await ownedJobs('crashed')).toHaveLength(1);
  }, 60_000);

  it('starts nothing while suspended', async () => {
    await createCronJob('paused', { suspend: true }, 0);
    await missSince('paused', 3);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await ownedJobs('paused')).toEqual([]);
  }, 30_000);

  it('deletes finished Jobs beyond the history limits, oldest first', async () => {
    const cronJob = await createCronJob('history', { suspend: true, successfulJobsHistoryLimit: 1 }, 0);
    const owner = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      name: 'history',
      uid: cronJob.metadata?.uid ?? '',
      controller: true,
    };
    for (const n of [1, 2, 3]) {
      await jobs().create({
        metadata: { name: `history-${n}`, namespace, ownerReferences: [owner] },
        spec: structuredClone(cronJob.spec?.jobTemplate.spec ?? { template: {} }),
      });
      // Distinct start times, in order.
      await eventually(
        async () => ((await jobs().get(namespace, `history-${n}`)).status?.completionTime ? true : undefined),
        20_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }
    await cronJobs().patch(namespace, 'history', 'merge', { metadata: { labels: { poke: 'yes' } } });
    const left = await eventually(async () => {
      const names = (await ownedJobs('history'))
        .filter((job) => job.metadata?.deletionTimestamp === undefined)
        .map((job) => job.metadata?.name);
      return names.length === 1 ? names : undefined;
    }, 20_000);
    expect(left).toEqual(['history-3']);
  }, 60_000);
});
