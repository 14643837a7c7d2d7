// Streaming benchmark: `npm run bench:stream` (builds first). A real `tkube up --nodes 1` and
// busybox pods: exec round trips over the v5 WebSocket protocol kubectl 1.33 speaks (a whole exec
// of `true`, connect to exit status; and a line echoed by `cat` within one session), and port
// forwarding throughput through the apiserver (kubectl 1.33's SPDY-in-WebSocket tunnel and kubectl
// 1.28's SPDY) against a direct TCP copy from the same server software on the node's network
// (a hostNetwork pod), in the same run. Goals (issue 23): exec p99 ≤ 50 ms, forwarding ≥ 50 % of
// the direct copy. CPU: the control plane process's, per exec and per GiB forwarded. The floor
// under an exec is measured too: `runc exec` run inside the node. With STREAM_BENCH_BASELINE set
// to another build's directory, a cluster of each build is up at once and the rounds alternate
// between them (A/B in one run, under the same load).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { execa } from 'execa';
import WebSocket from 'ws';
import type { Node, Pod } from '../../src/api/types/core-v1.generated.js';
import { NODES, PODS } from '../../src/client/resources.js';
import { clientFromKubeconfig } from '../../src/client/transports.js';
import { kubectl128 } from '../../test/e2e/exec/exec-support.js';
import { buildBusyboxImage } from '../../test/e2e/kubelet/pods-support.js';
import { isolatedCliEnv } from './cli-env.js';
import { benchMetricsScrape, METRICS_SCRAPE_HEADER, METRICS_SCRAPE_TITLE } from './metrics-scrape.js';
import { percentile, printTable } from './report.js';

const EXECS = 200;
const ECHOES = 500;
const BLOB_MIB = 128;
const DOWNLOADS = 4;
/** Measurements alternate between the builds in this many rounds, so load from others hits both alike. */
const ROUNDS = 4;
const DIRECT_PORT = 18_080;
const FLOOR_EXECS = 50;
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-stream-'));
const IMAGE = 'tkube-test/busybox:stream-bench';
/** STREAM_BENCH_BASELINE: a directory holding another build (its bin/ and dist/) to measure beside this one. */
const baselineDir = process.env.STREAM_BENCH_BASELINE;
const clusterPrefix = process.env.STREAM_BENCH_CLUSTER ?? 'st-bench';

/** One build under test: its CLI, its cluster and what the measurements need of it. */
interface Target {
  readonly label: string;
  readonly runJs: string;
  readonly cluster: string;
  readonly env: NodeJS.ProcessEnv;
  readonly forwardPorts: readonly [number, number];
  conn?: Connection;
  nodeIP?: string;
  execTimes: number[];
  echoTimes: number[];
  pids?: HopPids;
  /** The pids of the two `kubectl port-forward`s (1.33, 1.28). */
  forwardPids: number[];
  execCpu: HopCpu;
  direct: number[];
  websocket: number[];
  spdy: number[];
  websocketCpu: HopCpu;
  spdyCpu: HopCpu;
}

function target(label: string, cli: string, index: number): Target {
  const home = join(dir, label);
  return {
    label,
    runJs: cli,
    cluster: `${clusterPrefix}-${label}`,
    env: isolatedCliEnv(home),
    forwardPorts: [18_091 + index * 2, 18_092 + index * 2],
    execTimes: [],
    echoTimes: [],
    forwardPids: [],
    execCpu: noHopCpu(),
    direct: [],
    websocket: [],
    spdy: [],
    websocketCpu: noHopCpu(),
    spdyCpu: noHopCpu(),
  };
}

async function tkube(t: Target, args: string[]): Promise<void> {
  const result = await execa(process.execPath, [t.runJs, ...args], { env: t.env, reject: false });
  if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
}

/** A process's CPU time so far, in seconds (utime + stime); 0 once it is gone. */
function processCpuSeconds(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The processes whose CPU time is counted per hop: their host pids (the node's seen through `docker top`). */
interface HopPids {
  controlPlane: string;
  agent?: string;
  containerd?: string;
  kubectl: number[];
}

type HopCpu = Record<'controlPlane' | 'agent' | 'containerd' | 'kubectl', number>;

function hopCpuSeconds(pids: HopPids): HopCpu {
  return {
    controlPlane: processCpuSeconds(pids.controlPlane),
    agent: pids.agent ? processCpuSeconds(pids.agent) : 0,
    containerd: pids.containerd ? processCpuSeconds(pids.containerd) : 0,
    kubectl: pids.kubectl.reduce((sum, pid) => sum + processCpuSeconds(pid), 0),
  };
}

function hopCpuSince(pids: HopPids, before: HopCpu): HopCpu {
  const now = hopCpuSeconds(pids);
  return {
    controlPlane: now.controlPlane - before.controlPlane,
    agent: now.agent - before.agent,
    containerd: now.containerd - before.containerd,
    kubectl: now.kubectl - before.kubectl,
  };
}

function addHopCpu(total: HopCpu, more: HopCpu): void {
  for (const key of Object.keys(total) as (keyof HopCpu)[]) total[key] += more[key];
}

const noHopCpu = (): HopCpu => ({ controlPlane: 0, agent: 0, containerd: 0, kubectl: 0 });

/** The node's agent and containerd, by their host pids (the host's /proc shows a node's processes). */
async function nodePids(t: Target): Promise<Pick<HopPids, 'agent' | 'containerd'>> {
  const { stdout } = await execa('docker', ['top', `${t.cluster}-node-0`, '-eo', 'pid,args']);
  const pidOf = (pattern: RegExp) =>
    stdout
      .split('\n')
      .find((line) => pattern.test(line))
      ?.trim()
      .split(/\s+/)[0];
  return { agent: pidOf(/node \S*agent\.mjs/), containerd: pidOf(/\scontainerd --config/) };
}

interface Connection {
  readonly url: string;
  readonly tls: { ca?: Buffer; cert?: Buffer; key?: Buffer };
}

async function connection(t: Target): Promise<Connection> {
  const config = new KubeConfig();
  config.loadFromFile(t.env.KUBECONFIG!);
  const tls: Connection['tls'] = {};
  await config.applyToHTTPSOptions(tls);
  return { url: config.getCurrentCluster()!.server.replace(/^https/, 'wss'), tls };
}

function execUrl(base: string, command: string[], stdin: boolean): string {
  const query = new URLSearchParams({ stdout: 'true', stderr: 'true', stdin: String(stdin) });
  for (const word of command) query.append('command', word);
  return `${base}/api/v1/namespaces/default/pods/shell/exec?${query}`;
}

/** One whole exec of `true`: connect, then the Success status on the error channel and the close. */
function execOnce(conn: Connection): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(execUrl(conn.url, ['true'], false), ['v5.channel.k8s.io'], conn.tls);
    let status = '';
    ws.on('message', (data: Buffer) => {
      if (data[0] === 3) status += data.subarray(1).toString();
    });
    ws.on('close', () =>
      status.includes('"Success"')
        ? resolve(performance.now() - started)
        : reject(new Error(`exec: ${status}`)),
    );
    ws.on('error', reject);
  });
}

/** Lines echoed by `cat` in one session: each round trip's milliseconds. */
function echoes(conn: Connection, count: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(execUrl(conn.url, ['cat'], true), ['v5.channel.k8s.io'], conn.tls);
    const times: number[] = [];
    let sentAt = 0;
    const send = () => {
      sentAt = performance.now();
      ws.send(Buffer.concat([Buffer.of(0), Buffer.from(`line ${times.length}\n`)]));
    };
    ws.on('open', send);
    ws.on('message', (data: Buffer) => {
      if (data[0] !== 1 || data.length === 1) return;
      times.push(performance.now() - sentAt);
      if (times.length < count) send();
      else {
        ws.send(Buffer.of(255, 0));
        resolve(times);
      }
    });
    ws.on('error', reject);
  });
}

/** Downloads /blob from the port: MB/s (10^6 bytes). */
function downloadRate(port: number, host = '127.0.0.1'): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request({ host, port, path: '/blob', agent: false }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on('end', () => {
        if (bytes !== BLOB_MIB * 1024 * 1024) reject(new Error(`got ${bytes} bytes`));
        else resolve(bytes / 1e6 / ((performance.now() - started) / 1000));
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A running `kubectl port-forward` of pod/blob's 8080 to `port`: its pid and its stop function. */
async function startForward(
  binary: string,
  port: number,
  env: NodeJS.ProcessEnv,
): Promise<{ pid: number; stop: () => Promise<void> }> {
  const forward = execa(binary, ['port-forward', 'pod/blob', `${port}:8080`], { env, reject: false });
  await new Promise<void>((resolve, reject) => {
    forward.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Forwarding from')) resolve();
    });
    void forward.then((result) => reject(new Error(`port-forward ended: ${result.stderr}`)));
  });
  return {
    pid: forward.pid!,
    stop: async () => {
      forward.kill();
      await forward;
    },
  };
}

/** One download through the forward of `kubectlPid`: its MB/s and each hop's CPU seconds meanwhile. */
async function forwardedDownload(
  t: Target,
  port: number,
  kubectlPid: number,
): Promise<{ rate: number; cpu: HopCpu }> {
  const pids = { ...t.pids!, kubectl: [kubectlPid] };
  const before = hopCpuSeconds(pids);
  const rate = await downloadRate(port);
  return { rate, cpu: hopCpuSince(pids, before) };
}

/**
 * The floor under an exec: `runc exec` of `true` in the shell pod's container, run inside the
 * node (what containerd's shim runs for CRI Exec), without any of tkube's hops. Milliseconds.
 */
async function runcExecFloor(t: Target): Promise<number[]> {
  const client = clientFromKubeconfig(t.env.KUBECONFIG!, undefined, 'bench');
  const pod = await client.resource<Pod>(PODS).get('default', 'shell');
  await client.close();
  const id = pod.status!.containerStatuses![0]!.containerID!.replace(/^[a-z]+:\/\//, '');
  const script = [
    "const { spawnSync } = require('node:child_process');",
    'const times = [];',
    `for (let i = 0; i < ${FLOOR_EXECS}; i++) {`,
    '  const started = process.hrtime.bigint();',
    `  const r = spawnSync('runc', ['--root', '/run/containerd/runc/k8s.io', 'exec', '${id}', 'true']);`,
    "  if (r.status !== 0) throw new Error('runc exec: ' + r.stderr);",
    '  times.push(Number(process.hrtime.bigint() - started) / 1e6);',
    '}',
    'console.log(JSON.stringify(times));',
  ].join('\n');
  const result = await execa('docker', ['exec', `${t.cluster}-node-0`, 'node', '-e', script]);
  return JSON.parse(result.stdout) as number[];
}

const median = (values: number[]) => percentile(values, 50);
const range = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** A cluster with the busybox pods: `shell`, `blob` (httpd on 8080) and `blob-direct` (host network). */
async function setUp(t: Target): Promise<void> {
  await tkube(t, ['up', t.cluster, '--nodes', '1']);
  await tkube(t, ['load', 'image', IMAGE, '--name', t.cluster]);
  const client = clientFromKubeconfig(t.env.KUBECONFIG!, undefined, 'bench');
  const [node] = (await client.resource<Node>(NODES).list('')).items;
  t.nodeIP = node!.status!.addresses!.find((address) => address.type === 'InternalIP')!.address;
  const pods = client.resource<Pod>(PODS);
  const serve = `busybox dd if=/dev/urandom of=/tmp/blob bs=1048576 count=${BLOB_MIB} 2>/dev/null && httpd -f -p`;
  const pod = (name: string, command: string, hostNetwork = false): Pod => ({
    metadata: { name, namespace: 'default' },
    spec: {
      hostNetwork,
      containers: [{ name: 'main', image: IMAGE, imagePullPolicy: 'Never', command: ['sh', '-c', command] }],
    },
  });
  await pods.create(pod('shell', 'sleep 36000'));
  await pods.create(pod('blob', `${serve} 8080 -h /tmp`));
  await pods.create(pod('blob-direct', `${serve} ${DIRECT_PORT} -h /tmp`, true));
  for (const name of ['shell', 'blob', 'blob-direct']) {
    for (let i = 0; (await pods.get('default', name)).status?.phase !== 'Running'; i++) {
      if (i > 240) throw new Error(`pod ${name} did not start`);
      await sleep(500);
    }
  }
  await client.close();
  t.conn = await connection(t);
  t.pids = {
    controlPlane: readFileSync(
      join(t.env.TKUBE_HOME!, 'clusters', t.cluster, 'controlplane.pid'),
      'utf8',
    ).trim(),
    ...(await nodePids(t)),
    kubectl: [],
  };
  console.error(`stream bench: ${t.label} ready`);
}

/** One round's share of the measurements on `t`. */
async function measureRound(t: Target): Promise<void> {
  const conn = t.conn!;
  const before = hopCpuSeconds(t.pids!);
  for (let i = 0; i < EXECS / ROUNDS; i++) t.execTimes.push(await execOnce(conn));
  addHopCpu(t.execCpu, hopCpuSince(t.pids!, before));
  t.echoTimes.push(...(await echoes(conn, ECHOES / ROUNDS)));
  for (let i = 0; i < DOWNLOADS / ROUNDS; i++) {
    t.direct.push(await downloadRate(DIRECT_PORT, t.nodeIP));
    const ws = await forwardedDownload(t, t.forwardPorts[0], t.forwardPids[0]!);
    t.websocket.push(ws.rate);
    addHopCpu(t.websocketCpu, ws.cpu);
    const spdy = await forwardedDownload(t, t.forwardPorts[1], t.forwardPids[1]!);
    t.spdy.push(spdy.rate);
    addHopCpu(t.spdyCpu, spdy.cpu);
  }
}

const ALL_HOPS: readonly (keyof HopCpu)[] = ['controlPlane', 'agent', 'containerd', 'kubectl'];

/** CPU time of each of `hops` per unit of work, joined by ' / ' (seconds × `scale`). */
function perUnit(cpu: HopCpu, units: number, scale = 1, hops = ALL_HOPS): string {
  return hops.map((hop) => ((cpu[hop] / units) * scale).toFixed(2)).join(' / ');
}

function report(t: Target): void {
  const gib = (DOWNLOADS * BLOB_MIB) / 1024;
  const share = (values: number[]) => `${((median(values) / median(t.direct)) * 100).toFixed(0)} %`;
  printTable(`[${t.label}] Exec over WebSockets (v5.channel.k8s.io, translated to SPDY in the apiserver)`, [
    ['measure', 'p50', 'p99', 'max', 'goal'],
    [
      `whole exec of \`true\` (${EXECS})`,
      ms(percentile(t.execTimes, 50)),
      ms(percentile(t.execTimes, 99)),
      ms(Math.max(...t.execTimes)),
      'p99 ≤ 50 ms',
    ],
    [
      `stdin→stdout echo in one session (${ECHOES})`,
      ms(percentile(t.echoTimes, 50)),
      ms(percentile(t.echoTimes, 99)),
      ms(Math.max(...t.echoTimes)),
      '',
    ],
    [
      'CPU ms per exec: control plane / agent / containerd',
      perUnit(t.execCpu, EXECS, 1000, ['controlPlane', 'agent', 'containerd']),
      '',
      '',
      '',
    ],
  ]);
  printTable(`[${t.label}] Port forwarding, ${DOWNLOADS} × ${BLOB_MIB} MiB from busybox httpd`, [
    ['path', 'MB/s median', 'range', 'of direct', 'CPU s/GiB: CP / agent / containerd / kubectl', 'goal'],
    ['direct TCP (hostNetwork pod)', median(t.direct).toFixed(0), range(t.direct), '100 %', '', ''],
    [
      'kubectl 1.33 (SPDY in WebSocket)',
      median(t.websocket).toFixed(0),
      range(t.websocket),
      share(t.websocket),
      perUnit(t.websocketCpu, gib),
      '≥ 50 %',
    ],
    [
      'kubectl 1.28 (SPDY)',
      median(t.spdy).toFixed(0),
      range(t.spdy),
      share(t.spdy),
      perUnit(t.spdyCpu, gib),
      '≥ 50 %',
    ],
  ]);
}

const targets = [target('b', runJs, 0)];
if (baselineDir) targets.unshift(target('a', join(baselineDir, 'bin', 'run.js'), 1));
const stops: (() => Promise<void>)[] = [];
try {
  console.error(`stream bench: building the image and starting ${targets.length} cluster(s)`);
  await buildBusyboxImage(IMAGE);
  await Promise.all(targets.map(setUp));
  await sleep(3_000); // the 128 MiB files are written before httpd listens.
  for (const t of targets) {
    for (const [index, binary] of ['kubectl', kubectl128()].entries()) {
      const forward = await startForward(binary, t.forwardPorts[index]!, t.env);
      stops.push(forward.stop);
      t.forwardPids.push(forward.pid);
    }
    for (let i = 0; i < 10; i++) await execOnce(t.conn!); // warm-up
  }
  for (let round = 0; round < ROUNDS; round++) {
    console.error(`stream bench: round ${round + 1} of ${ROUNDS}`);
    // The order flips every round, so neither build always goes first.
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) await measureRound(t);
  }
  const floor = await runcExecFloor(targets.at(-1)!);
  if (baselineDir) console.log(`\na = ${baselineDir}, b = this worktree; rounds alternate between them`);
  for (const t of targets) report(t);
  printTable('Floor: runc exec of `true` inside the node (no tkube hop, no containerd)', [
    ['measure', 'p50', 'p99', 'max'],
    [
      `runc exec (${FLOOR_EXECS})`,
      ms(percentile(floor, 50)),
      ms(percentile(floor, 99)),
      ms(Math.max(...floor)),
    ],
  ]);
  const t = targets.at(-1)!;
  console.log(
    JSON.stringify({
      execP50Ms: Number(percentile(t.execTimes, 50).toFixed(2)),
      execP99Ms: Number(percentile(t.execTimes, 99).toFixed(2)),
      echoP99Ms: Number(percentile(t.echoTimes, 99).toFixed(2)),
      runcExecP50Ms: Number(percentile(floor, 50).toFixed(2)),
      directMBps: Math.round(median(t.direct)),
      websocketMBps: Math.round(median(t.websocket)),
      spdyMBps: Math.round(median(t.spdy)),
    }),
  );
} finally {
  for (const stop of stops) await stop();
  for (const t of targets)
    await execa(process.execPath, [t.runJs, 'down', t.cluster], { env: t.env, reject: false });
  rmSync(dir, { recursive: true, force: true });
}
// The metrics server's CPU per node per scrape (issue 23), once the clusters are down.
printTable(METRICS_SCRAPE_TITLE, [METRICS_SCRAPE_HEADER, ...(await benchMetricsScrape())]);
