// Issue 22's Job and CronJob acceptance with real kubectl on `tkube up --nodes 0 --fake-nodes 2`:
// fake kubelets end a pod with the exit code of its `fake.tkube.dev/exit-code` annotation, so
// Jobs complete and fail as on real nodes; `kubectl wait` sees their conditions, and
// `kubectl create job --from=cronjob/…` makes a Job from a CronJob's template.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('jb-jobs', { fakeNodes: 2 });
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

function jobYaml(name: string, exitCode: number, spec: string): string {
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
${spec
  .split('\n')
  .filter(Boolean)
  .map((line) => `  ${line}`)
  .join('\n')}
  template:
    metadata:
      annotations:
        fake.tkube.dev/exit-code: "${exitCode}"
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
`;
}

const jsonpath = (kind: string, name: string, path: string) =>
  ok(['get', kind, name, '-o', `jsonpath=${path}`]);

describe('Jobs and CronJobs with kubectl', () => {
  it('runs a Job to its completions and `kubectl wait` sees it complete', async () => {
    await ok(['apply', '-f', '-'], jobYaml('pi', 0, 'completions: 4\nparallelism: 2'));
    await ok(['wait', '--for=condition=complete', 'job/pi', '--timeout=60s']);
    expect(await jsonpath('job', 'pi', '{.status.succeeded}')).toBe('4');
    const listed = await ok(['get', 'jobs', 'pi']);
    expect(listed).toMatch(/pi\s+Complete\s+4\/4/);
  }, 90_000);

  it('runs an Indexed Job with one pod per index', async () => {
    await ok(
      ['apply', '-f', '-'],
      jobYaml('idx', 0, 'completions: 3\nparallelism: 3\ncompletionMode: Indexed'),
    );
    await ok(['wait', '--for=condition=complete', 'job/idx', '--timeout=60s']);
    expect(await jsonpath('job', 'idx', '{.status.completedIndexes}')).toBe('0-2');
    const labels = await ok([
      'get',
      'pods',
      '-l',
      'batch.kubernetes.io/job-name=idx',
      '-o',
      'jsonpath={.items[*].metadata.labels.batch\\.kubernetes\\.io/job-completion-index}',
    ]);
    expect(labels.split(' ').sort()).toEqual(['0', '1', '2']);
    const hostnames = await ok([
      'get',
      'pods',
      '-l',
      'batch.kubernetes.io/job-name=idx',
      '-o',
      'jsonpath={.items[*].spec.hostname}',
    ]);
    expect(hostnames.split(' ').sort()).toEqual(['idx-0', 'idx-1', 'idx-2']);
  }, 90_000);

  it('fails a Job past its backoff limit', async () => {
    await ok(['apply', '-f', '-'], jobYaml('flaky', 1, 'backoffLimit: 0'));
    await ok(['wait', '--for=condition=failed', 'job/flaky', '--timeout=60s']);
    expect(await jsonpath('job', 'flaky', '{.status.conditions[?(@.type=="Failed")].reason}')).toBe(
      'BackoffLimitExceeded',
    );
    const described = await ok(['describe', 'job', 'flaky']);
    expect(described).toContain('Job has reached the specified backoff limit');
  }, 90_000);

  it('fails a Job by its pod failure policy', async () => {
    await ok(
      ['apply', '-f', '-'],
      jobYaml(
        'strict',
        5,
        'backoffLimit: 6\npodFailurePolicy:\n  rules:\n  - action: FailJob\n    onExitCodes:\n      operator: In\n      values: [5]',
      ),
    );
    await ok(['wait', '--for=condition=failed', 'job/strict', '--timeout=60s']);
    expect(await jsonpath('job', 'strict', '{.status.conditions[?(@.type=="Failed")].reason}')).toBe(
      'PodFailurePolicy',
    );
  }, 90_000);

  it('fails a Job past activeDeadlineSeconds', async () => {
    const yaml = jobYaml('slow', 0, 'activeDeadlineSeconds: 2').replace(/ {4}metadata:\n.*\n.*\n/, '');
    await ok(['apply', '-f', '-'], yaml);
    await ok(['wait', '--for=condition=failed', 'job/slow', '--timeout=60s']);
    expect(await jsonpath('job', 'slow', '{.status.conditions[?(@.type=="Failed")].reason}')).toBe(
      'DeadlineExceeded',
    );
  }, 90_000);

  it('suspends and resumes a Job', async () => {
    const yaml = jobYaml('later', 0, 'parallelism: 2\ncompletions: 2\nsuspend: true').replace(
      / {4}metadata:\n.*\n.*\n/,
      '',
    );
    await ok(['apply', '-f', '-'], yaml);
    await ok(['wait', '--for=condition=suspended', 'job/later', '--timeout=60s']);
    expect(await ok(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=later', '-o', 'name'])).toBe('');
    await ok(['patch', 'job', 'later', '--type=merge', '-p', '{"spec":{"suspend":false}}']);
    await ok(['wait', '--for=condition=suspended=false', 'job/later', '--timeout=60s']);
    await ok(['wait', '--for=jsonpath={.status.active}=2', 'job/later', '--timeout=60s']);
    expect(await ok(['describe', 'job', 'later'])).toContain('Job resumed');
  }, 90_000);

  it('runs a CronJob at its next start time, naming the Job after that minute', async () => {
    await ok(
      ['apply', '-f', '-'],
      `apiVersion: batch/v1
kind: CronJob
metadata:
  name: tick
spec:
  schedule: "* * * * *"
  successfulJobsHistoryLimit: 1
  jobTemplate:
    spec:
      template:
        metadata:
          annotations:
            fake.tkube.dev/exit-code: "0"
        spec:
          restartPolicy: Never
          containers:
          - name: main
            image: busybox
`,
    );
    // The next minute starts a Job named after it, which completes; the CronJob records both.
    await ok(['wait', '--for=jsonpath={.status.lastSuccessfulTime}', 'cronjob/tick', '--timeout=80s']);
    const names = (await ok(['get', 'jobs', '-o', 'name']))
      .split('\n')
      .filter((n) => n.startsWith('job.batch/tick-'));
    expect(names).toHaveLength(1);
    const scheduled = Date.parse(await jsonpath('cronjob', 'tick', '{.status.lastScheduleTime}'));
    expect(names[0]).toBe(`job.batch/tick-${scheduled / 60_000}`);
    expect(await ok(['describe', 'cronjob', 'tick'])).toMatch(/Created job tick-\d+/);
  }, 120_000);

  it('makes a Job from a CronJob with `kubectl create job --from`', async () => {
    await ok(['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *']);
    await ok(['create', 'job', 'by-hand', '--from=cronjob/nightly']);
    expect(
      await jsonpath('job', 'by-hand', '{.metadata.annotations.cronjob\\.kubernetes\\.io/instantiate}'),
    ).toBe('manual');
    expect(await jsonpath('job', 'by-hand', '{.metadata.ownerReferences[0].kind}')).toBe('CronJob');
    await ok(['wait', '--for=jsonpath={.status.active}=1', 'job/by-hand', '--timeout=60s']);
    const cronJobs = await ok(['get', 'cronjobs', 'nightly']);
    expect(cronJobs).toMatch(/nightly\s+0 3 \* \* \*\s+<none>\s+False\s+0\s+<none>/);
  }, 90_000);
});
