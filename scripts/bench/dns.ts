// Cluster DNS benchmark: `npm run bench:dns` (builds first). A real `tkube up --nodes 1`, 100
// services, and one pod asking the node's DNS server for them over UDP: first as fast as 32
// queries in flight allow (the most it answers), then at a steady 5,000 queries a second (the
// issue's goal: p99 ≤ 5 ms there). The load runs in the pod's own network namespace with the
// node's Node.js (the pod chroots into a read-only hostPath of the node's root), so busybox
// stays the only image. It asks the node's address; with DNS_BENCH_SERVER=cluster-ip it asks
// 10.96.0.10 instead (that needs the proxy's rules).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { CLUSTER_DNS_IP } from '../../src/api/cluster-dns.js';
import type { Node, Pod, Service } from '../../src/api/types/core-v1.generated.js';
import { sleep } from '../../src/client/informers/index.js';
import { NODES, PODS, SERVICES } from '../../src/client/resources.js';
import { clientFromKubeconfig } from '../../src/client/transports.js';
import { buildBusyboxImage } from '../../test/e2e/kubelet/pods-support.js';
import { printTable } from './report.js';

const SERVICES_COUNT = 100;
const STEADY_RATE = 5_000;
const STEADY_SECONDS = 10;
const MAX_SECONDS = 5;
const IN_FLIGHT = 32;
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-dns-'));
const env = {
  ...process.env,
  TKUBE_HOME: join(dir, 'home'),
  KUBECONFIG: join(dir, 'kubeconfig'),
  CI: 'true',
};
const cluster = 'dn-bench';
/** A tag of its own: other suites on this Docker rebuild the shared one with their own applets. */
const IMAGE = 'tkube-test/busybox:dns-bench';

/**
 * The load generator, run by the node's Node.js in the pod: argv is the server, the service
 * count, the in-flight limit and seconds of the closed loop, the rate and seconds of the open
 * loop. Prints one `RESULT {...}` line. Self-contained: it encodes its queries by hand.
 */
const LOAD_SCRIPT = `
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

interface PhaseResult {
  readonly sent: number;
  readonly answered: number;
  readonly errors: number;
  readonly qps: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

async function tkube(args: string[]): Promise<void> {
  const result = await execa(process.execPath, [runJs, ...args], { env, reject: false });
  if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
}

try {
  await buildBusyboxImage(IMAGE);
  await tkube(['up', cluster, '--nodes', '1']);
  await tkube(['load', 'image', IMAGE, '--name', cluster]);
  const client = clientFromKubeconfig(env.KUBECONFIG, undefined, 'bench');
  const [node] = (await client.resource<Node>(NODES).list('')).items;
  const nodeIP = node!.status!.addresses!.find((address) => address.type === 'InternalIP')!.address;
  const server = process.env.DNS_BENCH_SERVER === 'cluster-ip' ? CLUSTER_DNS_IP : nodeIP;
  const services = client.resource<Service>(SERVICES);
  await Promise.all(
    Array.from({ length: SERVICES_COUNT }, (_, i) =>
      services.create({
        metadata: { name: `svc-${i}`, namespace: 'default' },
        spec: { ports: [{ port: 80 }] },
      }),
    ),
  );
  const pods = client.resource<Pod>(PODS);
  await pods.create({
    metadata: { name: 'dns-load', namespace: 'default' },
    spec: {
      restartPolicy: 'Never',
      volumes: [{ name: 'node-root', hostPath: { path: '/', type: 'Directory' } }],
      containers: [
        {
          name: 'load',
          image: IMAGE,
          imagePullPolicy: 'Never',
          command: [
            'chroot',
            '/host',
            '/usr/local/bin/node',
            '-e',
            LOAD_SCRIPT,
            server,
            ...[SERVICES_COUNT, IN_FLIGHT, MAX_SECONDS, STEADY_RATE, STEADY_SECONDS].map(String),
          ],
          volumeMounts: [{ name: 'node-root', mountPath: '/host', readOnly: true }],
        },
      ],
    },
  });
  const deadline = Date.now() + 120_000;
  let phase = '';
  while (Date.now() < deadline) {
    phase = (await pods.get('default', 'dns-load')).status?.phase ?? '';
    if (phase === 'Succeeded' || phase === 'Failed') break;
    await sleep(500);
  }
  const ended = await pods.get('default', 'dns-load');
  const logs = await execa('kubectl', ['--context', `tkube-${cluster}`, 'logs', 'dns-load'], {
    env,
    reject: false,
  });
  await client.close();
  const line = logs.stdout.split('\n').find((text) => text.startsWith('RESULT '));
  if (phase !== 'Succeeded' || !line)
    throw new Error(
      `the load pod ended ${phase}: ${logs.stdout} ${logs.stderr} ${JSON.stringify(ended.status?.containerStatuses?.[0]?.state)}`,
    );
  const { max, steady } = JSON.parse(line.slice('RESULT '.length)) as {
    max: PhaseResult;
    steady: PhaseResult;
  };
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const lost = (result: PhaseResult) => `${result.sent - result.answered} lost, ${result.errors} not NOERROR`;
  printTable(`Cluster DNS from one pod (${SERVICES_COUNT} services, server ${server}, UDP)`, [
    ['measure', 'tkube', 'goal'],
    [`as fast as ${IN_FLIGHT} in flight allow: queries/s`, Math.round(max.qps).toString(), '≥ 5000'],
    ['  p50 / p99', `${ms(max.p50)} / ${ms(max.p99)}`, ''],
    ['  answers', lost(max), ''],
    [`steady ${STEADY_RATE}/s for ${STEADY_SECONDS} s: queries/s`, Math.round(steady.qps).toString(), ''],
    ['  p50 / p99', `${ms(steady.p50)} / ${ms(steady.p99)}`, 'p99 ≤ 5 ms'],
    ['  answers', lost(steady), ''],
  ]);
  console.log(
    JSON.stringify({
      maxQps: Math.round(max.qps),
      steadyQps: Math.round(steady.qps),
      steadyP50Ms: Number(steady.p50.toFixed(3)),
      steadyP99Ms: Number(steady.p99.toFixed(3)),
      lost: steady.sent - steady.answered,
    }),
  );
} finally {
  await execa(process.execPath, [runJs, 'down', cluster], { env, reject: false });
  rmSync(dir, { recursive: true, force: true });
}
