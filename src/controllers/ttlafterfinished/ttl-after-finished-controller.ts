// The TTL-after-finished controller (pkg/controller/ttlafterfinished): a Job with
// spec.ttlSecondsAfterFinished is deleted — with foreground propagation, so its pods go first —
// that many seconds after its Complete or Failed condition turned True. A Job not due yet is
// looked at again when it will be; the TTL is re-read from the server just before deleting.
import type { Job } from '../../api/types/batch-v1.generated.js';
import { Controller, type SyncResult, splitKey } from '../../client/controller.js';
import type { Lister } from '../../client/informers/index.js';
import { JOBS } from '../../client/resources.js';
import { isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';

const SERVICE_ACCOUNT = 'ttl-after-finished-controller';

export class TtlAfterFinishedController {
  readonly controller: Controller;
  private readonly jobs: Lister<Job>;
  private readonly client: Client;

  constructor(context: ControllerContext) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    const jobs = context.informers.informerFor<Job>(JOBS);
    this.jobs = jobs.lister;
    this.controller = new Controller({
      name: 'ttl-after-finished',
      sync: (key) => this.sync(key),
      workers: 5,
    });
    const enqueueIfNeeded = (job: Job): string | undefined =>
      !job.metadata?.deletionTimestamp && needsCleanup(job)
        ? `${job.metadata?.namespace}/${job.metadata?.name}`
        : undefined;
    this.controller.watch(jobs, enqueueIfNeeded);
  }

  async sync(key: string): Promise<SyncResult | undefined> {
    const { namespace, name } = splitKey(key);
    const job = this.jobs.get(namespace, name);
    if (!job) return undefined;
    const cached = expiry(job);
    if (cached.remainingMs === undefined) return undefined;
    if (cached.remainingMs > 0) return { requeueAfterMs: cached.remainingMs };

    // The cached TTL may be stale: decide on the Job as it is now.
    let fresh: Job;
    try {
      fresh = await this.client.resource<Job>(JOBS).get(namespace, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    const current = expiry(fresh);
    if (current.remainingMs === undefined) return undefined;
    if (current.remainingMs > 0) return { requeueAfterMs: current.remainingMs };
    await this.client.resource<Job>(JOBS).delete(namespace, name, {
      propagationPolicy: 'Foreground',
      preconditions: { uid: fresh.metadata?.uid },
    });
    return undefined;
  }
}

/** Finished (Complete or Failed) and has a TTL. */
function needsCleanup(job: Job): boolean {
  return job.spec?.ttlSecondsAfterFinished !== undefined && finishCondition(job) !== undefined;
}

function finishCondition(job: Job) {
  return job.status?.conditions?.find(
    (condition) =>
      (condition.type === 'Complete' || condition.type === 'Failed') && condition.status === 'True',
  );
}

/** Milliseconds until the Job expires (≤ 0 when it has); undefined when it needs no cleanup. */
function expiry(job: Job): { remainingMs: number | undefined } {
  if (job.metadata?.deletionTimestamp || !needsCleanup(job)) return { remainingMs: undefined };
  const finishedAt = Date.parse(finishCondition(job)?.lastTransitionTime ?? '');
  if (Number.isNaN(finishedAt)) {
    throw new Error(
      `unable to find the time when the Job ${job.metadata?.namespace}/${job.metadata?.name} finished`,
    );
  }
  return { remainingMs: finishedAt + (job.spec?.ttlSecondsAfterFinished ?? 0) * 1000 - Date.now() };
}

export const ttlAfterFinishedController: ControllerDescriptor = {
  name: 'ttl-after-finished-controller',
  create: (context) => new TtlAfterFinishedController(context).controller,
};
