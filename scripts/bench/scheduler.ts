// Scheduler benchmark: `npm run bench:scheduler`. 10,000 pods on 1,000 fake nodes, without and
// with inter-pod constraints (required anti-affinity per node plus a zone spread), measured two
// ways: the scheduling cycle alone (scheduler-core.ts, in this process) and end to end through the
// built control plane as a child process (`--fake-nodes 1000`), as `tkube up` runs it: pods created over
// HTTPS, scheduled by its kube-scheduler, bound through pods/binding and run by its fake
// kubelets. End-to-end latency runs from sending the create to seeing `spec.nodeName` on a watch;
// pods/s counts from the first create sent to the last binding seen. The end-to-end path runs
// `--runs` times (3 by default, each on a fresh control plane) because this machine's speed drifts
// from run to run: the table shows the median run, with the range of pods/s beside it; the JSON
// line has every run. Prints one table, then one JSON line. BENCH_CPU_PROF=1 writes the control plane's V8 CPU profile to ./bench-profiles/;
// BENCH_NODE_FLAGS adds Node flags to the control plane's command line.
//   npx tsx scripts/bench/scheduler.ts [--nodes 1000] [--pods 10000] [--scenario plain|constrained] [--runs 3]
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import type { Node, Pod } from '../../src/api/types/core-v1.generated.js';
import { DROPPED_EVENT_LOG } from '../../src/client/events/recorder.js';
import { NODES, PODS } from '../../src/client/resources.js';
import { httpsClient } from '../../src/client/transports.js';
import type { Client } from '../../src/client/types.js';
import { builtinControlPlaneCommand } from '../../src/cluster/controlplane-process.js';
import { ensureClusterPki } from '../../src/pki/cluster-pki.js';
import { fakeNodeName } from '../../src/providers/fake/index.js';
import { percentile, printTable } from './report.js';
import {
  benchPod,
  type CoreFigures,
  type Options,
  parseArgs,
  runCoreScenario,
  zoneOf,
} from './scheduler-core.js';

/** Creates in flight at once, as a controller or `kubectl apply` of many objects would send them. */
const CREATES_IN_FLIGHT = 64;
const ZONE_LABEL = 'topology.kubernetes.io/zone';
const TARGETS: Readonly<Record<string, number>> = { plain: 1000, constrained: 200 };
const BIND_TIMEOUT_MS = 10 * 60_000;
const IDLE_SAMPLE_MS = 5_000;
const PROGRESS_INTERVAL_MS = 5_000;
/** The rest of a burst's drops, reported in one line after the first drop's own line. */
const MORE_DROPPED = / dropped (\d+) more events$/;
const controlPlane = builtinControlPlaneCommand();
const clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

interface EndToEndFigures {
  readonly podsPerSecond: number;
  readonly createsPerSecond: number;
  /** Pods per second of the control plane's CPU time (user + system, all threads) over the run. */
  readonly podsPerCpuSecond: number;
  /** CPU time per pod of the apiserver's thread alone (the process's main thread), in milliseconds. */
  readonly apiserverThreadMsPerPod: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** CPU time per pod of this benchmark's own client (creates over HTTPS, the watch), in milliseconds. */
  readonly clientMsPerPod: number;
  /** The control plane's CPU use (cores) before the pods: the fake nodes' leases and status. */
  readonly idleCores: number;
  /** Storage revisions per pod over the run (creates, bindings, events, pod status, leases). */
  readonly writesPerPod: number;
  /**
   * Scheduled events the control plane's event recorder dropped (its queue was full), as it
   * reported them by the time it stopped: drops past the first are reported once the queue drains.
   */
  readonly eventsDropped: number;
}

interface RunningControlPlane {
  readonly child: ChildProcess;
  readonly port: number;
  /** How many events the recorder reported dropping so far. */
  droppedEvents(): number;
}

/** Progress on stderr, so the table on stdout stays clean. */
function progress(message: string): void {
  process.stderr.write(`[${(performance.now() / 1000).toFixed(1)} s] ${message}\n`);
}

async function inParallel(
  count: number,
  limit: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < count; index = next++) await task(index);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

/** Starts the built control plane (`npm run build`); resolves with its port. */
function startControlPlane(dir: string, nodes: number): Promise<RunningControlPlane> {
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', resolve('bench-profiles')]
    : [];
  // BENCH_NODE_FLAGS: more Node/V8 flags for the control plane (`--trace-gc`, say).
  const extra = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const args = [...profile, ...extra, ...controlPlane.args, '--state-dir', dir, '--api-port', '0'];
  const child = spawn(controlPlane.file, [...args, '--fake-nodes', String(nodes)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let dropped = 0;
  createInterface({ input: child.stderr! }).on('line', (line) => {
    // The event recorder's overflow lines: counted, not echoed.
    if (line.startsWith(DROPPED_EVENT_LOG)) dropped += Number(MORE_DROPPED.exec(line)?.[1] ?? 1);
    else process.stderr.write(`control plane: ${line}\n`);
  });
  return new Promise((resolvePort, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving on port (\d+)/.exec(output);
      if (match) resolvePort({ child, port: Number(match[1]), droppedEvents: () => dropped });
    });
    child.on('exit', (code) => reject(new Error(`control plane exited (${code}): ${output}`)));
  });
}

async function stopControlPlane(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  child.kill('SIGTERM');
  await exited;
}

/** User plus system CPU time the process (or with `thread`, one of its threads) has used so far, in seconds. */
function cpuSeconds(pid: number, thread?: number): number {
  const stat = readFileSync(
    thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`,
    'utf8',
  );
  // Fields after the command name (which may hold spaces) start at field 3 (state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
}

/** Labels the fake nodes with ten zones; resolves once every node is labelled and offers pods. */
async function labelZones(admin: Client, nodes: number): Promise<void> {
  const api = admin.resource<Node>(NODES);
  await inParallel(nodes, 32, async (index) => {
    await api.patch('', fakeNodeName(index), 'strategic', {
      metadata: { labels: { [ZONE_LABEL]: zoneOf(index) } },
    });
  });
  const listed = await api.list('');
  const ready = listed.items.filter(
    (node) => node.metadata?.labels?.[ZONE_LABEL] && Number(node.status?.allocatable?.pods ?? 0) > 0,
  );
  if (ready.length !== nodes)
    throw new Error(`only ${ready.length} of ${nodes} nodes are labelled and ready`);
}

/**
 * Watches the bench pods from `resourceVersion` and records, per pod index, the time its binding
 * was first seen; resolves once all are bound (or the signal aborts).
 */
async function watchBindings(
  observer: Client,
  resourceVersion: string,
  count: number,
  onBound: (index: number, at: number) => void,
  signal: AbortSignal,
): Promise<void> {
  const seen = new Uint8Array(count);
  let bound = 0;
  for await (const event of observer.resource<Pod>(PODS).watch('default', { resourceVersion, signal })) {
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') continue;
    const name = event.object.metadata?.name ?? '';
    if (!event.object.spec?.nodeName || !name.startsWith('pod-')) continue;
    const index = Number(name.slice('pod-'.length));
    if (seen[index]) continue;
    seen[index] = 1;
    onBound(index, performance.now());
    if (++bound === count) return;
  }
}

async function runEndToEnd(scenario: string, options: Options): Promise<EndToEndFigures> {
  const constrained = scenario === 'constrained';
  progress(`${scenario}: starting a control plane with ${options.nodes} fake nodes`);
  const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-scheduler-'));
  const pki = await ensureClusterPki(join(dir, 'pki'));
  const controlPlane = await startControlPlane(dir, options.nodes);
  const pid = controlPlane.child.pid!;
  let figures: EndToEndFigures | undefined;
  let droppedBefore = 0;
  const connect = (component: string) =>
    httpsClient({
      server: `https://127.0.0.1:${controlPlane.port}`,
      ca: pki.ca.certificatePem,
      cert: pki.admin.certificatePem,
      key: pki.admin.privateKeyPem,
      component,
      maxConcurrentRequests: CREATES_IN_FLIGHT,
    });
  const admin = connect('bench-scheduler');
  // The watch on a connection of its own: an observer apart from the writer.
  const observer = connect('bench-scheduler-watch');
  try {
    progress(`${scenario}: labelling zones`);
    await labelZones(admin, options.nodes);
    // Lets the scheduler's node informer take in the labels before the first pod, and measures
    // what the control plane spends on the fake nodes alone meanwhile.
    const idleFrom = cpuSeconds(pid);
    await new Promise((resolveIdle) => setTimeout(resolveIdle, IDLE_SAMPLE_MS));
    const idleCores = (cpuSeconds(pid) - idleFrom) / (IDLE_SAMPLE_MS / 1000);

    const pods = admin.resource<Pod>(PODS);
    const start = await observer.resource<Pod>(PODS).list('default');
    const sentAt = new Float64Array(options.pods);
    const latencies: number[] = [];
    let lastBound = 0;
    const abort = new AbortController();
    const allBound = watchBindings(
      observer,
      start.metadata.resourceVersion ?? '0',
      options.pods,
      (index, at) => {
        latencies.push(at - sentAt[index]!);
        lastBound = at;
      },
      abort.signal,
    );
    // Awaited once the creates are done; a failure before then must not go unhandled.
    allBound.catch(() => {});
    progress(`${scenario}: creating ${options.pods} pods, ${CREATES_IN_FLIGHT} at a time`);
    droppedBefore = controlPlane.droppedEvents();
    const cpuStarted = cpuSeconds(pid);
    // The main thread's id is the process id.
    const mainThreadStarted = cpuSeconds(pid, pid);
    const clientStarted = process.cpuUsage();
    const started = performance.now();
    let created = 0;
    const ticker = setInterval(
      () => progress(`${scenario}: ${created} created, ${latencies.length} bound`),
      PROGRESS_INTERVAL_MS,
    );
    const timeout = setTimeout(() => abort.abort(), BIND_TIMEOUT_MS);
    try {
      await inParallel(options.pods, CREATES_IN_FLIGHT, async (index) => {
        sentAt[index] = performance.now();
        await pods.create(benchPod(index, constrained));
        created++;
      });
      const createdAt = performance.now();
      await allBound;
      if (latencies.length !== options.pods) {
        throw new Error(`${scenario}: ${latencies.length} of ${options.pods} pods bound in time`);
      }
      const cpu = cpuSeconds(pid) - cpuStarted;
      const mainThreadCpu = cpuSeconds(pid, pid) - mainThreadStarted;
      const clientCpu = process.cpuUsage(clientStarted);
      const after = await observer.resource<Pod>(PODS).list('default', { limit: 1 });
      const writes = Number(after.metadata.resourceVersion) - Number(start.metadata.resourceVersion);
      const seconds = (lastBound - started) / 1000;
      figures = {
        podsPerSecond: options.pods / seconds,
        createsPerSecond: options.pods / ((createdAt - started) / 1000),
        podsPerCpuSecond: options.pods / cpu,
        apiserverThreadMsPerPod: (mainThreadCpu * 1000) / options.pods,
        clientMsPerPod: (clientCpu.user + clientCpu.system) / 1000 / options.pods,
        seconds,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        maxMs: percentile(latencies, 100),
        idleCores,
        writesPerPod: writes / options.pods,
        eventsDropped: 0,
      };
    } finally {
      clearInterval(ticker);
      clearTimeout(timeout);
      abort.abort();
    }
  } finally {
    await admin.close();
    await observer.close();
    await stopControlPlane(controlPlane.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return { ...figures, eventsDropped: controlPlane.droppedEvents() - droppedBefore };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const rate = (value: number) => value.toFixed(0);

/** The run with the median pods/s (the lower middle one of an even count). */
function medianRun(runs: readonly EndToEndFigures[]): EndToEndFigures {
  const sorted = [...runs].sort((a, b) => a.podsPerSecond - b.podsPerSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** The median run's pods/s, with the range over every run when there were several. */
function podsPerSecondCell(median: EndToEndFigures, runs: readonly EndToEndFigures[]): string {
  if (runs.length < 2) return rate(median.podsPerSecond);
  const all = runs.map((run) => run.podsPerSecond);
  return `${rate(median.podsPerSecond)} (${rate(Math.min(...all))}-${rate(Math.max(...all))})`;
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

const options = parseArgs(process.argv.slice(2));
const loadBefore = load();
const results: {
  scenario: string;
  core: CoreFigures;
  endToEnd: EndToEndFigures;
  endToEndRuns: EndToEndFigures[];
}[] = [];
for (const scenario of options.scenarios) {
  progress(`${scenario}: the scheduling cycle alone`);
  const core = await runCoreScenario(scenario, options);
  const endToEndRuns: EndToEndFigures[] = [];
  for (let run = 1; run <= options.runs; run++) {
    progress(`${scenario}: end to end, run ${run} of ${options.runs}`);
    endToEndRuns.push(await runEndToEnd(scenario, options));
  }
  results.push({ scenario, core, endToEnd: medianRun(endToEndRuns), endToEndRuns });
}
const loadAfter = load();
printTable(
  `Scheduler: ${options.pods} pods on ${options.nodes} fake nodes (load average ${loadBefore} before, ${loadAfter} after)`,
  [
    [
      'scenario',
      'path',
      'pods/s',
      'target',
      'pods/CPU-s',
      'p50',
      'p99',
      'max',
      'creates/s',
      'writes/pod',
      'apiserver thread CPU/pod',
      'client CPU/pod',
    ],
    ...results.flatMap(({ scenario, core, endToEnd, endToEndRuns }) => [
      [
        scenario,
        'cycle only',
        rate(core.podsPerSecond),
        '',
        rate(core.podsPerCpuSecond),
        ms(core.p50Ms),
        ms(core.p99Ms),
        ms(core.maxMs),
        '',
        '',
        '',
        '',
      ],
      [
        scenario,
        options.runs > 1 ? `end to end, median of ${options.runs}` : 'end to end',
        podsPerSecondCell(endToEnd, endToEndRuns),
        `>= ${TARGETS[scenario] ?? '?'}`,
        rate(endToEnd.podsPerCpuSecond),
        ms(endToEnd.p50Ms),
        ms(endToEnd.p99Ms),
        ms(endToEnd.maxMs),
        rate(endToEnd.createsPerSecond),
        endToEnd.writesPerPod.toFixed(1),
        ms(endToEnd.apiserverThreadMsPerPod),
        ms(endToEnd.clientMsPerPod),
      ],
    ]),
  ],
);
console.log('cycle only: latency of one scheduling cycle; pods/CPU-s: per CPU-second of this process');
console.log(
  'end to end: latency from sending the create to seeing spec.nodeName on a watch; pods/CPU-s: per ' +
    'CPU-second of the control plane (all threads; the apiserver thread alone in its own column), ' +
    `which used ${results.map((r) => r.endToEnd.idleCores.toFixed(2)).join(' / ')} ` +
    'cores before the pods (fake node leases and status)',
);
console.log(
  JSON.stringify({ nodes: options.nodes, pods: options.pods, load: [loadBefore, loadAfter], results }),
);
