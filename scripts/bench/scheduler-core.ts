// Scheduler core throughput: 10,000 pods on 1,000 nodes through the scheduling cycle alone (no
// API server), once with plain pods and once with required pod anti-affinity plus a zone topology
// spread constraint. Prints pods/s and cycle latency percentiles.
//   npx tsx scripts/bench/scheduler-core.ts [--nodes 1000] [--pods 10000] [--scenario plain|constrained]
import type { Node, Pod } from '../../src/api/types/core-v1.generated.js';
import { Scheduler } from '../../src/scheduler/index.js';

interface Options {
  nodes: number;
  pods: number;
  scenarios: string[];
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { nodes: 1000, pods: 10_000, scenarios: ['plain', 'constrained'] };
  for (let index = 0; index < argv.length; index++) {
    const value = argv[index + 1];
    if (argv[index] === '--nodes' && value) options.nodes = Number(value);
    if (argv[index] === '--pods' && value) options.pods = Number(value);
    if (argv[index] === '--scenario' && value) options.scenarios = [value];
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
        'topology.kubernetes.io/zone': `zone-${index % 10}`,
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

function makePod(index: number, constrained: boolean): Pod {
  const name = `pod-${index}`;
  const group = `group-${index % 100}`;
  const pod: Pod = {
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      labels: { app: group },
      resourceVersion: '1',
    },
    spec: {
      schedulerName: 'default-scheduler',
      priority: 0,
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

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

async function runScenario(name: string, options: Options): Promise<void> {
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
    const pod = makePod(index, constrained);
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
  console.log(
    `${name.padEnd(12)} ${options.pods} pods on ${options.nodes} nodes: ${rate.toFixed(0)} pods/s ` +
      `(${cpuRate.toFixed(0)} per CPU-second; ${(elapsed / 1000).toFixed(2)} s; cycle p50 ${percentile(sorted, 0.5).toFixed(2)} ms, ` +
      `p99 ${percentile(sorted, 0.99).toFixed(2)} ms, max ${sorted[sorted.length - 1]!.toFixed(2)} ms; bound ${bound})`,
  );
}

const options = parseArgs(process.argv.slice(2));
for (const scenario of options.scenarios) await runScenario(scenario, options);
