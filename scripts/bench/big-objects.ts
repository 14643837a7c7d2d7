// Big-object benchmark (issue 21): the two pods (20,000 containers; one container with
// 50,000 env vars), refused as over etcd's limit, and a stored pod with 15,000 env vars, each
// created through the API of a control plane on no nodes while /readyz is probed every 10 ms.
// Prints per scenario: create latency, the control plane's CPU per create (all its threads), and
// the slowest /readyz probe during the create and in the 2 s after it (goal ≤ 100 ms), and the
// control plane's peak resident memory over that time (goal ≤ 500 MB); medians of `--rounds` with ranges.
//   npm run build && npx tsx scripts/bench/big-objects.ts [--rounds 3] [--baseline <tree>] [--cpu-prof <dir>]
// `--baseline` names another tree (built with `npm run build`) whose control plane runs the same
// scenarios first: the A/B in one run.
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  builtinControlPlaneCommand,
  type ControlPlaneCommand,
} from '../../src/cluster/controlplane-process.js';
import { podWithContainers, podWithEnv, requestStatus } from '../../test/support/big-pods.js';
import { cpuSeconds, type FakeCluster, startFakeCluster } from './fake-cluster.js';
import { percentile, printTable } from './report.js';

interface Options {
  rounds: number;
  baseline?: string;
  /** A directory for the control planes' CPU profiles (node --cpu-prof). */
  cpuProfiles?: string;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { rounds: 3 };
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] === '--rounds' && Number(argv[index + 1]) > 0)
      options.rounds = Math.trunc(Number(argv[index + 1]));
    if (argv[index] === '--baseline' && argv[index + 1]) options.baseline = argv[index + 1];
    if (argv[index] === '--cpu-prof' && argv[index + 1]) options.cpuProfiles = argv[index + 1];
  }
  return options;
}

interface Scenario {
  readonly label: string;
  readonly body: (name: string) => string;
  readonly status: number;
}

const SCENARIOS: readonly Scenario[] = [
  { label: 'pod, 15,000 env vars (stored)', body: (name) => podWithEnv(name, 15_000), status: 201 },
  { label: 'pod, 20,000 containers (refused)', body: (name) => podWithContainers(name, 20_000), status: 500 },
  { label: 'pod, 50,000 env vars (refused)', body: (name) => podWithEnv(name, 50_000), status: 500 },
];

interface Sample {
  createMs: number;
  cpuMs: number;
  slowestReadyzMs: number;
  /** The slowest probe in the 2 s after the create answered (informers and watchers taking it in, the delete). */
  slowestAfterMs: number;
  /** The control plane's peak resident memory from the create until 2 s after it (VmHWM). */
  peakRssMiB: number;
}

/** Resets the process's VmHWM to its current resident size (writing 5 to clear_refs). */
function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function peakRssMiB(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** /readyz as anyone may read it (system:public-info-viewer), over one kept-alive connection. */
function probe(agent: Agent, port: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    httpsGet({ host: '127.0.0.1', port, path: '/readyz', agent, rejectUnauthorized: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(performance.now() - started));
    }).on('error', reject);
  });
}

function post(agent: Agent, port: number, path: string, body: string, method = 'POST'): Promise<number> {
  return requestStatus({ host: '127.0.0.1', port, agent }, method, path, body);
}

async function runScenarios(
  cluster: FakeCluster,
  admin: Agent,
  rounds: number,
): Promise<Map<string, Sample[]>> {
  const probes = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples = new Map<string, Sample[]>();
  // Pods wait for their namespace's default ServiceAccount (the ServiceAccount admission plugin).
  while (
    (await post(admin, cluster.port, '/api/v1/namespaces/default/serviceaccounts/default', '', 'GET')) !== 200
  )
    await sleep(50);
  // The components' start-up writes (bootstrap policy, leases, server-side applies) settle first:
  // measured is what a big object does to a running control plane.
  await sleep(2_000);
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [index, scenario] of SCENARIOS.entries()) {
        const name = `big-${round}-${index}`;
        const body = scenario.body(name);
        let slowest = 0;
        let slowestAfter = 0;
        let answered = false;
        let done = false;
        const probing = (async () => {
          while (!done) {
            const ms = await probe(probes, cluster.port);
            if (answered) slowestAfter = Math.max(slowestAfter, ms);
            else slowest = Math.max(slowest, ms);
            await sleep(10);
          }
        })();
        resetPeakRss(cluster.pid);
        const cpuBefore = cpuSeconds(cluster.pid);
        const started = performance.now();
        const status = await post(admin, cluster.port, '/api/v1/namespaces/default/pods', body);
        const createMs = performance.now() - started;
        const cpuMs = (cpuSeconds(cluster.pid) - cpuBefore) * 1000;
        answered = true;
        if (status !== scenario.status) throw new Error(`${scenario.label}: answered ${status}`);
        // The informers take the big event in after the write: probed, then left to settle.
        await sleep(1_000);
        if (status === 201)
          await post(
            admin,
            cluster.port,
            `/api/v1/namespaces/default/pods/${name}?gracePeriodSeconds=0`,
            '{}',
            'DELETE',
          );
        await sleep(1_000);
        done = true;
        await probing;
        const peak = peakRssMiB(cluster.pid);
        await sleep(1_000);
        const list = samples.get(scenario.label) ?? [];
        list.push({
          createMs,
          cpuMs,
          slowestReadyzMs: slowest,
          slowestAfterMs: slowestAfter,
          peakRssMiB: peak,
        });
        samples.set(scenario.label, list);
      }
    }
  } finally {
    probes.destroy();
  }
  return samples;
}

const median = (values: number[]) => percentile(values, 50);
const range = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;

async function measure(
  label: string,
  command: ControlPlaneCommand,
  rounds: number,
): Promise<Map<string, Sample[]>> {
  const cluster = await startFakeCluster(`big-${label}`, 0, command);
  try {
    const { certificatePem, privateKeyPem } = cluster.admin;
    const admin = new Agent({
      keepAlive: true,
      maxSockets: 1,
      cert: certificatePem,
      key: privateKeyPem,
      rejectUnauthorized: false,
    });
    try {
      return await runScenarios(cluster, admin, rounds);
    } finally {
      admin.destroy();
    }
  } finally {
    await cluster.stop();
  }
}

const options = parseArgs(process.argv.slice(2));
const profiled = (command: ControlPlaneCommand): ControlPlaneCommand =>
  options.cpuProfiles
    ? { ...command, args: ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfiles}`, ...command.args] }
    : command;
const runs: [string, Map<string, Sample[]>][] = [];
if (options.baseline) {
  const main = join(options.baseline, 'dist/controlplane-bundle/main.js');
  const command = builtinControlPlaneCommand();
  runs.push([
    'baseline',
    await measure(
      'baseline',
      profiled({ ...command, args: [...command.args.slice(0, -1), main] }),
      options.rounds,
    ),
  ]);
}
runs.push(['this tree', await measure('this', profiled(builtinControlPlaneCommand()), options.rounds)]);
const rows: string[][] = [
  [
    'scenario',
    'control plane',
    'create ms (median, range)',
    'CPU ms per create',
    'slowest /readyz ms',
    'after, ms',
    'peak RSS MiB',
  ],
];
for (const scenario of SCENARIOS) {
  for (const [label, samples] of runs) {
    const list = samples.get(scenario.label) ?? [];
    const column = (pick: (s: Sample) => number) =>
      `${median(list.map(pick)).toFixed(0)} (${range(list.map(pick))})`;
    rows.push([
      scenario.label,
      label,
      column((s) => s.createMs),
      column((s) => s.cpuMs),
      column((s) => s.slowestReadyzMs),
      column((s) => s.slowestAfterMs),
      column((s) => s.peakRssMiB),
    ]);
  }
}
printTable(`Big objects: ${options.rounds} rounds each, /readyz probed every 10 ms during each create`, rows);
console.log(
  JSON.stringify(
    Object.fromEntries(
      runs.map(([label, samples]) => [
        label,
        Object.fromEntries(
          [...samples].map(([scenario, list]) => [
            scenario,
            {
              createMs: Math.round(median(list.map((s) => s.createMs))),
              cpuMs: Math.round(median(list.map((s) => s.cpuMs))),
              slowestReadyzMs: Math.round(median(list.map((s) => s.slowestReadyzMs))),
              slowestAfterMs: Math.round(median(list.map((s) => s.slowestAfterMs))),
              peakRssMiB: Math.round(median(list.map((s) => s.peakRssMiB))),
            },
          ]),
        ),
      ]),
    ),
  ),
);
