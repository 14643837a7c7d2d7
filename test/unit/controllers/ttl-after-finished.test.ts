// The TTL-after-finished controller through the whole control plane: a finished Job with a TTL is
// deleted (foreground) once the TTL has passed since it finished; one without a TTL, or not
// finished, stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../../src/api/types/batch-v1.generated.js';
import { JOBS } from '../../../src/client/resources.js';
import { isNotFound } from '../../../src/client/rest/index.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

describe('TTL-after-finished controller', () => {
  let cp: InProcessControlPlane;
  const namespace = 'default';
  beforeAll(async () => {
    cp = await startInProcessControlPlane();
  }, 30_000);
  afterAll(() => cp?.stop());

  const jobs = () => cp.admin.resource<Job>(JOBS);

  async function createJob(name: string, ttlSecondsAfterFinished?: number): Promise<Job> {
    return jobs().create({
      metadata: { name, namespace },
      spec: {
        ...(ttlSecondsAfterFinished === undefined ? {} : { ttlSecondsAfterFinished }),
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
        },
      },
    });
  }

  /** Finishes the Job as the job controller would. */
  async function complete(name: string, finishedAt: Date): Promise<void> {
    const time = finishedAt.toISOString().replace(/\.\d+Z$/, 'Z');
    await jobs().patch(
      namespace,
      name,
      'merge',
      {
        status: {
          startTime: time,
          completionTime: time,
          succeeded: 1,
          conditions: [
            { type: 'SuccessCriteriaMet', status: 'True', lastProbeTime: time, lastTransitionTime: time },
            { type: 'Complete', status: 'True', lastProbeTime: time, lastTransitionTime: time },
          ],
        },
      },
      { subresource: 'status' },
    );
  }

  const gone = (name: string) =>
    jobs()
      .get(namespace, name)
      .then(
        // Foreground deletion leaves the Job until the garbage collector has removed its pods.
        (job) => (job.metadata?.deletionTimestamp ? true : undefined),
        (error: unknown) => {
          if (isNotFound(error)) return true;
          throw error;
        },
      );

  it('deletes a finished Job whose TTL has passed', async () => {
    await createJob('ttl-zero', 0);
    await createJob('no-ttl');
    await createJob('unfinished', 0);
    await complete('ttl-zero', new Date());
    await complete('no-ttl', new Date());
    await eventually(() => gone('ttl-zero'));
    expect((await jobs().get(namespace, 'no-ttl')).metadata?.deletionTimestamp).toBeUndefined();
    expect((await jobs().get(namespace, 'unfinished')).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('waits for the TTL counted from when the Job finished', async () => {
    await createJob('ttl-later', 3);
    // Condition times have whole seconds.
    const finishedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    await complete('ttl-later', finishedAt);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await gone('ttl-later')).toBeUndefined();
    await eventually(() => gone('ttl-later'), 6000);
    expect(Date.now()).toBeGreaterThanOrEqual(finishedAt.getTime() + 3000);
  });
});
