// Issue 22's workload controllers on real Docker nodes (`tkube up --nodes 2`), with real kubectl,
// all on one cluster: an Indexed Job whose podFailurePolicy ignores exit code 42, a CronJob every
// minute whose run at the next minute pushes an earlier successful Job out of its history limit, a StatefulSet of 3 rolled to a new image one
// ordinal at a time (highest first, below a partition), and a DaemonSet on every node that comes
// back on a `docker restart`ed node and rolls to a new image with maxSurge.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet, StatefulSet } from '../../../src/api/types/apps-v1.generated.js';
import type { CronJob, Job } from '../../../src/api/types/batch-v1.generated.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { CRON_JOBS, JOBS } from '../../../src/client/resources.js';
import {
  BUSYBOX,
  isReady,
  isRunning,
  type KubeletCluster,
  startKubeletCluster,
  waitFor,
} from '../kubelet/pods-support.js';
import { loadRetaggedImage } from './node-runtime-support.js';
import { observePods } from './pod-observer.js';

const BUSYBOX_2 = 'tkube-test/busybox:2';
// sh is PID 1: without the trap SIGTERM would wait out the grace period.
const IDLE = 'trap "exit 0" TERM; while true; do sleep 1; done';

let cluster: KubeletCluster;
let pollingRuns: NodeJS.Timeout | undefined;
beforeAll(async () => {
  cluster = await startKubeletCluster('wlctl');
  await loadRetaggedImage(cluster.name, BUSYBOX, BUSYBOX_2);
}, 180_000);
afterAll(async () => {
  clearInterval(pollingRuns);
  await cluster?.down();
}, 60_000);

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input);
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

const json = async <T>(args: string[]): Promise<T> => JSON.parse(await ok([...args, '-o', 'json'])) as T;
const image = (pod: Pod): string | undefined => pod.spec?.containers[0]?.image;

async function podsOf(app: string): Promise<Pod[]> {
  const list = await cluster.pods.list('default', { labelSelector: `app=${app}` });
  return list.items.filter((pod) => !pod.metadata?.deletionTimestamp);
}

describe('workload controllers on Docker nodes', () => {
  // The CronJob's scheduled Jobs (tick-<minutes since the epoch>) seen so far: polled in the
  // background, since the history limit may delete one before the check at the end.
  const cronJobRuns = new Set<string>();

  it('creates a CronJob that runs every minute, with an earlier run of its own already finished', async () => {
    // Checked at the end of the file: its run at the next minute overlaps the other scenarios.
    // One run, not two a minute apart: the earlier, finished Job it owns stands for its previous
    // run (the minute arithmetic is unit-tested), which saves waiting for a second boundary.
    await ok(
      ['apply', '-f', '-'],
      `
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick}
spec:
  schedule: "* * * * *"
  successfulJobsHistoryLimit: 1
  failedJobsHistoryLimit: 1
  jobTemplate:
    spec:
      template:
        metadata: {labels: {app: tick}}
        spec:
          restartPolicy: Never
          containers: [{name: tick, image: "${BUSYBOX}", command: [sh, -c, "echo tick"]}]
`,
    );
    const uid = (await cluster.client.resource<CronJob>(CRON_JOBS).get('default', 'tick')).metadata?.uid;
    await ok(
      ['apply', '-f', '-'],
      `
apiVersion: batch/v1
kind: Job
metadata:
  name: tick-earlier
  ownerReferences: [{apiVersion: batch/v1, kind: CronJob, name: tick, uid: "${uid}", controller: true, blockOwnerDeletion: true}]
spec:
  template:
    metadata: {labels: {app: tick}}
    spec:
      restartPolicy: Never
      containers: [{name: tick, image: "${BUSYBOX}", command: [sh, -c, "echo earlier"]}]
`,
    );
    const jobs = cluster.client.resource<Job>(JOBS);
    pollingRuns = setInterval(() => {
      jobs.list('default').then(
        (list) => {
          for (const job of list.items)
            if (
              /^tick-\d+$/.test(job.metadata?.name ?? '') &&
              job.metadata?.ownerReferences?.some((o) => o.kind === 'CronJob' && o.name === 'tick')
            )
              cronJobRuns.add(job.metadata!.name!);
        },
        () => undefined,
      );
    }, 2000);
  });

  it('runs an Indexed Job whose pod failure policy ignores exit code 42', async () => {
    const node = cluster.nodes[0]!;
    // Index 1 fails once with 42 (a mark on the node's disk tells its retry apart); with
    // backoffLimit 0 only the Ignore rule lets the Job complete.
    const script =
      'if [ "$JOB_COMPLETION_INDEX" = 1 ] && [ ! -e /marks/tried ]; then : > /marks/tried; exit 42; fi; echo done $JOB_COMPLETION_INDEX';
    await ok(
      ['apply', '-f', '-'],
      `
apiVersion: batch/v1
kind: Job
metadata: {name: indexed}
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 3
  backoffLimit: 0
  podFailurePolicy:
    rules:
    - action: Ignore
      onExitCodes: {containerName: work, operator: In, values: [42]}
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {kubernetes.io/hostname: ${node}}
      volumes: [{name: marks, hostPath: {path: /var/tmp/wlctl-indexed-marks, type: DirectoryOrCreate}}]
      containers:
      - name: work
        image: "${BUSYBOX}"
        command: [sh, -c, '${script}']
        volumeMounts: [{name: marks, mountPath: /marks}]
`,
    );
    const done = await ok(['wait', '--for=condition=Complete', 'job/indexed', '--timeout=120s']);
    expect(done.trim()).toBe('job.batch/indexed condition met');
    const job = await json<Job>(['get', 'job', 'indexed']);
    expect(job.status).toMatchObject({ succeeded: 3, failed: 0, completedIndexes: '0-2' });
    const pods = (await json<{ items: Pod[] }>(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=indexed']))
      .items;
    const index = (pod: Pod) => pod.metadata?.labels?.['batch.kubernetes.io/job-completion-index'];
    const failed = pods.filter((pod) => pod.status?.phase === 'Failed');
    expect(failed.map(index)).toEqual(['1']);
    expect(failed[0]?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(42);
    const succeeded = pods.filter((pod) => pod.status?.phase === 'Succeeded');
    expect(succeeded.map(index).sort()).toEqual(['0', '1', '2']);
    // podReplacementPolicy defaults to Failed with a pod failure policy: the retry of index 1
    // was created only once the failed pod had finished.
    expect(job.spec?.podReplacementPolicy).toBe('Failed');
    const retry = succeeded.find((pod) => index(pod) === '1')!;
    const finishedAt = failed[0]?.status?.containerStatuses?.[0]?.state?.terminated?.finishedAt ?? '';
    expect(Date.parse(retry.metadata!.creationTimestamp!)).toBeGreaterThanOrEqual(
      Date.parse(finishedAt) - 1000,
    );
    expect(await ok(['logs', retry.metadata!.name!])).toBe('done 1');
  }, 150_000);

  it('rolls a StatefulSet of 3 to a new image one ordinal at a time, highest first, above a partition', async () => {
    await ok(
      ['apply', '-f', '-'],
      `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  replicas: 3
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 5
      containers: [{name: web, image: "${BUSYBOX}", command: [sh, -c, '${IDLE}']}]
`,
    );
    await ok(['rollout', 'status', 'statefulset/web', '--timeout=120s']);

    // At every observed step at most one ordinal is missing or not ready; record the order in
    // which ordinals got the new image.
    const order: string[] = [];
    const violations: string[] = [];
    const stop = await observePods(cluster.pods, 'default', 'app=web', (live) => {
      const ready = live.filter((pod) => isRunning(pod) && isReady(pod));
      if (ready.length < 2) violations.push(`${ready.length} ready`);
      for (const pod of live) {
        const name = pod.metadata!.name!;
        if (image(pod) === BUSYBOX_2 && !order.includes(name)) order.push(name);
      }
    });
    try {
      await ok([
        'patch',
        'statefulset',
        'web',
        // A strategic merge keeps the container's command (a JSON merge would replace the list).
        '--type=strategic',
        '-p',
        JSON.stringify({
          spec: {
            updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
            template: { spec: { containers: [{ name: 'web', image: BUSYBOX_2 }] } },
          },
        }),
      ]);
      const partitioned = await ok(['rollout', 'status', 'statefulset/web', '--timeout=120s']);
      expect(partitioned).toContain('partitioned roll out complete: 2 new pods have been updated...');
      const set = await json<StatefulSet>(['get', 'statefulset', 'web']);
      expect(set.status).toMatchObject({ replicas: 3, readyReplicas: 3, updatedReplicas: 2 });
      expect(set.status?.currentRevision).not.toBe(set.status?.updateRevision);
      const byName = new Map((await podsOf('web')).map((pod) => [pod.metadata!.name!, image(pod)]));
      expect(Object.fromEntries(byName)).toEqual({
        'web-0': BUSYBOX,
        'web-1': BUSYBOX_2,
        'web-2': BUSYBOX_2,
      });

      await ok([
        'patch',
        'statefulset',
        'web',
        // A strategic merge keeps the container's command (a JSON merge would replace the list).
        '--type=strategic',
        '-p',
        '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}',
      ]);
      const done = await ok(['rollout', 'status', 'statefulset/web', '--timeout=120s']);
      expect(done).toContain('partitioned roll out complete: 3 new pods have been updated...');
    } finally {
      await stop();
    }
    expect(order).toEqual(['web-2', 'web-1', 'web-0']);
    expect(violations).toEqual([]);
    const set = await json<StatefulSet>(['get', 'statefulset', 'web']);
    expect(set.status?.currentRevision).toBe(set.status?.updateRevision);
    expect((await podsOf('web')).map(image)).toEqual([BUSYBOX_2, BUSYBOX_2, BUSYBOX_2]);
  }, 300_000);

  it('runs a DaemonSet pod on every node, again after a docker restart of one, and rolls it with maxSurge', async () => {
    await ok(
      ['apply', '-f', '-'],
      `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      terminationGracePeriodSeconds: 5
      containers: [{name: agent, image: "${BUSYBOX}", command: [sh, -c, '${IDLE}']}]
`,
    );
    await ok(['rollout', 'status', 'daemonset/agent', '--timeout=120s']);
    const placed = await podsOf('agent');
    expect(placed.map((pod) => pod.spec?.nodeName).sort()).toEqual([...cluster.nodes].sort());
    expect(placed.map((pod) => pod.metadata?.labels?.['pod-template-generation'])).toEqual(['1', '1']);

    const restarted = cluster.nodes[1]!;
    const before = placed.find((pod) => pod.spec?.nodeName === restarted)!;
    const restart = await execa('docker', ['restart', restarted], { reject: false });
    expect(restart.exitCode, restart.stderr).toBe(0);
    await ok(['wait', '--for=condition=Ready', `node/${restarted}`, '--timeout=120s']);
    // Until the node's kubelet reports again, the API still shows the pod as it was: wait for its
    // container's restart (or a new pod) to be reported running and ready.
    const back = await waitFor(
      () => podsOf('agent'),
      (pods) =>
        pods.some(
          (pod) =>
            pod.spec?.nodeName === restarted &&
            isRunning(pod) &&
            isReady(pod) &&
            (pod.metadata?.uid !== before.metadata?.uid ||
              (pod.status?.containerStatuses?.[0]?.restartCount ?? 0) > 0),
        ),
      120_000,
      `the daemon pod on ${restarted} to run again`,
    );
    expect(back.filter((pod) => pod.spec?.nodeName === restarted)).toHaveLength(1);
    await ok(['rollout', 'status', 'daemonset/agent', '--timeout=120s']);

    // maxUnavailable 0, maxSurge 1: every node keeps a ready pod at every observed step.
    const violations: string[] = [];
    let surged = false;
    const stop = await observePods(cluster.pods, 'default', 'app=agent', (live) => {
      for (const node of cluster.nodes) {
        const here = live.filter((pod) => pod.spec?.nodeName === node);
        if (here.length > 1) surged = true;
        if (!here.some((pod) => isRunning(pod) && isReady(pod))) violations.push(`${node}: no ready pod`);
      }
    });
    try {
      await ok(['set', 'image', 'daemonset/agent', `agent=${BUSYBOX_2}`]);
      const out = await ok(['rollout', 'status', 'daemonset/agent', '--timeout=120s']);
      expect(out).toContain('daemon set "agent" successfully rolled out');
      await waitFor(
        () => podsOf('agent'),
        (pods) => pods.length === 2 && pods.every((pod) => image(pod) === BUSYBOX_2),
        60_000,
        'the old daemon pods to go',
      );
    } finally {
      await stop();
    }
    expect(violations).toEqual([]);
    expect(surged).toBe(true);
    const pods = await podsOf('agent');
    expect(pods.map((pod) => pod.spec?.nodeName).sort()).toEqual([...cluster.nodes].sort());
    expect(pods.map((pod) => pod.metadata?.labels?.['pod-template-generation'])).toEqual(['2', '2']);
    const set = await json<DaemonSet>(['get', 'daemonset', 'agent']);
    expect(set.status).toMatchObject({
      desiredNumberScheduled: 2,
      updatedNumberScheduled: 2,
      numberAvailable: 2,
    });
  }, 400_000);

  it('rolls a DaemonSet to an image that never starts one node at a time (maxUnavailable 1) and rolls back without restarting the untouched pod', async () => {
    await ok(
      ['apply', '-f', '-'],
      `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: rollback}
spec:
  selector: {matchLabels: {app: rollback}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
  template:
    metadata: {labels: {app: rollback}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: app, image: "${BUSYBOX}", command: [sh, -c, '${IDLE}']}]
`,
    );
    await ok(['rollout', 'status', 'daemonset/rollback', '--timeout=120s']);
    const original = new Set((await podsOf('rollback')).map((pod) => pod.metadata?.name));
    // At every observed step at most one node lacks its old, ready pod.
    const tooMany: string[] = [];
    const stop = await observePods(cluster.pods, 'default', 'app=rollback', (live) => {
      const gone = [...original].filter(
        (name) => !live.some((pod) => pod.metadata?.name === name && !pod.metadata?.deletionTimestamp),
      );
      if (gone.length > 1) tooMany.push(gone.join(','));
    });
    let untouched: string | undefined;
    try {
      await ok(['set', 'image', 'daemonset/rollback', 'app=tkube-test/absent:1']);
      await waitFor(
        () => podsOf('rollback'),
        (pods) => pods.some((pod) => image(pod) === 'tkube-test/absent:1'),
        60_000,
        'a pod of the image that never starts',
      );
      // Long enough for a second old pod to go if the controller ignored the unavailable one.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      const during = await podsOf('rollback');
      const kept = during.filter((pod) => original.has(pod.metadata?.name));
      expect(kept).toHaveLength(1);
      untouched = kept[0]?.metadata?.name;
      await ok(['set', 'image', 'daemonset/rollback', `app=${BUSYBOX}`]);
      await ok(['rollout', 'status', 'daemonset/rollback', '--timeout=120s']);
    } finally {
      await stop();
    }
    expect(tooMany).toEqual([]);
    const after = await podsOf('rollback');
    expect(after.map((pod) => image(pod))).toEqual([BUSYBOX, BUSYBOX]);
    expect(after.map((pod) => pod.metadata?.name)).toContain(untouched);
  }, 300_000);

  it("fails a pod bound to a node that cannot take it (host port, cpu, nodeSelector), as the kubelet's admission does", async () => {
    const node = cluster.nodes[0]!;
    const pod = (name: string): Pod => ({
      metadata: { name, namespace: 'default', labels: { app: 'ports' } },
      spec: {
        nodeName: node,
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'web',
            image: BUSYBOX,
            command: ['sh', '-c', IDLE],
            ports: [{ name: 'conflict', containerPort: 21017, hostPort: 21017 }],
          },
        ],
      },
    });
    await cluster.pods.create(pod('holder'));
    await waitFor(() => cluster.pods.get('default', 'holder'), isRunning, 60_000, 'holder to run');
    await cluster.pods.create(pod('late'));
    const late = await waitFor(
      () => cluster.pods.get('default', 'late'),
      (p) => p.status?.phase === 'Failed',
      60_000,
      'the second pod to be rejected',
    );
    expect(late.status).toMatchObject({
      reason: 'NodePorts',
      message: 'Pod was rejected: Predicate NodePorts failed',
    });
    // More cpu than the node has, and a nodeSelector the node does not match.
    const greedy = pod('greedy');
    greedy.spec!.containers[0]!.ports = [];
    greedy.spec!.containers[0]!.resources = { requests: { cpu: '1000' } };
    const elsewhere = pod('elsewhere');
    elsewhere.spec!.containers[0]!.ports = [];
    elsewhere.spec!.nodeSelector = { 'kubernetes.io/hostname': 'no-such-node' };
    await cluster.pods.create(greedy);
    await cluster.pods.create(elsewhere);
    const failed = (name: string) =>
      waitFor(
        () => cluster.pods.get('default', name),
        (p) => p.status?.phase === 'Failed',
        60_000,
        `${name} to be rejected`,
      );
    expect((await failed('greedy')).status).toMatchObject({
      reason: 'OutOfcpu',
      message: expect.stringMatching(
        /^Pod was rejected: Node didn't have enough resource: cpu, requested: 1000000, used: \d+, capacity: \d+$/,
      ),
    });
    expect((await failed('elsewhere')).status).toMatchObject({
      reason: 'NodeAffinity',
      message: 'Pod was rejected: Predicate NodeAffinity failed',
    });
    await ok(['delete', 'pods', '-l', 'app=ports', '--grace-period=0', '--force']);
  }, 120_000);

  it('ran the CronJob at the next minute, keeping only its newest successful Job', async () => {
    const cronJobs = cluster.client.resource<CronJob>(CRON_JOBS);
    const jobs = cluster.client.resource<Job>(JOBS);
    // The next minute boundary after the create (at most a minute away), and the Job's run.
    const cronJob = await waitFor(
      () => cronJobs.get('default', 'tick'),
      // lastSuccessfulTime is the newest successful Job's completion time.
      (tick) =>
        cronJobRuns.size >= 1 &&
        tick.status?.lastSuccessfulTime !== undefined &&
        tick.status.lastScheduleTime !== undefined &&
        Date.parse(tick.status.lastSuccessfulTime) >= Date.parse(tick.status.lastScheduleTime),
      90_000,
      'a scheduled CronJob run',
    );
    clearInterval(pollingRuns);
    const minutes = [...cronJobRuns].map((name) => Number(name.replace(/^tick-/, ''))).sort((a, b) => a - b);
    const newest = minutes.at(-1)!;
    // The Job is named after its scheduled minute, which is lastScheduleTime.
    expect(Date.parse(cronJob.status!.lastScheduleTime!)).toBe(newest * 60_000);
    // successfulJobsHistoryLimit 1: the earlier Job goes once the scheduled one succeeded (only a
    // finished Job counts against the limit, so its going also shows it ran to completion; it
    // may be gone already when this test starts).
    const kept = await waitFor(
      async () =>
        (await jobs.list('default')).items.filter((job) =>
          job.metadata?.ownerReferences?.some((o) => o.name === 'tick'),
        ),
      (list) => list.length === 1,
      30_000,
      'the history limit',
    );
    expect(kept[0]?.metadata?.name).toBe(`tick-${newest}`);
    expect(kept[0]?.status?.succeeded).toBe(1);
    await ok(['delete', 'cronjob', 'tick']);
  }, 150_000);
});
