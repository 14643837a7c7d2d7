// The Job controller through the whole control plane on fake nodes (whose kubelets end a pod
// with the exit code of its `fake.tkube.dev/exit-code` annotation): completions, Indexed Jobs,
// the backoff limit, the pod failure policy, the deadline, suspension, and a control-plane
// restart in the middle of a Job that neither loses nor double-counts a pod.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, JobSpec } from '../../../../src/api/types/batch-v1.generated.js';
import type { Event, Pod } from '../../../../src/api/types/core-v1.generated.js';
import { EVENTS, JOBS, PODS } from '../../../../src/client/resources.js';
import type { Client } from '../../../../src/client/types.js';
import { type RunningControlPlane, startControlPlane } from '../../../../src/controlplane/control-plane.js';
import { eventually } from '../../../support/control-plane.js';

const namespace = 'default';
let dir: string;
let controlPlane: RunningControlPlane;
let admin: Client;

async function start(): Promise<void> {
  controlPlane = await startControlPlane({ stateDir: dir, apiPort: 0, fakeNodes: { count: 2 } });
  admin = controlPlane.loopbackClient(
    { name: 'test-admin', groups: ['system:masters', 'system:authenticated'] },
    'test',
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkube-job-'));
  await start();
}, 60_000);
afterAll(async () => {
  await controlPlane?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const jobs = () => admin.resource<Job>(JOBS);

function jobSpec(exitCode: number, spec: Partial<JobSpec> = {}): JobSpec {
  return {
    ...spec,
    template: {
      metadata: { annotations: { 'fake.tkube.dev/exit-code': String(exitCode) } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
    },
  };
}

async function createJob(name: string, spec: JobSpec): Promise<Job> {
  return jobs().create({ metadata: { name, namespace }, spec });
}

async function condition(name: string, type: string, timeoutMs = 30_000): Promise<Job> {
  return eventually(async () => {
    const job = await jobs().get(namespace, name);
    return job.status?.conditions?.some((c) => c.type === type && c.status === 'True') ? job : undefined;
  }, timeoutMs);
}

async function podsOf(name: string): Promise<Pod[]> {
  return (
    await admin.resource<Pod>(PODS).list(namespace, { labelSelector: `batch.kubernetes.io/job-name=${name}` })
  ).items;
}

describe('Job controller', () => {
  it('runs completions with parallelism and completes', async () => {
    await createJob('ok', jobSpec(0, { completions: 5, parallelism: 2 }));
    const job = await condition('ok', 'Complete');
    expect(job.status).toMatchObject({ succeeded: 5, failed: 0, active: 0, ready: 0, terminating: 0 });
    expect(job.status?.uncountedTerminatedPods).toEqual({ succeeded: [], failed: [] });
    const complete = job.status?.conditions?.find((c) => c.type === 'Complete');
    expect(complete).toMatchObject({
      reason: 'CompletionsReached',
      message: 'Reached expected number of succeeded pods',
    });
    expect(job.status?.conditions?.map((c) => c.type)).toEqual(['SuccessCriteriaMet', 'Complete']);
    expect(job.status?.completionTime).toBeDefined();
    const pods = await podsOf('ok');
    expect(pods).toHaveLength(5);
    expect(pods.every((pod) => !pod.metadata?.finalizers?.includes('batch.kubernetes.io/job-tracking'))).toBe(
      true,
    );
  }, 60_000);

  it('runs one pod per index of an Indexed Job', async () => {
    await createJob('indexed', jobSpec(0, { completions: 3, parallelism: 3, completionMode: 'Indexed' }));
    const job = await condition('indexed', 'Complete');
    expect(job.status).toMatchObject({ succeeded: 3, completedIndexes: '0-2' });
    const pods = await podsOf('indexed');
    const indexes = pods
      .map((pod) => pod.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'])
      .sort();
    expect(indexes).toEqual(['0', '1', '2']);
    const pod = pods.find((p) => p.metadata?.labels?.['batch.kubernetes.io/job-completion-index'] === '1');
    expect(pod?.spec?.hostname).toBe('indexed-1');
    expect(pod?.metadata?.name).toMatch(/^indexed-1-/);
    expect(pod?.spec?.containers[0]?.env?.[0]?.name).toBe('JOB_COMPLETION_INDEX');
  }, 60_000);

  it('fails a Job past its backoff limit', async () => {
    await createJob('backoff', jobSpec(1, { backoffLimit: 0 }));
    const job = await condition('backoff', 'Failed');
    expect(job.status).toMatchObject({ failed: 1, succeeded: 0, active: 0 });
    const failed = job.status?.conditions?.find((c) => c.type === 'Failed');
    expect(failed).toMatchObject({
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    });
    expect(job.status?.conditions?.map((c) => c.type)).toEqual(['FailureTarget', 'Failed']);
  }, 60_000);

  it('fails a Job on a FailJob rule of its pod failure policy', async () => {
    await createJob(
      'policy',
      jobSpec(3, {
        backoffLimit: 6,
        podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [3] } }] },
      }),
    );
    const job = await condition('policy', 'Failed');
    const failed = job.status?.conditions?.find((c) => c.type === 'Failed');
    expect(failed?.reason).toBe('PodFailurePolicy');
    expect(failed?.message).toMatch(
      /^Container main for pod default\/policy-\w+ failed with exit code 3 matching FailJob rule at index 0$/,
    );
    expect(job.status?.failed).toBe(1);
  }, 60_000);

  it('ignores failures an Ignore rule matches (no backoff counted)', async () => {
    await createJob(
      'ignore',
      jobSpec(42, {
        backoffLimit: 0,
        podFailurePolicy: { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [42] } }] },
      }),
    );
    // Each ignored failure is replaced at once, and the Job never fails.
    await eventually(async () => ((await podsOf('ignore')).length >= 3 ? true : undefined), 30_000);
    const job = await jobs().get(namespace, 'ignore');
    expect(job.status?.failed ?? 0).toBe(0);
    expect(job.status?.conditions?.some((c) => c.type === 'Failed')).toBe(false);
    await jobs().delete(namespace, 'ignore', { propagationPolicy: 'Background' });
  }, 60_000);

  it('fails a Job active longer than activeDeadlineSeconds', async () => {
    const spec = jobSpec(0, { activeDeadlineSeconds: 2 });
    delete spec.template.metadata;
    await createJob('deadline', spec);
    const job = await condition('deadline', 'Failed', 20_000);
    const failed = job.status?.conditions?.find((c) => c.type === 'Failed');
    expect(failed).toMatchObject({
      reason: 'DeadlineExceeded',
      message: 'Job was active longer than specified deadline',
    });
    expect(job.status).toMatchObject({ active: 0, failed: 1 });
  }, 60_000);

  it('suspends (deleting its pods) and resumes a Job', async () => {
    const spec = jobSpec(0, { parallelism: 2, completions: 2 });
    delete spec.template.metadata;
    await createJob('pause', spec);
    await eventually(async () =>
      (await jobs().get(namespace, 'pause')).status?.active === 2 ? true : undefined,
    );
    await jobs().patch(namespace, 'pause', 'merge', { spec: { suspend: true } });
    const suspended = await condition('pause', 'Suspended');
    expect(suspended.status?.conditions?.find((c) => c.type === 'Suspended')).toMatchObject({
      reason: 'JobSuspended',
      message: 'Job suspended',
    });
    await eventually(async () => ((await podsOf('pause')).length === 0 ? true : undefined), 20_000);
    expect((await jobs().get(namespace, 'pause')).status?.active).toBe(0);
    await jobs().patch(namespace, 'pause', 'merge', { spec: { suspend: false } });
    const resumed = await eventually(async () => {
      const job = await jobs().get(namespace, 'pause');
      const c = job.status?.conditions?.find((x) => x.type === 'Suspended');
      return c?.status === 'False' && job.status?.active === 2 ? job : undefined;
    });
    expect(resumed.status?.conditions?.find((c) => c.type === 'Suspended')).toMatchObject({
      reason: 'JobResumed',
      message: 'Job resumed',
    });
    await jobs().delete(namespace, 'pause', { propagationPolicy: 'Background' });
  }, 60_000);

  it('records the events upstream does', async () => {
    const events = await admin.resource<Event>(EVENTS).list(namespace);
    const reasons = events.items
      .filter((e) => e.involvedObject.name === 'ok' && e.involvedObject.kind === 'Job')
      .map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['SuccessfulCreate', 'Completed']));
    const failed = events.items.find((e) => e.involvedObject.name === 'backoff' && e.type === 'Warning');
    expect(failed).toMatchObject({
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    });
  });

  it('fails an index on a FailIndex rule, and the Job once all indexes are done', async () => {
    await createJob(
      'per-index',
      jobSpec(3, {
        completions: 2,
        parallelism: 2,
        completionMode: 'Indexed',
        backoffLimitPerIndex: 1,
        podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [3] } }] },
      }),
    );
    const job = await condition('per-index', 'Failed');
    expect(job.status).toMatchObject({ failedIndexes: '0-1', failed: 2 });
    expect(job.status?.completedIndexes).toBeUndefined();
    expect(job.status?.conditions?.find((c) => c.type === 'Failed')).toMatchObject({
      reason: 'FailedIndexes',
      message: 'Job has failed indexes',
    });
  }, 60_000);

  it('retries each index up to backoffLimitPerIndex, after the recreation delay', async () => {
    const started = Date.now();
    await createJob(
      'retry-index',
      jobSpec(1, { completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 1 }),
    );
    const job = await condition('retry-index', 'Failed', 40_000);
    expect(job.status).toMatchObject({ failedIndexes: '0-1', failed: 4 });
    // One failure per index before its retry: 10 s each, in parallel, not one after the other.
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(10_000);
    expect(elapsed).toBeLessThan(20_000);
    const counts = (await podsOf('retry-index')).map(
      (pod) => pod.metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count'],
    );
    expect(counts.sort()).toEqual(['0', '0', '1', '1']);
  }, 60_000);

  it('fails a Job past maxFailedIndexes', async () => {
    await createJob(
      'max-failed',
      jobSpec(1, {
        completions: 3,
        parallelism: 1,
        completionMode: 'Indexed',
        backoffLimitPerIndex: 0,
        maxFailedIndexes: 0,
      }),
    );
    const job = await condition('max-failed', 'Failed');
    expect(job.status).toMatchObject({ failedIndexes: '0', failed: 1 });
    expect(job.status?.conditions?.find((c) => c.type === 'Failed')).toMatchObject({
      reason: 'MaxFailedIndexesExceeded',
      message: 'Job has exceeded the specified maximum number of failed indexes',
    });
  }, 60_000);

  it('completes an Indexed Job early by its success policy', async () => {
    await createJob(
      'leader',
      jobSpec(0, {
        completions: 3,
        parallelism: 1,
        completionMode: 'Indexed',
        successPolicy: { rules: [{ succeededIndexes: '0' }] },
      }),
    );
    const job = await condition('leader', 'Complete');
    expect(job.status).toMatchObject({ succeeded: 1, completedIndexes: '0' });
    expect(job.status?.conditions?.find((c) => c.type === 'SuccessCriteriaMet')).toMatchObject({
      reason: 'SuccessPolicy',
      message: 'Matched rules at index 0',
    });
    expect(job.status?.conditions?.find((c) => c.type === 'Complete')?.reason).toBe('SuccessPolicy');
  }, 60_000);

  it('adopts a finished orphan pod its selector matches, and counts it', async () => {
    await admin.resource<Pod>(PODS).create({
      metadata: {
        name: 'stray',
        namespace,
        labels: { app: 'stray' },
        annotations: { 'fake.tkube.dev/exit-code': '0' },
      },
      spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
    });
    await eventually(async () =>
      (await admin.resource<Pod>(PODS).get(namespace, 'stray')).status?.phase === 'Succeeded'
        ? true
        : undefined,
    );
    const spec = jobSpec(0, {
      completions: 1,
      parallelism: 0,
      manualSelector: true,
      selector: { matchLabels: { app: 'stray' } },
    });
    spec.template.metadata = { labels: { app: 'stray' } };
    const job = await createJob('adopter', spec);
    const done = await condition('adopter', 'Complete');
    expect(done.status?.succeeded).toBe(1);
    const adopted = await admin.resource<Pod>(PODS).get(namespace, 'stray');
    expect(adopted.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Job',
      name: 'adopter',
      uid: job.metadata?.uid,
    });
    expect(adopted.metadata?.finalizers ?? []).toEqual([]);
  }, 60_000);

  it('adopts its running pod again once the pod loses its owner reference', async () => {
    const spec = jobSpec(0, { parallelism: 1, completions: 1 });
    delete spec.template.metadata; // no exit code: the pod keeps running
    const job = await createJob('readopt', spec);
    const [pod] = await eventually(async () => {
      const pods = await podsOf('readopt');
      return pods.length === 1 ? pods : undefined;
    });
    await admin.resource<Pod>(PODS).patch(namespace, pod!.metadata!.name!, 'merge', {
      metadata: { ownerReferences: null },
    });
    const adopted = await eventually(async () => {
      const current = await admin.resource<Pod>(PODS).get(namespace, pod!.metadata!.name!);
      return current.metadata?.ownerReferences?.length ? current : undefined;
    });
    expect(adopted.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Job',
      name: 'readopt',
      uid: job.metadata?.uid,
    });
    expect((await podsOf('readopt')).length).toBe(1);
  }, 60_000);

  it('lets the pods of a Job deleted in the background go', async () => {
    const spec = jobSpec(0, { parallelism: 2, completions: 2 });
    delete spec.template.metadata;
    await createJob('dropped', spec);
    await eventually(async () =>
      (await jobs().get(namespace, 'dropped')).status?.active === 2 ? true : undefined,
    );
    await jobs().delete(namespace, 'dropped', { propagationPolicy: 'Background' });
    await eventually(async () => ((await podsOf('dropped')).length === 0 ? true : undefined), 30_000);
  }, 60_000);

  it('counts every pod once across a control-plane restart mid-Job', async () => {
    await createJob('restart', jobSpec(0, { completions: 100, parallelism: 3 }));
    await eventually(async () => {
      const job = await jobs().get(namespace, 'restart');
      return (job.status?.succeeded ?? 0) >= 3 ? true : undefined;
    }, 30_000);
    const before = await jobs().get(namespace, 'restart');
    await controlPlane.stop();
    // Stopped mid-Job: the rest is done by the restarted controller.
    expect(before.status?.succeeded).toBeLessThan(100);
    await start();
    const job = await condition('restart', 'Complete', 60_000);
    expect(job.status).toMatchObject({ succeeded: 100, failed: 0 });
    const pods = await podsOf('restart');
    // Exactly as many pods as completions: none lost (re-run) nor counted twice.
    expect(pods.filter((pod) => pod.status?.phase === 'Succeeded')).toHaveLength(100);
  }, 120_000);
});
