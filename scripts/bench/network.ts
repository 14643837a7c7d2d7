// Service networking benchmark: `npm run bench:network` (builds first). On a real `tkube up
// --nodes 3` it measures what kube-proxy's and CoreDNS's SLIs measure:
// - network programming latency: 100 services created (10 a second) with their endpoints, from
//   each create call until every node's iptables holds the service's KUBE-SVC jump (polled), and
//   kubeproxy_network_programming_duration_seconds from the agents (goal p99 ≤ 1 s);
// - the proxy's full and partial sync time with 1,000 services × 10 (fake) endpoints, from the
//   agents' kubeproxy_sync_{full,partial}_proxy_rules_duration_seconds (a partial sync per
//   EndpointSlice change; a full one per agent restart);
// - cluster DNS from one pod: the most queries/s and p50/p99 at a steady 5,000/s (bench:dns's
//   load generator; goal ≥ 5,000/s, p99 ≤ 5 ms), with the agent's CPU per query, and the query
//   path's CPU per query measured in this process (dns-handler.ts), which the machine's load
//   does not blur;
// - HTTP requests/s from a pod on one node to a backend on another through the service's
//   ClusterIP and straight to the pod IP, alternating, a new connection per request (goal:
//   within 10 %), with the nodes' CPU per request; and the same service through the ingress
//   against its ClusterIP (network-ingress.ts; goal ≥ 70 %);
// - the time a NetworkPolicy change takes to take effect (network-policy.ts; goal p99 ≤ 1 s).
// Load generators and the backend are the node's Node.js in pods (node-script-pod.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Node, Pod, Service } from '../../src/api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../src/api/types/discovery-v1.generated.js';
import { sleep } from '../../src/client/informers/index.js';
import { ENDPOINT_SLICES, NODES, PODS, SERVICES } from '../../src/client/resources.js';
import { clientFromKubeconfig } from '../../src/client/transports.js';
import { buildBusyboxImage, waitFor } from '../../test/e2e/kubelet/pods-support.js';
import { isolatedCliEnv } from './cli-env.js';
import { dnsHandlerCpuPerQuery } from './dns-handler.js';
import { runIngressBench } from './network-ingress.js';
import { policyChangeLatency, policyChangeRow } from './network-policy.js';
import {
  containerCpuSeconds,
  DNS_LOAD_SCRIPT,
  type DnsLoadResult,
  HTTP_LOAD_SCRIPT,
  type HttpLoadResult,
  httpBackendPod,
  nodeScriptPod,
  runToResult,
} from './node-script-pod.js';
import { percentile, printTable } from './report.js';

const PROGRAMMED_SERVICES = 100;
const CREATES_PER_SECOND = 10;
const SYNC_SERVICES = 1_000;
const SYNC_ENDPOINTS = 10;
const PARTIAL_SYNCS = 10;
const FULL_SYNC_ROUNDS = 2;
const HTTP_ROUNDS = 3;
const HTTP_SECONDS = 5;
const HTTP_CONCURRENCY = 8;
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-network-'));
const env = isolatedCliEnv(dir);
const cluster = process.env.TKUBE_BENCH_CLUSTER ?? 'net-bench';
const context = `tkube-${cluster}`;
/** A tag of its own: other suites on this Docker rebuild the shared one with their own applets. */
const IMAGE = 'tkube-test/busybox:net-bench';

async function tkube(args: string[]): Promise<void> {
  const result = await execa(process.execPath, [runJs, ...args], { env, reject: false });
  if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
}

/** The agent's /metrics of `node` (kubelet's and kube-proxy's), through the apiserver's nodes/proxy. */
async function nodeMetrics(node: string): Promise<string> {
  const result = await execa(
    'kubectl',
    ['--context', context, 'get', '--raw', `/api/v1/nodes/${node}/proxy/metrics`],
    { env, reject: false },
  );
  return result.exitCode === 0 ? result.stdout : '';
}

interface Histogram {
  readonly sum: number;
  readonly count: number;
  /** Upper bound → cumulative count. */
  readonly buckets: ReadonlyMap<number, number>;
}

function histogram(metrics: string, name: string): Histogram {
  const value = (suffix: string) =>
    Number(new RegExp(`^${name}_${suffix} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);
  const buckets = new Map<number, number>();
  for (const match of metrics.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm')))
    buckets.set(match[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(match[1]), Number(match[2]));
  return { sum: value('sum'), count: value('count'), buckets };
}

/** The upper bound of the bucket holding quantile `q` of the observations between two readings. */
function bucketQuantile(readings: readonly (readonly [Histogram, Histogram])[], q: number): number {
  const counts = new Map<number, number>();
  for (const [before, after] of readings)
    for (const [le, cumulative] of after.buckets)
      counts.set(le, (counts.get(le) ?? 0) + cumulative - (before.buckets.get(le) ?? 0));
  const bounds = [...counts.keys()].sort((a, b) => a - b);
  const total = counts.get(Number.POSITIVE_INFINITY) ?? 0;
  return bounds.find((le) => counts.get(le)! >= q * total) ?? Number.NaN;
}

/** The process id of the agent (node /opt/tkube/agent/agent.mjs) in `node`'s container. */
async function agentPid(node: string): Promise<string> {
  const result = await execa('docker', ['exec', node, 'ps', '-eo', 'pid,args'], { reject: false });
  const line = result.stdout.split('\n').find((text) => / node \/opt\/tkube\/agent\/agent\.mjs/.test(text));
  return line?.trim().split(/\s+/)[0] ?? '';
}

/** The agent process's CPU seconds on `node` (its utime + stime). */
async function agentCpuSeconds(node: string): Promise<number> {
  const result = await execa('docker', ['exec', node, 'cat', `/proc/${await agentPid(node)}/stat`], {
    reject: false,
  });
  const fields = result.stdout.slice(result.stdout.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function iptablesSave(node: string): Promise<string> {
  return (await execa('docker', ['exec', node, 'iptables-save', '-t', 'nat'], { reject: false })).stdout;
}

const ms = (seconds: number) => `${(seconds * 1000).toFixed(1)} ms`;
const range = (values: readonly number[], format: (value: number) => string) =>
  `${format(percentile(values, 50))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;

try {
  await buildBusyboxImage(IMAGE);
  await tkube(['up', cluster, '--nodes', '3']);
  await tkube(['load', 'image', IMAGE, '--name', cluster]);
  const client = clientFromKubeconfig(env.KUBECONFIG, context, 'bench');
  const nodeList = (await client.resource<Node>(NODES).list('')).items;
  const nodes = nodeList.map((node) => node.metadata!.name!).sort();
  const nodeIP = (name: string) =>
    nodeList
      .find((node) => node.metadata!.name === name)!
      .status!.addresses!.find((address) => address.type === 'InternalIP')!.address;
  const pods = client.resource<Pod>(PODS);
  const services = client.resource<Service>(SERVICES);
  const slices = client.resource<EndpointSlice>(ENDPOINT_SLICES);

  // The backend, on the second node, behind every programmed service.
  await pods.create(httpBackendPod('http-backend', IMAGE, nodes[1]!));
  const backendPod = await waitFor(
    () => pods.get('default', 'http-backend'),
    (pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    120_000,
    'the backend ready',
  );

  // 1. Network programming latency.
  const programmingBefore = await Promise.all(nodes.map(nodeMetrics));
  const createdAt: number[] = [];
  const seenAt = nodes.map(() => new Map<number, number>());
  let polling = true;
  const pollers = nodes.map(async (node, n) => {
    while (polling) {
      const saved = await iptablesSave(node);
      const now = performance.now();
      for (const match of saved.matchAll(/"default\/svc-(\d+):http cluster IP" .*-j KUBE-SVC-/g)) {
        const i = Number(match[1]);
        if (!seenAt[n]!.has(i)) seenAt[n]!.set(i, now);
      }
      await sleep(50);
    }
  });
  const programmingStart = performance.now();
  for (let i = 0; i < PROGRAMMED_SERVICES; i++) {
    await sleep(Math.max(0, programmingStart + (i * 1000) / CREATES_PER_SECOND - performance.now()));
    createdAt[i] = performance.now();
    await services.create({
      metadata: { name: `svc-${i}`, namespace: 'default' },
      spec: { selector: { app: 'http-backend' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    });
  }
  const programmingDeadline = performance.now() + 60_000;
  while (seenAt.some((seen) => seen.size < PROGRAMMED_SERVICES) && performance.now() < programmingDeadline)
    await sleep(200);
  polling = false;
  await Promise.all(pollers);
  const programmingAfter = await Promise.all(nodes.map(nodeMetrics));
  const programmed = seenAt.flatMap((seen) => [...seen].map(([i, at]) => (at - createdAt[i]!) / 1000));
  const programmingReadings = nodes.map(
    (_, n) =>
      [
        histogram(programmingBefore[n]!, 'kubeproxy_network_programming_duration_seconds'),
        histogram(programmingAfter[n]!, 'kubeproxy_network_programming_duration_seconds'),
      ] as const,
  );
  const programmingCount = programmingReadings.reduce((sum, [b, a]) => sum + a.count - b.count, 0);

  const p = (values: readonly number[], q: number) => percentile(values, q);
  printTable(
    `Network programming: ${PROGRAMMED_SERVICES} services with endpoints, ${CREATES_PER_SECOND}/s, 3 nodes`,
    [
      ['measure', 'tkube', 'goal'],
      [
        'create → KUBE-SVC jump on a node (polled): p50 / p99',
        `${ms(p(programmed, 50))} / ${ms(p(programmed, 99))}`,
        'p99 ≤ 1 s',
      ],
      [
        '  range, samples',
        `${ms(Math.min(...programmed))}–${ms(Math.max(...programmed))}, ${programmed.length} of ${3 * PROGRAMMED_SERVICES}`,
        '',
      ],
      [
        'kubeproxy_network_programming_duration_seconds p50 / p99 (bucket ≤)',
        `${bucketQuantile(programmingReadings, 0.5)} s / ${bucketQuantile(programmingReadings, 0.99)} s`,
        'p99 ≤ 1 s',
      ],
      ['  observations', String(programmingCount), ''],
    ],
  );

  // 2. HTTP through the ClusterIP and straight to the pod, alternating, from a pod on the first node.
  const clusterIP = (await services.get('default', 'svc-0')).spec!.clusterIP!;
  const http: Record<'service' | 'pod', { results: HttpLoadResult[]; nodeCpu: number[] }> = {
    service: { results: [], nodeCpu: [] },
    pod: { results: [], nodeCpu: [] },
  };
  for (let round = 0; round < HTTP_ROUNDS; round++) {
    for (const target of ['service', 'pod'] as const) {
      const [host, port] = target === 'service' ? [clusterIP, '80'] : [backendPod.status!.podIP!, '8080'];
      const cpuBefore = await containerCpuSeconds(nodes);
      const result = await runToResult<HttpLoadResult>(
        client,
        nodeScriptPod(
          `http-load-${target}-${round}`,
          IMAGE,
          HTTP_LOAD_SCRIPT,
          [host, port, String(HTTP_SECONDS), String(HTTP_CONCURRENCY)],
          { nodeName: nodes[0]! },
        ),
        env,
        context,
      );
      http[target].nodeCpu.push((await containerCpuSeconds(nodes)) - cpuBefore);
      http[target].results.push(result);
    }
  }

  const rps = (target: 'service' | 'pod') => http[target].results.map((result) => result.rps);
  const cpuPerThousand = (target: 'service' | 'pod') =>
    http[target].results.map((result, i) => (http[target].nodeCpu[i]! / result.ok) * 1000);
  const clientCpu = (target: 'service' | 'pod') =>
    http[target].results.map((result) => (result.clientCpuSeconds / result.ok) * 1e6);
  const ratio = percentile(rps('service'), 50) / percentile(rps('pod'), 50);
  printTable(
    `HTTP from a pod on ${nodes[0]} to a backend on ${nodes[1]}, new connection per request, ${HTTP_CONCURRENCY} in flight, ${HTTP_ROUNDS} × ${HTTP_SECONDS} s each (median, range)`,
    [
      ['measure', 'through the ClusterIP', 'to the pod IP', 'goal'],
      [
        'requests/s',
        range(rps('service'), (v) => v.toFixed(0)),
        range(rps('pod'), (v) => v.toFixed(0)),
        'within 10 %',
      ],
      ['  service / pod', `${(ratio * 100).toFixed(1)} %`, '', ''],
      [
        'p50 / p99 latency (median of rounds)',
        `${p(
          http.service.results.map((r) => r.p50),
          50,
        ).toFixed(2)} / ${p(
          http.service.results.map((r) => r.p99),
          50,
        ).toFixed(2)} ms`,
        `${p(
          http.pod.results.map((r) => r.p50),
          50,
        ).toFixed(2)} / ${p(
          http.pod.results.map((r) => r.p99),
          50,
        ).toFixed(2)} ms`,
        '',
      ],
      [
        'errors',
        String(http.service.results.reduce((s, r) => s + r.errors, 0)),
        String(http.pod.results.reduce((s, r) => s + r.errors, 0)),
        '0',
      ],
      [
        'nodes CPU s per 1,000 requests (whole pod run)',
        range(cpuPerThousand('service'), (v) => v.toFixed(2)),
        range(cpuPerThousand('pod'), (v) => v.toFixed(2)),
        '',
      ],
      [
        'client CPU µs per request',
        range(clientCpu('service'), (v) => v.toFixed(0)),
        range(clientCpu('pod'), (v) => v.toFixed(0)),
        '',
      ],
    ],
  );

  // 2b. The same service through the ingress (network-ingress.ts).
  const ingress = await runIngressBench({
    client,
    kubectlEnv: env,
    context,
    nodes,
    image: IMAGE,
    service: 'svc-0',
    rounds: HTTP_ROUNDS,
    seconds: HTTP_SECONDS,
    concurrency: HTTP_CONCURRENCY,
  });

  // 3. Cluster DNS from one pod, at its own node's server; and the query path alone, in-process.
  const handlerCpu = await dnsHandlerCpuPerQuery(PROGRAMMED_SERVICES);
  const agentCpuBefore = await agentCpuSeconds(nodes[0]!);
  const dns = await runToResult<DnsLoadResult>(
    client,
    nodeScriptPod(
      'dns-load',
      IMAGE,
      DNS_LOAD_SCRIPT,
      [nodeIP(nodes[0]!), ...[PROGRAMMED_SERVICES, 32, 5, 5000, 10].map(String)],
      { nodeName: nodes[0]! },
    ),
    env,
    context,
  );
  const agentCpuPerQuery =
    ((await agentCpuSeconds(nodes[0]!)) - agentCpuBefore) / (dns.max.answered + dns.steady.answered);

  printTable(
    `Cluster DNS from one pod on ${nodes[0]} (its node's server, ${PROGRAMMED_SERVICES} services, UDP)`,
    [
      ['measure', 'tkube', 'goal'],
      ['as fast as 32 in flight allow: queries/s', dns.max.qps.toFixed(0), '≥ 5000'],
      ['  p50 / p99', `${dns.max.p50.toFixed(2)} / ${dns.max.p99.toFixed(2)} ms`, ''],
      ['steady 5000/s for 10 s: queries/s', dns.steady.qps.toFixed(0), ''],
      ['  p50 / p99', `${dns.steady.p50.toFixed(2)} / ${dns.steady.p99.toFixed(2)} ms`, 'p99 ≤ 5 ms'],
      ['  lost / not NOERROR', `${dns.steady.sent - dns.steady.answered} / ${dns.steady.errors}`, '0 / 0'],
      ['agent CPU µs per query (the whole agent, both phases)', (agentCpuPerQuery * 1e6).toFixed(1), ''],
      [
        'query path CPU µs per query, in this process (median, range)',
        range(handlerCpu, (v) => v.toFixed(1)),
        '',
      ],
    ],
  );

  // 4. Sync times with 1,000 services × 10 endpoints.
  const endpointIP = (i: number) => `10.250.${Math.floor(i / 250)}.${(i % 250) + 1}`;
  const sliceOf = (i: number, generation: number): EndpointSlice => ({
    metadata: {
      name: `sync-${i}-1`,
      namespace: 'default',
      labels: { 'kubernetes.io/service-name': `sync-${i}` },
    },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: Array.from({ length: SYNC_ENDPOINTS }, (_, j) => ({
      addresses: [endpointIP((i * SYNC_ENDPOINTS + j + generation) % 10_000)],
      conditions: { ready: true },
    })),
  });
  const populateStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < SYNC_SERVICES) {
        const i = next++;
        await services.create({
          metadata: { name: `sync-${i}`, namespace: 'default' },
          spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
        });
        await slices.create(sliceOf(i, 0));
      }
    }),
  );
  const populateSeconds = (performance.now() - populateStart) / 1000;
  for (const node of nodes)
    await waitFor(
      () => iptablesSave(node),
      (saved) => saved.match(/"default\/sync-\d+:http cluster IP" .*-j KUBE-SVC-/g)?.length === SYNC_SERVICES,
      180_000,
      `the ${SYNC_SERVICES} services programmed on ${node}`,
    );
  const programmedSeconds = (performance.now() - populateStart) / 1000;
  const ruleCount = (await iptablesSave(nodes[0]!))
    .split('\n')
    .filter((line) => line.startsWith('-A')).length;

  const PARTIAL = 'kubeproxy_sync_partial_proxy_rules_duration_seconds';
  const FULL = 'kubeproxy_sync_full_proxy_rules_duration_seconds';
  const partial: number[] = [];
  for (let change = 1; change <= PARTIAL_SYNCS; change++) {
    const before = await Promise.all(nodes.map(async (node) => histogram(await nodeMetrics(node), PARTIAL)));
    const current = await slices.get('default', 'sync-0-1');
    await slices.update({ ...sliceOf(0, change), metadata: current.metadata });
    await Promise.all(
      nodes.map(async (node, n) => {
        const after = await waitFor(
          async () => histogram(await nodeMetrics(node), PARTIAL),
          (reading) => reading.count > before[n]!.count,
          30_000,
          `a partial sync on ${node}`,
        );
        partial.push((after.sum - before[n]!.sum) / (after.count - before[n]!.count));
      }),
    );
  }

  const full: number[] = [];
  for (let round = 0; round < FULL_SYNC_ROUNDS; round++) {
    for (const node of nodes) {
      // The node's supervisor starts the agent again: its first sync writes every chain.
      const pid = await agentPid(node);
      await execa('docker', ['exec', node, 'kill', pid]);
      await waitFor(
        () => agentPid(node),
        (current) => current !== '' && current !== pid,
        60_000,
        `the agent restarted on ${node}`,
      );
      const reading = await waitFor(
        async () => histogram(await nodeMetrics(node), FULL),
        (value) => value.count >= 1,
        120_000,
        `the restarted agent's full sync on ${node}`,
      );
      full.push(reading.sum / reading.count);
    }
  }
  const policyChange = await policyChangeLatency({ client, image: IMAGE, nodes, kubectlEnv: env, context });
  await client.close();

  printTable(
    `Proxy sync: ${SYNC_SERVICES} services × ${SYNC_ENDPOINTS} endpoints (+ ${PROGRAMMED_SERVICES} above), ${ruleCount} nat rules per node`,
    [
      ['measure', 'median (range)', 'samples'],
      ['partial sync (one EndpointSlice changed)', range(partial, ms), String(partial.length)],
      ['full sync (agent restarted)', range(full, ms), String(full.length)],
      ['create services + slices', `${populateSeconds.toFixed(1)} s`, String(2 * SYNC_SERVICES)],
      ['  until programmed on all 3 nodes', `${programmedSeconds.toFixed(1)} s`, ''],
    ],
  );
  printTable('NetworkPolicy', [['measure', 'latency', 'changes'], policyChangeRow(policyChange)]);
  console.log(
    JSON.stringify({
      programmingP50Ms: Math.round(p(programmed, 50) * 1000),
      programmingP99Ms: Math.round(p(programmed, 99) * 1000),
      httpServiceRps: Math.round(percentile(rps('service'), 50)),
      httpPodRps: Math.round(percentile(rps('pod'), 50)),
      ingressRps: Math.round(ingress.ingressRps),
      ingressP99Ms: Number(ingress.ingressP99Ms.toFixed(2)),
      dnsMaxQps: Math.round(dns.max.qps),
      dnsSteadyP99Ms: Number(dns.steady.p99.toFixed(3)),
      partialSyncMs: Number((percentile(partial, 50) * 1000).toFixed(1)),
      fullSyncMs: Number((percentile(full, 50) * 1000).toFixed(1)),
    }),
  );
} finally {
  await execa(process.execPath, [runJs, 'down', cluster], { env, reject: false });
  rmSync(dir, { recursive: true, force: true });
}
