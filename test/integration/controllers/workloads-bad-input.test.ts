// Issue 22's bad input with real kubectl on `tkube up --nodes 0 --fake-nodes 2`: invalid
// schedules, time zones, templates and selectors of Jobs, CronJobs, StatefulSets and DaemonSets
// are refused with kube-apiserver's messages (pkg/apis/batch/validation, pkg/apis/apps/validation),
// and stored oddities (a schedule that never fires) leave the controllers working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('wl-bad-input', { fakeNodes: 2 });
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

const podSpec = (restartPolicy: string) =>
  `{restartPolicy: ${restartPolicy}, containers: [{name: c, image: "busybox:1.36"}]}`;

const cronJob = (fields: string, restartPolicy = 'Never') => `
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick}
spec:
  ${fields}
  jobTemplate:
    spec:
      template:
        spec: ${podSpec(restartPolicy)}
`;

const job = (fields: string, restartPolicy = 'Never', labels = '{}') => `
apiVersion: batch/v1
kind: Job
metadata: {name: work}
spec:
  ${fields}
  template:
    metadata: {labels: ${labels}}
    spec: ${podSpec(restartPolicy)}
`;

const statefulSet = (fields: string, labels = '{app: db}', restartPolicy = 'Always') => `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  ${fields}
  template:
    metadata: {labels: ${labels}}
    spec: ${podSpec(restartPolicy)}
`;

const daemonSet = (fields: string, labels = '{app: agent}') => `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  ${fields}
  template:
    metadata: {labels: ${labels}}
    spec: ${podSpec('Always')}
`;

const LABEL_VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const CRONJOB = 'The CronJob "tick" is invalid: ';
const JOB = 'The Job "work" is invalid: ';
const STATEFULSET = 'The StatefulSet "db" is invalid: ';
const DAEMONSET = 'The DaemonSet "agent" is invalid: ';

const CASES: readonly (readonly [string, string, string])[] = [
  [
    'a schedule with four fields',
    cronJob('schedule: "* * * *"'),
    `${CRONJOB}spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]`,
  ],
  [
    'a minute out of range',
    cronJob('schedule: "61 * * * *"'),
    `${CRONJOB}spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61`,
  ],
  [
    'an unknown descriptor',
    cronJob('schedule: "@fortnightly"'),
    `${CRONJOB}spec.schedule: Invalid value: "@fortnightly": unrecognized descriptor: @fortnightly`,
  ],
  [
    'a time zone in the schedule',
    cronJob('schedule: "CRON_TZ=UTC 0 0 * * *"'),
    `${CRONJOB}spec.schedule: Invalid value: "CRON_TZ=UTC 0 0 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`,
  ],
  [
    'an unknown time zone',
    cronJob('schedule: "@daily"\n  timeZone: Mars/Olympus'),
    `${CRONJOB}spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`,
  ],
  [
    'the Local time zone',
    cronJob('schedule: "@daily"\n  timeZone: Local'),
    `${CRONJOB}spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`,
  ],
  [
    'a job template that restarts always (as when defaulted)',
    cronJob('schedule: "@daily"', 'Always'),
    `${CRONJOB}spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`,
  ],
  [
    'a Job template that restarts always (as when defaulted)',
    job('', 'Always'),
    `${JOB}spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`,
  ],
  [
    'a manual selector the template does not match',
    job('manualSelector: true\n  selector: {matchLabels: {app: a}}', 'Never', '{app: b}'),
    `${JOB}spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: \`selector\` does not match template \`labels\``,
  ],
  [
    'an Indexed Job without completions',
    // With parallelism set, defaulting leaves completions unset.
    job('completionMode: Indexed\n  parallelism: 2'),
    `${JOB}spec.completions: Required value: when completion mode is Indexed`,
  ],
  [
    'a pod failure policy on exit code 0',
    job('podFailurePolicy: {rules: [{action: Ignore, onExitCodes: {operator: In, values: [0, 42]}}]}'),
    `${JOB}spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator`,
  ],
  [
    'a per-index backoff limit on a NonIndexed Job',
    job('backoffLimitPerIndex: 1'),
    `${JOB}spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode`,
  ],
  [
    'a StatefulSet whose selector does not match its template',
    statefulSet('selector: {matchLabels: {app: db}}', '{app: web}'),
    `${STATEFULSET}spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: \`selector\` does not match template \`labels\``,
  ],
  [
    'a StatefulSet with an empty selector',
    statefulSet('selector: {}'),
    `${STATEFULSET}spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset`,
  ],
  [
    'a StatefulSet whose pods would not restart',
    statefulSet('selector: {matchLabels: {app: db}}', '{app: db}', 'Never'),
    `${STATEFULSET}spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`,
  ],
  [
    'an unknown pod management policy',
    statefulSet('selector: {matchLabels: {app: db}}\n  podManagementPolicy: Sometimes'),
    `${STATEFULSET}spec.podManagementPolicy: Invalid value: "Sometimes": must be 'OrderedReady' or 'Parallel'`,
  ],
  [
    'a DaemonSet that may neither surge nor be unavailable',
    daemonSet(
      'selector: {matchLabels: {app: agent}}\n  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}',
    ),
    `${DAEMONSET}spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`,
  ],
  [
    'a DaemonSet selector with an invalid label value',
    daemonSet('selector: {matchLabels: {app: "-agent"}}', '{app: "-agent"}'),
    `${DAEMONSET}\n* spec.selector.matchLabels: Invalid value: "-agent": ${LABEL_VALUE_RULE}\n* spec.template.labels: Invalid value: "-agent": ${LABEL_VALUE_RULE}`,
  ],
];

describe('workload bad input', () => {
  it.each(CASES)('refuses %s', async (_what, manifest, message) => {
    const result = await cluster.kubectl(['create', '-f', '-'], { input: manifest });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim()).toBe(message);
  });

  it('refuses field selectors on fields the kind does not offer, in its words', async () => {
    const jobs = await cluster.kubectl(['get', 'jobs', '--field-selector', 'status.active=1']);
    expect(jobs.stderr.trim()).toBe(
      'Error from server (BadRequest): Unable to find "batch/v1, Resource=jobs" that match label selector "", field selector "status.active=1": field label "status.active" not supported for Job',
    );
    expect((await ok(['get', 'jobs', '--field-selector', 'status.successful=0', '-o', 'name'])).trim()).toBe(
      '',
    );
    const sets = await cluster.kubectl(['get', 'statefulsets', '--field-selector', 'spec.replicas=1']);
    expect(sets.stderr.trim()).toBe(
      'Error from server (BadRequest): Unable to find "apps/v1, Resource=statefulsets" that match label selector "", field selector "spec.replicas=1": field label not supported: spec.replicas',
    );
  });

  it('keeps the controllers working beside a CronJob whose schedule never fires', async () => {
    // February 30th parses but never comes: upstream's cron finds no next time.
    await ok(['create', '-f', '-'], cronJob('schedule: "0 0 30 2 *"'));
    await ok(['create', '-f', '-'], job('completions: 2\n  parallelism: 2'));
    // The fake kubelets keep these pods running: the Job controller acting shows in its status.
    const pods = await ok(['wait', '--for=jsonpath={.status.active}=2', 'job/work', '--timeout=60s']);
    expect(pods.trim()).toBe('job.batch/work condition met');
    const tick = JSON.parse(await ok(['get', 'cronjob', 'tick', '-o', 'json'])) as { status?: object };
    expect(tick.status ?? {}).toEqual({});
    expect((await ok(['get', '--raw', '/readyz'])).trim()).toBe('ok');
  }, 90_000);
});
