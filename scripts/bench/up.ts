// Cluster lifecycle benchmark: `npm run bench:up` (builds first). Runs the built CLI as a user
// does, against the real Docker engine: node image build (cold and cached), `tkube version`,
// `tkube up` for 0, 1 and 3 nodes (median and range of 5) with each progress step's duration and
// the CPU of the CLI and of the control plane, `tkube down`, memory, and the time to a first
// answer of an app (up-time-to-k8s.ts). The previous commit is built and run alternately in the
// same run (BENCH_UP_PREVIOUS=<ref>, default HEAD~1; `none` skips it), and the figures are
// compared with the accepted ones in scripts/bench/baselines/up.json (baseline.ts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import {
  SETTLED_GC_ATTEMPTS,
  SETTLED_GC_DELAY_MS,
  SETTLED_GC_RETRY_MS,
} from '../../src/controlplane/settled-gc.js';
import { createDockerClient } from '../../src/providers/docker/docker-client.js';
import { ensureNodeImage } from '../../src/providers/docker/image/node-image.js';
import { type Figures, reportAgainstBaseline } from './baseline.js';
import { isolatedCliEnv } from './cli-env.js';
import { percentile, printTable } from './report.js';
import { benchLifecycle, printLifecycle } from './up-lifecycle.js';
import { benchPackage, printPackage } from './up-package.js';
import { buildCommit, type PreviousBuild } from './up-previous.js';
import { type TimeToK8s, timeToK8s } from './up-time-to-k8s.js';

/** BENCH_UP_ROUNDS=1 makes a quick smoke run of the benchmark itself. */
const ROUNDS = Number(process.env.BENCH_UP_ROUNDS ?? 5);
const NODE_COUNTS = [0, 1, 3] as const;
const repo = fileURLToPath(new URL('../..', import.meta.url));
const currentRunJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-up-'));
const env = isolatedCliEnv(dir);
const docker = createDockerClient();
/** Cluster names start with this (BENCH_UP_CLUSTER_PREFIX), so runs beside each other do not collide. */
const prefix = process.env.BENCH_UP_CLUSTER_PREFIX ?? 'bench';

interface Run {
  readonly wallMs: number;
  /** User + system CPU of the CLI process (and what it waited for), from /usr/bin/time. */
  readonly cliCpuMs: number;
  /** The time to the first progress line, and each step's from its start line to the next line. */
  readonly steps: { title: string; ms: number }[];
}

/** Runs the CLI under /usr/bin/time, timing each progress line on stderr as it arrives. */
async function tkube(runJs: string, args: string[]): Promise<Run> {
  const started = performance.now();
  const marks: { title: string; started: boolean; at: number }[] = [];
  let cpuLine = '';
  const child = execa('/usr/bin/time', ['-f', 'tkube-cpu %U %S', process.execPath, runJs, ...args], {
    env,
    reject: false,
  });
  let pending = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const at = performance.now();
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('tkube-cpu ')) cpuLine = line;
      else if (line.trim() !== '') marks.push({ title: stepTitle(line), started: line.startsWith('❯'), at });
    }
  });
  const result = await child;
  const ended = performance.now();
  if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
  const [, user, system] = cpuLine.split(' ');
  // A step runs from its `❯ title` line to the next line (its `✔ title`, or the next step's).
  const steps = [{ title: '(CLI start, to the first line)', ms: (marks[0]?.at ?? ended) - started }];
  marks.forEach((mark, i) => {
    if (mark.started) steps.push({ title: mark.title, ms: (marks[i + 1]?.at ?? ended) - mark.at });
  });
  return { wallMs: ended - started, cliCpuMs: (Number(user) + Number(system)) * 1000, steps };
}

/** A progress line without the renderer's status marks, so a step's lines group together. */
function stepTitle(line: string): string {
  // The port differs from run to run; the cluster name is the same for one build and node count.
  return line
    .replace(/^[\s✔✖❯›→◼↓-]*(\[[A-Z]+\]\s*)?/u, '')
    .replace(/port \d+/, 'port N')
    .trim();
}

function controlPlanePid(cluster: string): string {
  return readFileSync(join(env.TKUBE_HOME, 'clusters', cluster, 'controlplane.pid'), 'utf8').trim();
}

/** Resident memory of the control plane process, from its pid file. */
function controlPlaneRssMiB(cluster: string): number {
  const status = readFileSync(`/proc/${controlPlanePid(cluster)}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) / 1024;
}

/** CPU the control plane process has used so far (utime + stime of /proc/<pid>/stat). */
function controlPlaneCpuMs(cluster: string): number {
  const stat = readFileSync(`/proc/${controlPlanePid(cluster)}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5), counted from the state (field 3) here; clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Memory charged to each node container's cgroup (what `docker stats` shows). */
async function nodeMemoryMiB(cluster: string): Promise<number[]> {
  const containers = await docker.listContainers({ filters: { label: [`dev.tkube.cluster=${cluster}`] } });
  return Promise.all(
    containers.map(async (info) => {
      const stats = (await docker.getContainer(info.Id).stats({ stream: false })) as {
        memory_stats: { usage?: number; stats?: { cache?: number; total_inactive_file?: number } };
      };
      const usage = stats.memory_stats.usage ?? 0;
      const cache = stats.memory_stats.stats?.total_inactive_file ?? stats.memory_stats.stats?.cache ?? 0;
      return (usage - cache) / 1024 / 1024;
    }),
  );
}

interface Sample {
  version: number[];
  up: Record<number, Run[]>;
  upCpPlaneCpu: Record<number, number[]>;
  down: number[];
  rss: number[];
  node: number[];
}

const emptySample = (): Sample => ({
  version: [],
  up: { 0: [], 1: [], 3: [] },
  upCpPlaneCpu: { 0: [], 1: [], 3: [] },
  down: [],
  rss: [],
  node: [],
});

/** One round of every measure with one build. */
async function round(runJs: string, sample: Sample, label: string): Promise<void> {
  sample.version.push((await tkube(runJs, ['version'])).wallMs);
  for (const nodes of NODE_COUNTS) {
    const name = `${prefix}-${label}-${nodes}`;
    sample.up[nodes]!.push(await tkube(runJs, ['up', name, '--nodes', String(nodes)]));
    sample.upCpPlaneCpu[nodes]!.push(controlPlaneCpuMs(name));
    if (nodes === 3) {
      // Memory of the idle cluster: once leases and status reports settled and the control plane's
      // collection after start-up has run, its retries included (on a loaded machine the first one
      // may find allocation still brisk and keep the young generation; a later one shrinks it).
      const settled = SETTLED_GC_DELAY_MS + (SETTLED_GC_ATTEMPTS - 1) * SETTLED_GC_RETRY_MS;
      await new Promise((resolve) => setTimeout(resolve, settled + 2_000));
      sample.rss.push(controlPlaneRssMiB(name));
      sample.node.push(...(await nodeMemoryMiB(name)));
    }
    const down = await tkube(runJs, ['down', name]);
    if (nodes === 3) sample.down.push(down.wallMs);
  }
}

const median = (values: number[]) => percentile(values, 50);
const s = (value: number) => `${(value / 1000).toFixed(2)} s`;
const spread = (values: number[]) =>
  values.length === 0 ? '—' : `${s(median(values))} (${s(Math.min(...values))}–${s(Math.max(...values))})`;
const halfRange = (values: number[]) => (Math.max(...values) - Math.min(...values)) / 2;

let previous: PreviousBuild | undefined;
try {
  const head = (await execa('git', ['-C', repo, 'rev-parse', '--short', 'HEAD'])).stdout.trim();
  const previousRef = process.env.BENCH_UP_PREVIOUS ?? 'HEAD~1';
  if (previousRef !== 'none') previous = await buildCommit(repo, previousRef);
  const cold = await ensureNodeImage({ force: true, docker });
  const cached = await ensureNodeImage({ docker });

  const current = emptySample();
  const before = emptySample();
  // Alternating A/B rounds, so load from elsewhere on the machine hits both alike.
  for (let i = 0; i < ROUNDS; i++) {
    await round(currentRunJs, current, 'a');
    if (previous) await round(previous.runJs, before, 'b');
  }
  const toApp: TimeToK8s[] = [];
  for (let i = 0; i < Math.min(3, ROUNDS); i++) toApp.push(await timeToK8s(`${prefix}-app`, env));

  const lifecycle = await benchLifecycle(prefix, env, Math.min(3, ROUNDS));
  const packaged = await benchPackage(Math.min(3, ROUNDS));
  const title = `tkube up / down on Docker, cached node image (median and range of ${ROUNDS}, A/B alternating)`;
  const rows = (name: string, pick: (sample: Sample) => number[], goal: string) => [
    name,
    spread(pick(current)),
    previous ? spread(pick(before)) : '',
    goal,
  ];
  const walls = (nodes: number) => (sample: Sample) => sample.up[nodes]!.map((run) => run.wallMs);
  const cliCpu = (nodes: number) => (sample: Sample) => sample.up[nodes]!.map((run) => run.cliCpuMs);
  printTable(title, [
    ['measure', `this commit (${head})`, previous ? `previous (${previous.commit})` : '', 'goal'],
    rows('tkube version', (x) => x.version, '≤ 0.3 s'),
    rows('up, 0 nodes (control plane)', walls(0), '≤ 1 s'),
    rows('up, 1 node Ready', walls(1), '≤ 3 s'),
    rows('up, 3 nodes Ready', walls(3), '≤ 4 s'),
    rows('down, 3 nodes', (x) => x.down, '≤ 1.5 s'),
    rows('  CLI CPU, up 0 nodes', cliCpu(0), ''),
    rows('  CLI CPU, up 3 nodes', cliCpu(3), ''),
    rows('  control-plane CPU to up 0', (x) => x.upCpPlaneCpu[0]!, ''),
    rows('  control-plane CPU to up 3', (x) => x.upCpPlaneCpu[3]!, ''),
    [
      'control plane RSS, 3 idle nodes',
      `${median(current.rss).toFixed(0)} MiB`,
      previous ? `${median(before.rss).toFixed(0)} MiB` : '',
      '≤ 100 MiB',
    ],
    ['memory per node', `${median(current.node).toFixed(0)} MiB`, '', ''],
    ['node image build, cold', s(cold.durationMs), '', ''],
    ['node image, cached', s(cached.durationMs), '', ''],
  ]);
  for (const nodes of NODE_COUNTS) {
    const titles = [...new Set(current.up[nodes]!.flatMap((run) => run.steps.map((step) => step.title)))];
    printTable(`Steps of up --nodes ${nodes}, this commit (median and range)`, [
      ['progress line', 'time'],
      ...titles.map((stepName) => [
        stepName,
        spread(
          current.up[nodes]!.flatMap((run) => run.steps.filter((x) => x.title === stepName).map((x) => x.ms)),
        ),
      ]),
    ]);
  }
  printTable(`Time to a working app, 1 node (median and range of ${toApp.length})`, [
    ['measure', 'tkube', 'goal'],
    ['tkube up returned', spread(toApp.map((r) => r.upMs)), ''],
    ['  + busybox image loaded', spread(toApp.map((r) => r.loadedMs)), ''],
    ['  + Deployment answering via its Service by name', spread(toApp.map((r) => r.answeredMs)), '≤ 8 s'],
  ]);
  printLifecycle(lifecycle);
  printPackage(packaged);
  const figure = (values: number[], unit = 'ms') => ({
    value: median(values),
    unit,
    noise: halfRange(values),
  });
  const figures: Figures = {
    versionMs: figure(current.version),
    up0Ms: figure(walls(0)(current)),
    up1Ms: figure(walls(1)(current)),
    up3Ms: figure(walls(3)(current)),
    down3Ms: figure(current.down),
    controlPlaneRssMiB: figure(current.rss, 'MiB'),
    nodeMemoryMiB: figure(current.node, 'MiB'),
    timeToAppMs: figure(toApp.map((r) => r.answeredMs)),
  };
  reportAgainstBaseline('up', figures, head);
  console.log(
    JSON.stringify(Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Math.round(v.value)]))),
  );
} finally {
  await execa(process.execPath, [currentRunJs, 'down', '--all'], { env, reject: false });
  previous?.remove();
  rmSync(dir, { recursive: true, force: true });
}
