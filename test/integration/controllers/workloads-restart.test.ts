// Issue 22's restart safety with real kubectl on `tkube up --nodes 0 --fake-nodes 3`: the control
// plane (and with it the controller manager) killed with SIGKILL mid-Job and mid-rollout, then
// started again on the same state. Jobs end with every completion counted exactly once (the
// job-tracking finalizer and uncountedTerminatedPods), rollouts finish with one pod per ordinal or
// node, all of the new revision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet, StatefulSet } from '../../../src/api/types/apps-v1.generated.js';
import type { Job } from '../../../src/api/types/batch-v1.generated.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { DAEMON_SETS, JOBS, PODS, STATEFUL_SETS } from '../../../src/client/resources.js';
import { clientFromKubeconfig } from '../../../src/client/transports.js';
import type { Client } from '../../../src/client/types.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';
import { crashControlPlane } from '../../support/control-plane-restart.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('wl-restart', { fakeNodes: 3 });
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

const getJson = async <T>(args: string[]): Promise<T> => JSON.parse(await ok([...args, '-o', 'json'])) as T;
const podsOf = async (selector: string): Promise<Pod[]> =>
  (await getJson<{ items: Pod[] }>(['get', 'pods', '-l', selector])).items;

/**
 * Polls `read` through a fresh client every 20 ms until `ready` holds for what it returns, then
 * kills and restarts the control plane: the crash lands while the work is under way.
 */
async function crashWhen<T>(read: (client: Client) => Promise<T>, ready: (value: T) => boolean): Promise<T> {
  const client = clientFromKubeconfig(cluster.kubeconfig, undefined, 'restart-test');
  let seen: T;
  try {
    seen = await eventually(
      async () => {
        const value = await read(client);
        return ready(value) ? value : undefined;
      },
      60_000,
      20,
    );
  } finally {
    await client.close();
  }
  await crashControlPlane(cluster);
  return seen;
}

const jobYaml = (name: string, mode: 'NonIndexed' | 'Indexed', completions: number, parallelism: number) => `
apiVersion: batch/v1
kind: Job
metadata: {name: ${name}}
spec:
  completionMode: ${mode}
  completions: ${completions}
  parallelism: ${parallelism}
  template:
    metadata: {annotations: {fake.tkube.dev/exit-code: "0"}}
    spec:
      restartPolicy: Never
      containers: [{name: work, image: "busybox:1.36"}]
`;

const JOB_TRACKING = 'batch.kubernetes.io/job-tracking';

/** The Job once Complete, after checking no pod is still tracked or uncounted. */
async function completedJob(name: string): Promise<Job> {
  const out = await ok(['wait', '--for=condition=Complete', `job/${name}`, '--timeout=90s']);
  expect(out.trim()).toBe(`job.batch/${name} condition met`);
  const job = await getJson<Job>(['get', 'job', name]);
  expect(job.status?.uncountedTerminatedPods?.succeeded ?? []).toEqual([]);
  expect(job.status?.uncountedTerminatedPods?.failed ?? []).toEqual([]);
  return job;
}

describe('workload controllers across a control plane crash', () => {
  it('counts every completion of a NonIndexed Job exactly once', async () => {
    await ok(['apply', '-f', '-'], jobYaml('count', 'NonIndexed', 40, 2));
    const before = await crashWhen(
      (client) => client.resource<Job>(JOBS).get('default', 'count'),
      (job) => (job.status?.succeeded ?? 0) >= 4,
    );
    expect(before.status?.succeeded).toBeLessThan(40);

    const job = await completedJob('count');
    expect(job.status?.succeeded).toBe(40);
    expect(job.status?.failed ?? 0).toBe(0);
    // No pod was created twice or left out: 40 pods succeeded, all released by the controller.
    const pods = await podsOf('batch.kubernetes.io/job-name=count');
    expect(pods.filter((pod) => pod.status?.phase === 'Succeeded')).toHaveLength(40);
    expect(pods).toHaveLength(40);
    expect(pods.filter((pod) => pod.metadata?.finalizers?.includes(JOB_TRACKING))).toEqual([]);
  }, 180_000);

  it('completes each index of an Indexed Job exactly once', async () => {
    await ok(['apply', '-f', '-'], jobYaml('indexed', 'Indexed', 24, 3));
    const before = await crashWhen(
      (client) => client.resource<Job>(JOBS).get('default', 'indexed'),
      (job) => (job.status?.succeeded ?? 0) >= 3,
    );
    expect(before.status?.succeeded).toBeLessThan(24);

    const job = await completedJob('indexed');
    expect(job.status?.succeeded).toBe(24);
    expect(job.status?.completedIndexes).toBe('0-23');
    const pods = await podsOf('batch.kubernetes.io/job-name=indexed');
    const indexes = pods.map((pod) => pod.metadata?.labels?.['batch.kubernetes.io/job-completion-index']);
    expect(indexes.sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 24 }, (_, i) => String(i)),
    );
    expect(pods.every((pod) => pod.status?.phase === 'Succeeded')).toBe(true);
    expect(pods.filter((pod) => pod.metadata?.finalizers?.includes(JOB_TRACKING))).toEqual([]);
  }, 180_000);

  it('finishes a StatefulSet rolling update one pod per ordinal', async () => {
    await ok(
      ['apply', '-f', '-'],
      `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 4
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "busybox:1.36"}]}
`,
    );
    await ok(['rollout', 'status', 'statefulset/db', '--timeout=60s']);
    await ok(['set', 'image', 'statefulset/db', 'db=busybox:1.37']);
    // Crash once the first pod of the new revision exists (the highest ordinal goes first).
    await crashWhen(
      async (client) => {
        const set = await client.resource<StatefulSet>(STATEFUL_SETS).get('default', 'db');
        const pods = await client.resource<Pod>(PODS).list('default', { labelSelector: 'app=db' });
        return { update: set.status?.updateRevision, pods: pods.items };
      },
      ({ update, pods }) =>
        update !== undefined &&
        pods.some((pod) => pod.metadata?.labels?.['controller-revision-hash'] === update),
    );

    const status = await ok(['rollout', 'status', 'statefulset/db', '--timeout=90s']);
    expect(status).toContain('partitioned roll out complete: 4 new pods have been updated...');
    const set = await getJson<StatefulSet>(['get', 'statefulset', 'db']);
    expect(set.status).toMatchObject({ replicas: 4, readyReplicas: 4, updatedReplicas: 4 });
    expect(set.status?.currentRevision).toBe(set.status?.updateRevision);
    const pods = (await podsOf('app=db')).filter((pod) => !pod.metadata?.deletionTimestamp);
    expect(pods.map((pod) => pod.metadata?.name).sort()).toEqual(['db-0', 'db-1', 'db-2', 'db-3']);
    for (const pod of pods) {
      expect(pod.spec?.containers[0]?.image).toBe('busybox:1.37');
      expect(pod.metadata?.labels?.['controller-revision-hash']).toBe(set.status?.updateRevision);
    }
    const history = await ok(['rollout', 'history', 'statefulset/db']);
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n*$/);
  }, 180_000);

  it('finishes a DaemonSet rolling update with one pod per node', async () => {
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
    spec: {containers: [{name: agent, image: "busybox:1.36"}]}
`,
    );
    await ok(['rollout', 'status', 'daemonset/agent', '--timeout=60s']);
    const first = await getJson<DaemonSet>(['get', 'daemonset', 'agent']);
    await ok(['set', 'image', 'daemonset/agent', 'agent=busybox:1.37']);
    await crashWhen(
      async (client) => {
        const set = await client.resource<DaemonSet>(DAEMON_SETS).get('default', 'agent');
        const pods = await client.resource<Pod>(PODS).list('default', { labelSelector: 'app=agent' });
        return { set, pods: pods.items };
      },
      ({ set, pods }) =>
        (set.metadata?.generation ?? 0) > (first.metadata?.generation ?? 0) &&
        pods.some((pod) => pod.spec?.containers[0]?.image === 'busybox:1.37'),
    );

    const status = await ok(['rollout', 'status', 'daemonset/agent', '--timeout=90s']);
    expect(status).toContain('daemon set "agent" successfully rolled out');
    const set = await getJson<DaemonSet>(['get', 'daemonset', 'agent']);
    expect(set.status).toMatchObject({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      updatedNumberScheduled: 3,
      numberAvailable: 3,
    });
    const pods = await eventually(
      async () => {
        const live = (await podsOf('app=agent')).filter((pod) => !pod.metadata?.deletionTimestamp);
        return live.length === 3 ? live : undefined;
      },
      30_000,
      200,
    );
    expect(new Set(pods.map((pod) => pod.spec?.nodeName)).size).toBe(3);
    expect(pods.every((pod) => pod.spec?.containers[0]?.image === 'busybox:1.37')).toBe(true);
  }, 180_000);
});
