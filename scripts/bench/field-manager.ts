// Field manager micro-benchmark (apimachinery's managedfields FieldManager as src/apiserver/apply
// runs it): CPU µs per pod create, per status update by the kubelet, per repeated status update with
// the same field set (the hot path: the manager's entry does not change), per spec update and per
// Deployment apply, over realistic defaulted Pod and Deployment objects.
//   npx tsx scripts/bench/field-manager.ts [--iterations 3000] [--rounds 5]
// Each figure is the median of `--rounds` rounds (range beside it) after one warm-up round.
// For a CPU profile: node --cpu-prof --import tsx scripts/bench/field-manager.ts
import { pathToFileURL } from 'node:url';
import { FieldManager } from '../../src/apiserver/apply/field-manager.js';
import { fieldElement } from '../../src/apiserver/apply/fieldpath/path-element.js';
import { FieldSet } from '../../src/apiserver/apply/fieldpath/set.js';
import { sameSchemaConverter } from '../../src/apiserver/apply/merge/updater.js';
import { builtinType } from '../../src/apiserver/apply/typed/builtin-types.js';
import type { SchemaType } from '../../src/apiserver/apply/typed/schema.js';
import type { JsonObject } from '../../src/apiserver/patch/json-value.js';
import { percentile, printTable } from './report.js';

interface Options {
  iterations: number;
  rounds: number;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { iterations: 3000, rounds: 5 };
  for (let index = 0; index < argv.length; index++) {
    const value = Number(argv[index + 1]);
    if (argv[index] === '--iterations' && value > 0) options.iterations = Math.trunc(value);
    if (argv[index] === '--rounds' && value > 0) options.rounds = Math.trunc(value);
  }
  return options;
}

function managerFor(group: string, kind: string, subresource: string): FieldManager {
  const type = builtinType(group, 'v1', kind) as SchemaType;
  const apiVersion = group === '' ? 'v1' : `${group}/v1`;
  const reset = subresource === 'status' ? [fieldElement('spec')] : [fieldElement('status')];
  return new FieldManager({
    apiVersion,
    kind,
    subresource,
    converter: sameSchemaConverter(type),
    ignoredFields: new Map([[apiVersion, FieldSet.of(reset)]]),
  });
}

/** A pod as the apiserver stores it after defaulting and the service-account admission. */
export function benchPod(index: number): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${index}`,
      namespace: 'default',
      labels: { app: 'bench', 'pod-template-hash': '5d8f9c7b6' },
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.k8s.io/pause:3.9',
          imagePullPolicy: 'IfNotPresent',
          ports: [{ containerPort: 8080, protocol: 'TCP', name: 'http' }],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
          env: [{ name: 'MODE', value: 'bench' }],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          volumeMounts: [
            {
              name: 'kube-api-access',
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
              readOnly: true,
            },
          ],
        },
      ],
      volumes: [
        {
          name: 'kube-api-access',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            ],
          },
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
        {
          key: 'node.kubernetes.io/unreachable',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: { phase: 'Pending', qosClass: 'Burstable' },
  };
}

// A status write as the store hands it to the field manager: the stored spec and metadata carried
// over (the same objects), the status the kubelet sent.
function withStatus(pod: JsonObject, phase: string, time: string): JsonObject {
  const conditions = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];
  return {
    ...pod,
    status: {
      phase,
      qosClass: 'Burstable',
      hostIP: '10.0.0.1',
      hostIPs: [{ ip: '10.0.0.1' }],
      podIP: '10.244.1.7',
      podIPs: [{ ip: '10.244.1.7' }],
      startTime: time,
      conditions: conditions.map((type) => ({
        type,
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: time,
      })),
      containerStatuses: [
        {
          name: 'app',
          ready: true,
          restartCount: 0,
          image: 'registry.k8s.io/pause:3.9',
          imageID: 'docker://sha256:0123',
          containerID: 'containerd://abc',
          started: true,
          state: { running: { startedAt: time } },
        },
      ],
    },
  };
}

function deployment(replicas: number, image: string): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image,
              ports: [{ containerPort: 80 }],
              resources: { requests: { cpu: '100m' } },
            },
          ],
        },
      },
    },
  };
}

interface Scenario {
  readonly name: string;
  /** Operations per round as a share of `--iterations` (big objects: a few per round). */
  readonly share?: number;
  /** Runs `iterations` operations; returns the CPU ms they took. */
  run(iterations: number): number;
}

// CPU time of this process (user + system) rather than wall time: on a shared machine the wall
// clock counts other processes' turns too.
function timed(iterations: number, prepare: (i: number) => () => void): number {
  const steps = Array.from({ length: iterations }, (_, i) => prepare(i));
  const start = process.cpuUsage();
  for (const step of steps) step();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function scenarios(): Scenario[] {
  const pods = managerFor('', 'Pod', '');
  const podStatus = managerFor('', 'Pod', 'status');
  const deployments = managerFor('apps', 'Deployment', '');
  const empty: JsonObject = {};
  const created = pods.update(empty, benchPod(0), 'bench');
  // Stored and bound: the scheduler's binding sets spec.nodeName (no field manager on pods/binding).
  const live = {
    ...created,
    metadata: { ...(created.metadata as JsonObject), uid: 'u-0' },
    spec: { ...(created.spec as JsonObject), nodeName: 'node-1' },
  };
  const running = podStatus.update(live, withStatus(live, 'Running', '2026-11-28T00:00:00Z'), 'kubelet');
  const liveDeployment = deployments.apply({}, deployment(3, 'nginx:1'), 'bench', false);
  const labelled = (object: JsonObject, value: string): JsonObject => ({
    ...object,
    metadata: { ...(object.metadata as JsonObject), labels: { app: 'bench', touched: value } },
  });
  // Issue 21's big pods: one container with 15,000 env vars (about 1.2 MB with managedFields), and
  // the issue's own with 50,000 (over etcd's limit once managedFields are added: the field manager
  // runs before the store refuses it).
  const bigPod = (index: number, vars = 15_000): JsonObject => {
    const pod = benchPod(index);
    const [container] = (pod.spec as { containers: JsonObject[] }).containers;
    (container as JsonObject).env = Array.from({ length: vars }, (_, i) => ({
      name: `VAR_${i}`,
      value: `value-${i}`,
    }));
    return pod;
  };
  const bigCreated = pods.update(empty, bigPod(0), 'bench');
  const bigLive = { ...bigCreated, spec: { ...(bigCreated.spec as JsonObject), nodeName: 'node-1' } };
  return [
    {
      name: 'big pod create (15,000 env vars)',
      share: 1 / 1000,
      run: (n) => timed(n, (i) => () => pods.update(empty, bigPod(i), 'bench')),
    },
    {
      name: 'big pod create (50,000 env vars)',
      share: 1 / 1000,
      run: (n) => timed(n, (i) => () => pods.update(empty, bigPod(i, 50_000), 'bench')),
    },
    {
      name: 'big pod status update (kubelet, first)',
      share: 1 / 1000,
      run: (n) =>
        timed(n, (i) => {
          const next = withStatus(bigLive, 'Running', `2026-11-28T00:00:${String(i % 60).padStart(2, '0')}Z`);
          return () => podStatus.update(bigLive, next, 'kubelet');
        }),
    },
    {
      name: 'pod create',
      run: (n) => timed(n, (i) => () => pods.update(empty, benchPod(i), 'bench')),
    },
    {
      name: 'pod status update (kubelet, first)',
      run: (n) =>
        timed(n, (i) => {
          const next = withStatus(live, 'Running', `2026-11-28T00:00:${String(i % 60).padStart(2, '0')}Z`);
          return () => podStatus.update(live, next, 'kubelet');
        }),
    },
    {
      name: 'pod status update (kubelet, same fields)',
      run: (n) =>
        timed(n, (i) => {
          const next = withStatus(running, 'Running', `2026-11-28T00:01:${String(i % 60).padStart(2, '0')}Z`);
          return () => podStatus.update(running, next, 'kubelet');
        }),
    },
    {
      name: 'pod update (metadata label)',
      run: (n) =>
        timed(n, (i) => {
          const next = labelled(running, String(i));
          return () => pods.update(running, next, 'bench');
        }),
    },
    {
      name: 'deployment apply (image change)',
      run: (n) =>
        timed(n, (i) => {
          const applied = deployment(3, `nginx:${i}`);
          return () => deployments.apply(liveDeployment, applied, 'bench', false);
        }),
    },
  ];
}

export function runFieldManagerBench(options: Options): Map<string, number[]> {
  const figures = new Map<string, number[]>();
  const all = scenarios();
  const operations = (scenario: Scenario, n: number) => Math.max(1, Math.round(n * (scenario.share ?? 1)));
  for (const scenario of all) scenario.run(operations(scenario, Math.min(500, options.iterations)));
  for (let round = 0; round < options.rounds; round++) {
    for (const scenario of all) {
      const n = operations(scenario, options.iterations);
      const ms = scenario.run(n);
      const list = figures.get(scenario.name) ?? [];
      list.push((ms * 1000) / n);
      figures.set(scenario.name, list);
    }
  }
  return figures;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const figures = runFieldManagerBench(options);
  const rows: string[][] = [['operation', 'CPU µs/op (median)', 'range']];
  for (const [name, values] of figures) {
    rows.push([
      name,
      percentile(values, 50).toFixed(1),
      `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`,
    ]);
  }
  printTable(
    `Field manager: ${options.iterations} operations × ${options.rounds} rounds (node ${process.version})`,
    rows,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
