// Streaming benchmark: `npm run bench:stream` (builds first). A real `tkube up --nodes 1` and
// busybox pods: exec round trips over the v5 WebSocket protocol kubectl 1.33 speaks (a whole exec
// of `true`, connect to exit status; and a line echoed by `cat` within one session), and port
// forwarding throughput through the apiserver (kubectl 1.33's SPDY-in-WebSocket tunnel and kubectl
// 1.28's SPDY) against a direct TCP copy from the same server software on the node's network
// (a hostNetwork pod), in the same run. Goals (issue 23): exec p99 ≤ 50 ms, forwarding ≥ 50 % of
// the direct copy. CPU: the control plane process's, per exec and per GiB forwarded.
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
import { percentile, printTable } from './report.js';

const EXECS = 200;
const ECHOES = 500;
const BLOB_MIB = 128;
const DOWNLOADS = 3;
const DIRECT_PORT = 18_080;
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-stream-'));
const env = {
  ...process.env,
  TKUBE_HOME: join(dir, 'home'),
  KUBECONFIG: join(dir, 'kubeconfig'),
  CI: 'true',
};
const cluster = 'ws-bench';
const IMAGE = 'tkube-test/busybox:stream-bench';

async function tkube(args: string[]): Promise<void> {
  const result = await execa(process.execPath, [runJs, ...args], { env, reject: false });
  if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
}

/** The control plane's CPU time so far, in seconds (utime + stime of its process). */
function controlPlaneCpuSeconds(): number {
  const pid = readFileSync(join(env.TKUBE_HOME, 'clusters', cluster, 'controlplane.pid'), 'utf8').trim();
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Connection {
  readonly url: string;
  readonly tls: { ca?: Buffer; cert?: Buffer; key?: Buffer };
}

async function connection(): Promise<Connection> {
  const config = new KubeConfig();
  config.loadFromFile(env.KUBECONFIG);
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

/** Median MB/s of DOWNLOADS through `kubectl port-forward` with `binary`, and the control plane's CPU s per GiB. */
async function forwardedRate(binary: string, port: number): Promise<{ rate: number[]; cpuPerGiB: number }> {
  const forward = execa(binary, ['port-forward', 'pod/blob', `${port}:8080`], { env, reject: false });
  await new Promise<void>((resolve, reject) => {
    forward.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Forwarding from')) resolve();
    });
    void forward.then((result) => reject(new Error(`port-forward ended: ${result.stderr}`)));
  });
  try {
    const cpu = controlPlaneCpuSeconds();
    const rate: number[] = [];
    for (let i = 0; i < DOWNLOADS; i++) rate.push(await downloadRate(port));
    const gib = (DOWNLOADS * BLOB_MIB) / 1024;
    return { rate, cpuPerGiB: (controlPlaneCpuSeconds() - cpu) / gib };
  } finally {
    forward.kill();
    await forward;
  }
}

const median = (values: number[]) => percentile(values, 50);
const range = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;

try {
  console.error('stream bench: building the image and starting the cluster');
  await buildBusyboxImage(IMAGE);
  await tkube(['up', cluster, '--nodes', '1']);
  console.error('stream bench: cluster up');
  await tkube(['load', 'image', IMAGE, '--name', cluster]);
  const client = clientFromKubeconfig(env.KUBECONFIG, undefined, 'bench');
  const [node] = (await client.resource<Node>(NODES).list('')).items;
  const nodeIP = node!.status!.addresses!.find((address) => address.type === 'InternalIP')!.address;
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
  console.error('stream bench: pods running');
  await sleep(3_000); // the 128 MiB files are written before httpd listens.

  const conn = await connection();
  console.error(`stream bench: ${EXECS} execs`);
  for (let i = 0; i < 10; i++) await execOnce(conn); // warm-up
  const execCpu = controlPlaneCpuSeconds();
  const execTimes: number[] = [];
  for (let i = 0; i < EXECS; i++) execTimes.push(await execOnce(conn));
  const cpuPerExec = ((controlPlaneCpuSeconds() - execCpu) / EXECS) * 1000;
  const echoTimes = await echoes(conn, ECHOES);

  console.error('stream bench: port forwarding');
  const direct: number[] = [];
  for (let i = 0; i < DOWNLOADS; i++) direct.push(await downloadRate(DIRECT_PORT, nodeIP));
  const tunnelled = await forwardedRate('kubectl', 18_091);
  const spdy = await forwardedRate(kubectl128(), 18_092);

  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const share = (values: number[]) => `${((median(values) / median(direct)) * 100).toFixed(0)} %`;
  printTable('Exec over WebSockets (v5.channel.k8s.io, translated to SPDY in the apiserver)', [
    ['measure', 'p50', 'p99', 'max', 'goal'],
    [
      `whole exec of \`true\` (${EXECS})`,
      ms(percentile(execTimes, 50)),
      ms(percentile(execTimes, 99)),
      ms(Math.max(...execTimes)),
      'p99 ≤ 50 ms',
    ],
    [
      `stdin→stdout echo in one session (${ECHOES})`,
      ms(percentile(echoTimes, 50)),
      ms(percentile(echoTimes, 99)),
      ms(Math.max(...echoTimes)),
      '',
    ],
    ['control plane CPU per exec', `${cpuPerExec.toFixed(2)} ms`, '', '', ''],
  ]);
  printTable(`Port forwarding, ${DOWNLOADS} × ${BLOB_MIB} MiB from busybox httpd`, [
    ['path', 'MB/s median', 'range', 'of direct', 'CP CPU s/GiB', 'goal'],
    ['direct TCP (hostNetwork pod)', median(direct).toFixed(0), range(direct), '100 %', '', ''],
    [
      'kubectl 1.33 (SPDY in WebSocket)',
      median(tunnelled.rate).toFixed(0),
      range(tunnelled.rate),
      share(tunnelled.rate),
      tunnelled.cpuPerGiB.toFixed(2),
      '≥ 50 %',
    ],
    [
      'kubectl 1.28 (SPDY)',
      median(spdy.rate).toFixed(0),
      range(spdy.rate),
      share(spdy.rate),
      spdy.cpuPerGiB.toFixed(2),
      '≥ 50 %',
    ],
  ]);
  console.log(
    JSON.stringify({
      execP50Ms: Number(percentile(execTimes, 50).toFixed(2)),
      execP99Ms: Number(percentile(execTimes, 99).toFixed(2)),
      echoP99Ms: Number(percentile(echoTimes, 99).toFixed(2)),
      directMBps: Math.round(median(direct)),
      websocketMBps: Math.round(median(tunnelled.rate)),
      spdyMBps: Math.round(median(spdy.rate)),
    }),
  );
} finally {
  await execa(process.execPath, [runJs, 'down', cluster], { env, reject: false });
  rmSync(dir, { recursive: true, force: true });
}
