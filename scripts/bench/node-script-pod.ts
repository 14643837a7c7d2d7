// Shared by the network benchmarks (bench:dns, bench:network): load generators and servers run
// as pods with the node's own Node.js (the pod chroots into a read-only hostPath of the node's
// root), so busybox stays the only image; the cluster DNS load generator; CPU read from the node
// containers' cgroups.
import { execa } from 'execa';
import type { Pod } from '../../src/api/types/core-v1.generated.js';
import { sleep } from '../../src/client/informers/index.js';
import { PODS } from '../../src/client/resources.js';
import type { Client } from '../../src/client/types.js';

/**
 * The HTTP load generator: argv is host, port, seconds, concurrency and optionally a Host header
 * and `keep-alive`. By default a new connection per request (agent: false), so each one passes
 * the proxy's DNAT; with `keep-alive`, `concurrency` connections each carry one request after
 * another, as wrk and hey load a server. Prints `RESULT {ok, errors, rps, p50, p99, clientCpuSeconds}`.
 */
export const HTTP_LOAD_SCRIPT = `
const http = require('node:http');
const [host, port, seconds, concurrency] = process.argv.slice(1).map((v, i) => i === 0 ? v : Number(v));
const headers = process.argv[5] ? { host: process.argv[5] } : {};
const agent = process.argv[6] === 'keep-alive' ? new http.Agent({ keepAlive: true, maxSockets: concurrency }) : false;
const latencies = []; let ok = 0; let errors = 0; let stopped = false; let active = concurrency;
const cpu = process.cpuUsage(); const start = performance.now();
function pct(sorted, p) { return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)] : NaN; }
function finish() {
  if (--active > 0) return;
  const elapsed = (performance.now() - start) / 1000; const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  console.log('RESULT ' + JSON.stringify({ ok, errors, rps: ok / elapsed, p50: pct(latencies, 50), p99: pct(latencies, 99), clientCpuSeconds: (used.user + used.system) / 1e6 }));
}
function one() {
  if (stopped) return finish();
  const at = performance.now();
  const request = http.get({ host, port, path: '/', agent, headers }, (res) => {
    res.resume();
    res.on('end', () => { if (res.statusCode === 200) { ok++; latencies.push(performance.now() - at); } else errors++; one(); });
  });
  request.on('error', () => { errors++; setTimeout(one, 10); });
}
for (let i = 0; i < concurrency; i++) one();
setTimeout(() => { stopped = true; }, seconds * 1000);
`;

/** HTTP_LOAD_SCRIPT's result. */
export interface HttpLoadResult {
  readonly ok: number;
  readonly errors: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly clientCpuSeconds: number;
}

/** The HTTP backend's script: answers every request with `ok` on port 8080. */
const HTTP_SERVER_SCRIPT = `require('node:http').createServer((req, res) => res.end('ok\\n')).listen(8080);`;

/** The HTTP backend as a pod on `node` (labelled `app: <name>`), its port named `http`, ready once it listens. */
export function httpBackendPod(name: string, image: string, node: string): Pod {
  const backend = nodeScriptPod(name, image, HTTP_SERVER_SCRIPT, [], { nodeName: node });
  backend.spec!.restartPolicy = 'Always';
  backend.spec!.containers[0]!.ports = [{ name: 'http', containerPort: 8080 }];
  backend.spec!.containers[0]!.readinessProbe = { tcpSocket: { port: 8080 }, periodSeconds: 1 };
  return backend;
}

/**
 * The DNS load generator: argv is the server, the service count, the in-flight limit and seconds
 * of the closed loop, the rate and seconds of the open loop. It asks A records of
 * `svc-<i>.default.svc.cluster.local` and prints one `RESULT {max, steady}` line. Self-contained:
 * it encodes its queries by hand.
 */
export const DNS_LOAD_SCRIPT = `
const dgram = require('node:dgram');
const [server, count, inFlight, maxSeconds, rate, steadySeconds] = process.argv.slice(1).map((v, i) => i === 0 ? v : Number(v));
function query(id, name) {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
  const header = Buffer.alloc(12); header.writeUInt16BE(id, 0); header.writeUInt16BE(0x0100, 2); header.writeUInt16BE(1, 4);
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}
const queries = Array.from({ length: 65536 }, (_, id) => query(id, 'svc-' + (id % count) + '.default.svc.cluster.local'));
function pct(sorted, p) { return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)] : NaN; }
function phase(kind) {
  return new Promise((resolve) => {
    const socket = dgram.createSocket({ type: 'udp4', recvBufferSize: 4 << 20, sendBufferSize: 4 << 20 });
    const sentAt = new Float64Array(65536).fill(-1);
    const latencies = []; let sent = 0; let answered = 0; let errors = 0; let next = 0; let stopped = false;
    const start = performance.now();
    const seconds = kind === 'max' ? maxSeconds : steadySeconds;
    const send = () => { const id = next; next = (next + 1) & 0xffff; sentAt[id] = performance.now(); sent++; socket.send(queries[id], 53, server); };
    socket.on('message', (m) => {
      const id = m.readUInt16BE(0); const at = sentAt[id]; if (at < 0) return;
      sentAt[id] = -1; answered++; latencies.push(performance.now() - at);
      if ((m.readUInt16BE(2) & 0xf) !== 0) errors++;
      if (kind === 'max' && !stopped) send();
    });
    if (kind === 'max') { for (let i = 0; i < inFlight; i++) send(); }
    else {
      const tick = () => { if (stopped) return; const due = Math.floor((performance.now() - start) / 1000 * rate); while (sent < due) send(); setTimeout(tick, 1); };
      tick();
    }
    setTimeout(() => { stopped = true; const elapsed = (performance.now() - start) / 1000;
      setTimeout(() => { socket.close(); latencies.sort((a, b) => a - b);
        resolve({ sent, answered, errors, qps: answered / elapsed, p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies[latencies.length - 1] });
      }, 500);
    }, seconds * 1000);
  });
}
(async () => { const max = await phase('max'); const steady = await phase('steady'); console.log('RESULT ' + JSON.stringify({ max, steady })); })();
`;

export interface DnsPhaseResult {
  readonly sent: number;
  readonly answered: number;
  readonly errors: number;
  readonly qps: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface DnsLoadResult {
  readonly max: DnsPhaseResult;
  readonly steady: DnsPhaseResult;
}

/** A pod on `node` (any node when undefined) running `script` with the node's Node.js. */
export function nodeScriptPod(
  name: string,
  image: string,
  script: string,
  args: readonly string[],
  extra: Partial<NonNullable<Pod['spec']>> = {},
): Pod {
  return {
    metadata: { name, namespace: 'default', labels: { app: name } },
    spec: {
      restartPolicy: 'Never',
      ...extra,
      volumes: [{ name: 'node-root', hostPath: { path: '/', type: 'Directory' } }],
      containers: [
        {
          name: 'main',
          image,
          imagePullPolicy: 'Never',
          command: ['chroot', '/host', '/usr/local/bin/node', '-e', script, ...args],
          volumeMounts: [{ name: 'node-root', mountPath: '/host', readOnly: true }],
        },
      ],
    },
  };
}

/**
 * Creates `pod`, waits for it to end, and returns the JSON of its `RESULT ` log line (the pod is
 * deleted afterwards). `context` is the kubeconfig context kubectl reads the log with.
 */
export async function runToResult<T>(
  client: Client,
  pod: Pod,
  kubectlEnv: Record<string, string | undefined>,
  context: string,
  timeoutMs = 180_000,
): Promise<T> {
  const pods = client.resource<Pod>(PODS);
  const name = pod.metadata!.name!;
  await pods.create(pod);
  const deadline = Date.now() + timeoutMs;
  let phase = '';
  while (Date.now() < deadline) {
    phase = (await pods.get('default', name)).status?.phase ?? '';
    if (phase === 'Succeeded' || phase === 'Failed') break;
    await sleep(500);
  }
  const ended = await pods.get('default', name);
  const logs = await execa('kubectl', ['--context', context, 'logs', name], {
    env: kubectlEnv,
    reject: false,
  });
  await pods.delete('default', name);
  const line = logs.stdout.split('\n').find((text) => text.startsWith('RESULT '));
  if (phase !== 'Succeeded' || !line)
    throw new Error(
      `pod ${name} ended ${phase}: ${logs.stdout} ${logs.stderr} ${JSON.stringify(ended.status?.containerStatuses?.[0]?.state)}`,
    );
  return JSON.parse(line.slice('RESULT '.length)) as T;
}

/**
 * CPU seconds used so far by `containers` together, from each one's own cgroup: cgroup v1's
 * cpuacct.usage (nanoseconds) or v2's cpu.stat usage_usec, whichever the container sees.
 */
export async function containerCpuSeconds(containers: readonly string[]): Promise<number> {
  const usages = await Promise.all(
    containers.map(async (container) => {
      const result = await execa(
        'docker',
        [
          'exec',
          container,
          'sh',
          '-c',
          'cat /sys/fs/cgroup/cpuacct/cpuacct.usage 2>/dev/null || cat /sys/fs/cgroup/cpu.stat',
        ],
        { reject: false },
      );
      const v2 = /^usage_usec (\d+)/m.exec(result.stdout);
      return v2 ? Number(v2[1]) / 1e6 : Number(result.stdout.trim()) / 1e9;
    }),
  );
  return usages.reduce((sum, value) => sum + value, 0);
}
