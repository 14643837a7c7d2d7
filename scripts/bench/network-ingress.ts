// bench:network's ingress part: HTTP requests/s and latency from a pod through tkube's ingress
// (the ingress service's LoadBalancer address, an agent's proxy, then the service's ClusterIP)
// against the same service reached straight through its ClusterIP, alternating rounds, a new
// connection per request both ways (goal: the ingress ≥ 70 % of direct), with the nodes' CPU per
// request. Beside them, the last node's agent at its node's address (the ingress without the
// LoadBalancer address's DNAT), and the floor of any proxy on that path: a trivial Node.js TCP
// pass-through (accept, connect to the ClusterIP, pipe both ways) in a hostNetwork pod on the last
// node, reached at that node's address as the ingress address is. With `proxyBuilds` (network-ingress-run.ts's
// INGRESS_BENCH_BASELINE), builds of the ingress proxy itself run the same way as hostNetwork
// pods, so two builds are compared on one path under the same load (A/B in alternating rounds).
// Called from network.ts on its cluster; `runIngressBench` needs only a service listening on
// port 80 and the busybox image.

import type { Node, Pod, Service } from '../../src/api/types/core-v1.generated.js';
import type { Ingress } from '../../src/api/types/networking-v1.generated.js';
import { INGRESSES, NODES, PODS, SERVICES } from '../../src/client/resources.js';
import type { Client } from '../../src/client/types.js';
import { waitFor } from '../../test/e2e/kubelet/pods-support.js';
import {
  containerCpuSeconds,
  HTTP_LOAD_SCRIPT,
  type HttpLoadResult,
  nodeScriptPod,
  runToResult,
} from './node-script-pod.js';
import { percentile, printTable } from './report.js';

const HOST = 'bench.ingress.test';
/** The first port of the pass-through and proxy pods on their node's network. */
const SIDE_PORT = 18_081;

/** argv: the backend's address and port, the port to listen on. */
const PASS_THROUGH_SCRIPT = `
const net = require('node:net');
const [host, port, listen] = process.argv.slice(1);
net.createServer((client) => {
  const backend = net.connect(Number(port), host);
  client.pipe(backend).pipe(client);
  client.on('error', () => backend.destroy());
  backend.on('error', () => client.destroy());
}).listen(Number(listen));
`;

/** Appended to a CommonJS bundle of proxy-server.ts; argv: the backend's address and port, the port to listen on. */
const PROXY_POD_SCRIPT = `
const [host, port, listen] = process.argv.slice(1);
new module.exports.IngressProxy({
  bindAddress: '0.0.0.0', httpPort: Number(listen), httpsPort: 0,
  resolve: () => ({ kind: 'backend', host, port: Number(port) }),
  secureContext: () => undefined, defaultContext: require('node:tls').createSecureContext({}),
}).listen();
`;

/** A build of the ingress proxy to run in a pod: proxy-server.ts bundled as CommonJS. */
export interface ProxyBuild {
  readonly label: string;
  readonly bundle: string;
}

export interface IngressBenchOptions {
  readonly client: Client;
  readonly kubectlEnv: Record<string, string | undefined>;
  readonly context: string;
  /** Node containers, sorted; the load runs on the first. */
  readonly nodes: readonly string[];
  readonly image: string;
  /** A service in `default` answering 200 on port 80. */
  readonly service: string;
  readonly rounds: number;
  readonly seconds: number;
  readonly concurrency: number;
  readonly proxyBuilds?: readonly ProxyBuild[];
}

export interface IngressBenchFigures {
  readonly ingressRps: number;
  readonly directRps: number;
  readonly ingressP99Ms: number;
  readonly directP99Ms: number;
}

/** Runs the rounds and prints the table; returns the medians. */
export async function runIngressBench(options: IngressBenchOptions): Promise<IngressBenchFigures> {
  const { client, nodes } = options;
  const ingresses = client.resource<Ingress>(INGRESSES);
  await ingresses.create({
    metadata: { name: 'bench-ingress', namespace: 'default' },
    spec: {
      rules: [
        {
          host: HOST,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: options.service, port: { number: 80 } } },
              },
            ],
          },
        },
      ],
    },
  });
  const published = await waitFor(
    () => ingresses.get('default', 'bench-ingress'),
    (ingress) => Boolean(ingress.status?.loadBalancer?.ingress?.[0]?.ip),
    60_000,
    'the ingress address',
  );
  const ingressIP = published.status!.loadBalancer!.ingress![0]!.ip!;
  const clusterIP = (await client.resource<Service>(SERVICES).get('default', options.service)).spec!
    .clusterIP!;
  const pods = client.resource<Pod>(PODS);
  /** hostNetwork servers on the last node in front of the ClusterIP: the floor, then each proxy build. */
  const sideServers = [
    { label: 'TCP pass-through', script: PASS_THROUGH_SCRIPT },
    ...(options.proxyBuilds ?? []).map((build) => ({
      label: `proxy pod ${build.label}`,
      script: build.bundle + PROXY_POD_SCRIPT,
    })),
  ];
  // The last node's agent reached at its node's address: the ingress without the LoadBalancer
  // address's DNAT and masquerade, to tell that path's cost from the proxy's.
  const lastNode = await client.resource<Node>(NODES).get('', nodes.at(-1)!);
  const lastNodeIP = lastNode.status?.addresses?.find((address) => address.type === 'InternalIP')?.address;
  if (!lastNodeIP) throw new Error(`node ${nodes.at(-1)} has no InternalIP`);
  const targets: { label: string; address: string; port: string }[] = [
    { label: 'through the ingress', address: ingressIP, port: '80' },
    { label: 'ClusterIP directly', address: clusterIP, port: '80' },
    { label: "a node's agent directly", address: lastNodeIP, port: '80' },
  ];
  for (const [i, server] of sideServers.entries()) {
    const name = `ingress-side-${i}`;
    const port = String(SIDE_PORT + i);
    await pods.create(
      nodeScriptPod(name, options.image, server.script, [clusterIP, '80', port], {
        nodeName: nodes.at(-1)!,
        hostNetwork: true,
      }),
    );
    const running = await waitFor(
      () => pods.get('default', name),
      (pod) => pod.status?.phase === 'Running' && Boolean(pod.status.podIP),
      60_000,
      `the ${server.label} pod`,
    );
    targets.push({ label: server.label, address: running.status!.podIP!, port });
  }
  const load = (name: string, address: string, port: string, seconds: number) =>
    runToResult<HttpLoadResult>(
      client,
      nodeScriptPod(
        name,
        options.image,
        HTTP_LOAD_SCRIPT,
        [address, port, String(seconds), String(options.concurrency), HOST],
        { nodeName: nodes[0]! },
      ),
      options.kubectlEnv,
      options.context,
    );
  // Not measured: every proxy's code optimised by V8, and every agent behind the address reached,
  // before the first round (a cold agent made the first round through the address the slowest).
  for (const [t, { address, port }] of targets.entries()) await load(`ingress-warm-${t}`, address, port, 2);
  const runs = targets.map(() => ({ results: [] as HttpLoadResult[], nodeCpu: [] as number[] }));
  for (let round = 0; round < options.rounds; round++) {
    // Each round starts at the next target: none is always first (after the pods' set-up, or
    // right after another target's round).
    for (const t of [...targets.keys()].map((i) => (i + round) % targets.length)) {
      const { address, port } = targets[t]!;
      const cpuBefore = await containerCpuSeconds(nodes);
      const result = await load(`ingress-load-${t}-${round}`, address, port, options.seconds);
      runs[t]!.nodeCpu.push((await containerCpuSeconds(nodes)) - cpuBefore);
      runs[t]!.results.push(result);
    }
  }
  await ingresses.delete('default', 'bench-ingress');
  for (const i of sideServers.keys()) await pods.delete('default', `ingress-side-${i}`);

  const median = (values: readonly number[]) => percentile(values, 50);
  const span = (values: readonly number[], digits: number) =>
    `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
  const of = (t: number, pick: (result: HttpLoadResult) => number) => runs[t]!.results.map(pick);
  const cpuPerThousand = (t: number) =>
    runs[t]!.results.map((result, i) => (runs[t]!.nodeCpu[i]! / result.ok) * 1000);
  const figures: IngressBenchFigures = {
    ingressRps: median(of(0, (r) => r.rps)),
    directRps: median(of(1, (r) => r.rps)),
    ingressP99Ms: median(of(0, (r) => r.p99)),
    directP99Ms: median(of(1, (r) => r.p99)),
  };
  const columns = [...targets.keys()];
  printTable(
    `HTTP from a pod on ${nodes[0]} through the ingress (LoadBalancer address → agent → ClusterIP) vs the ClusterIP directly and servers on a node's address in front of the ClusterIP (a TCP pass-through, the floor; proxy builds), new connection per request, ${options.concurrency} in flight, ${options.rounds} × ${options.seconds} s each (median, range)`,
    [
      ['measure', ...targets.map((target) => target.label), 'goal'],
      [
        'requests/s',
        ...columns.map((target) =>
          span(
            of(target, (r) => r.rps),
            0,
          ),
        ),
        'ingress ≥ 70 %',
      ],
      [
        '  % of direct',
        ...columns.map(
          (target) => `${((median(of(target, (r) => r.rps)) / figures.directRps) * 100).toFixed(1)} %`,
        ),
        '',
      ],
      [
        'p50 latency ms',
        ...columns.map((target) =>
          span(
            of(target, (r) => r.p50),
            2,
          ),
        ),
        '',
      ],
      [
        'p99 latency ms',
        ...columns.map((target) =>
          span(
            of(target, (r) => r.p99),
            2,
          ),
        ),
        '',
      ],
      [
        'errors',
        ...columns.map((target) => String(of(target, (r) => r.errors).reduce((a, b) => a + b, 0))),
        '0',
      ],
      ['nodes CPU s per 1,000 requests', ...columns.map((target) => span(cpuPerThousand(target), 2)), ''],
    ],
  );
  return figures;
}
