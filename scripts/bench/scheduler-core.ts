// Scheduler core throughput: 10,000 pods on 1,000 nodes through the scheduling cycle alone (no
// API server), once with plain pods and once with required pod anti-affinity plus a zone topology
// spread constraint. Prints pods/s and cycle latency percentiles.
//   npx tsx scripts/bench/scheduler-core.ts [--nodes 1000] [--pods 10000] [--scenario plain|constrained]
// `scheduler.ts` (npm run bench:scheduler) prints these figures next to the end-to-end ones.
import { pathToFileURL } from 'node:url';
import type { Node, Pod } from '../../src/api/types/core-v1.generated.js';
import { Scheduler } from '../../src/scheduler/index.js';

export interface Options {
  nodes: number;
  pods: number;
  scenarios: string[];
  /** End-to-end runs per scenario: the table shows the median one and the range. */
  runs: number;
}

/** What one scenario measured; latencies are of the scheduling cycle, in ms. */
export interface CoreFigures {
  readonly podsPerSecond: number;
  readonly podsPerCpuSecond: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** Zone of the node with this index: ten zones, as the end-to-end bench labels its nodes too. */
export function zoneOf(index: number): string {
  return `zone-${index % 10}`;
}

export function parseArgs(argv: readonly string[]): Options {
  const options: Options = { nodes: 1000, pods: 10_000, scenarios: ['plain', 'constrained'], runs: 3 };
  for (let index = 0; index < argv.length; index++) {
    const value = argv[index + 1];
    if (argv[index] === '--nodes' && value) options.nodes = Number(value);
    if (argv[index] === '--pods' && value) options.pods = Number(value);
    if (argv[index] === '--scenario' && value) options.scenarios = [value];
    if (argv[index] === '--runs' && value) options.runs = Math.max(1, Math.trunc(Number(value)) || 1);
  }
  return options;
}

function makeNode(index: number): Node {
  const name = `node-${index}`;
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      labels: {
        'kubernetes.io/hostname': name,
        'topology.kubernetes.io/zone': zoneOf(index),
        'topology.kubernetes.io/region': 'region-1',
      },
    },
    spec: {},
    status: {
      allocatable: { cpu: '32', memory: '128Gi', pods: '110', 'ephemeral-storage': '100Gi' },
      capacity: { cpu: '32', memory: '128Gi', pods: '110' },
      images: [{ names: ['registry.k8s.io/pause:3.10'], sizeBytes: 300_000 }],
    },
  };
}

/**
 * The benchmark's pod: 100m cpu and 128Mi; `constrained` adds required anti-affinity per node
 * and a zone spread (maxSkew 1) within its group (one of 100).
 */
export function benchPod(index: number, constrained: boolean): Pod {
  const group = `group-${index % 100}`;
  const pod: Pod = {
    metadata: { name: `pod-${index}`, namespace: 'default', labels: { app: group } },
    spec: {
      containers: [
        {
          name: 'main',
          image: 'registry.k8s.io/pause:3.10',
          resources: { requests: { cpu: '100m', memory: '128Mi' } },
        },
      ],
    },
    status: { phase: 'Pending' },
  };
  if (constrained) {
    pod.spec!.affinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: group } } },
        ],
      },
    };
    pod.spec!.topologySpreadConstraints = [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: group } },
      },
    ];
  }
  return pod;
}

/** The pod as the API server would hand it to the scheduler: uid, resourceVersion, defaults. */
function storedPod(index: number, constrained: boolean): Pod {
  const pod = benchPod(index, constrained);
  return {
    ...pod,
    metadata: { ...pod.metadata, uid: `uid-${pod.metadata!.name}`, resourceVersion: '1' },
    spec: { ...pod.spec!, schedulerName: 'default-scheduler', priority: 0 },
    status: { phase: 'Pending' },
  };
}

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

export async function runCoreScenario(name: string, options: Options): Promise<CoreFigures> {
  const constrained = name === 'constrained';
  let bound = 0;
  const pending = new Map<string, Pod>();
  let scheduler: Scheduler;
  const bindings: { pod: Pod; node: string }[] = [];
  scheduler = new Scheduler({
    effects: {
      bind: async ({ namespace, name: podName, nodeName }) => {
        const pod = pending.get(`${namespace}/${podName}`)!;
        bindings.push({ pod, node: nodeName });
      },
      reportFailure: (failure) => {
        throw new Error(`unexpected failure for ${failure.pod.metadata?.name}: ${failure.condition.message}`);
      },
    },
  });
  for (let index = 0; index < options.nodes; index++) scheduler.onNodeAdd(makeNode(index));
  for (let index = 0; index < options.pods; index++) {
    const pod = storedPod(index, constrained);
    pending.set(`default/${pod.metadata!.name}`, pod);
    scheduler.onPodAdd(pod);
  }
  const latencies = new Float64Array(options.pods);
  let cycles = 0;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  while (cycles < options.pods) {
    const before = performance.now();
    if (!scheduler.scheduleOne()) {
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    latencies[cycles++] = performance.now() - before;
    if (cycles % 200 === 0) {
      // Let binding promises settle and feed the bound-pod events back, as informers would.
      await new Promise((resolve) => setImmediate(resolve));
      for (const { pod, node } of bindings.splice(0)) {
        scheduler.onPodUpdate(pod, {
          ...pod,
          metadata: { ...pod.metadata, resourceVersion: '2' },
          spec: { ...pod.spec!, nodeName: node },
        });
        bound++;
      }
    }
  }
  await scheduler.idle();
  for (const { pod, node } of bindings.splice(0)) {
    scheduler.onPodUpdate(pod, {
      ...pod,
      metadata: { ...pod.metadata, resourceVersion: '2' },
      spec: { ...pod.spec!, nodeName: node },
    });
    bound++;
  }
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const sorted = latencies.slice().sort();
  const rate = (options.pods / elapsed) * 1000;
  // Per CPU-second as well: on a shared machine wall time also measures the neighbours.
  const cpuRate = (options.pods / cpuMs) * 1000;
  if (bound !== options.pods) throw new Error(`${name}: bound ${bound} of ${options.pods} pods`);
  return {
    podsPerSecond: rate,
    podsPerCpuSecond: cpuRate,
    seconds: elapsed / 1000,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted[sorted.length - 1]!,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = parseArgs(process.argv.slice(2));
  for (const scenario of options.scenarios) {
    const figures = await runCoreScenario(scenario, options);
    console.log(
      `${scenario.padEnd(12)} ${options.pods} pods on ${options.nodes} nodes: ${figures.podsPerSecond.toFixed(0)} pods/s ` +
        `(${figures.podsPerCpuSecond.toFixed(0)} per CPU-second; ${figures.seconds.toFixed(2)} s; cycle p50 ${figures.p50Ms.toFixed(2)} ms, ` +
        `p99 ${figures.p99Ms.toFixed(2)} ms, max ${figures.maxMs.toFixed(2)} ms)`,
    );
  }
}
