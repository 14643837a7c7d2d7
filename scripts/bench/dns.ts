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
import type { Node, Service } from '../../src/api/types/core-v1.generated.js';
import { NODES, SERVICES } from '../../src/client/resources.js';
import { clientFromKubeconfig } from '../../src/client/transports.js';
import { buildBusyboxImage } from '../../test/e2e/kubelet/pods-support.js';
import { isolatedCliEnv } from './cli-env.js';
import {
  DNS_LOAD_SCRIPT,
  type DnsLoadResult,
  type DnsPhaseResult,
  nodeScriptPod,
  runToResult,
} from './node-script-pod.js';
import { printTable } from './report.js';

const SERVICES_COUNT = 100;
const STEADY_RATE = 5_000;
const STEADY_SECONDS = 10;
const MAX_SECONDS = 5;
const IN_FLIGHT = 32;
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-dns-'));
const env = isolatedCliEnv(dir);
const cluster = process.env.TKUBE_BENCH_CLUSTER ?? 'dn-bench';
/** A tag of its own: other suites on this Docker rebuild the shared one with their own applets. */
const IMAGE = 'tkube-test/busybox:dns-bench';

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
  const { max, steady } = await runToResult<DnsLoadResult>(
    client,
    nodeScriptPod('dns-load', IMAGE, DNS_LOAD_SCRIPT, [
      server,
      ...[SERVICES_COUNT, IN_FLIGHT, MAX_SECONDS, STEADY_RATE, STEADY_SECONDS].map(String),
    ]),
    env,
    `tkube-${cluster}`,
    120_000,
  );
  await client.close();
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const lost = (result: DnsPhaseResult) =>
    `${result.sent - result.answered} lost, ${result.errors} not NOERROR`;
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
