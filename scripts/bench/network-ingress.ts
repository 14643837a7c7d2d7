// bench:network's ingress part: HTTP requests/s and latency from a pod through tkube's ingress
// (the ingress service's LoadBalancer address, an agent's proxy, then the service's ClusterIP)
// against the same service reached straight through its ClusterIP, alternating rounds, a new
// connection per request both ways (goal: the ingress ≥ 70 % of direct), with the nodes' CPU per
// request. Called from network.ts on its cluster; `runIngressBench` needs only a service
// listening on port 80 and the busybox image.

import type { Service } from '../../src/api/types/core-v1.generated.js';
import type { Ingress } from '../../src/api/types/networking-v1.generated.js';
import { INGRESSES, SERVICES } from '../../src/client/resources.js';
import type { Client } from '../../src/client/types.js';
import { waitFor } from '../../test/e2e/kubelet/pods-support.js';
import { containerCpuSeconds, HTTP_LOAD_SCRIPT, nodeScriptPod, runToResult } from './node-script-pod.js';
import { percentile, printTable } from './report.js';

const HOST = 'bench.ingress.test';

interface LoadResult {
  readonly ok: number;
  readonly errors: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
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
  const runs: Record<'ingress' | 'direct', { results: LoadResult[]; nodeCpu: number[] }> = {
    ingress: { results: [], nodeCpu: [] },
    direct: { results: [], nodeCpu: [] },
  };
  for (let round = 0; round < options.rounds; round++) {
    for (const target of ['ingress', 'direct'] as const) {
      const address = target === 'ingress' ? ingressIP : clusterIP;
      const cpuBefore = await containerCpuSeconds(nodes);
      const result = await runToResult<LoadResult>(
        client,
        nodeScriptPod(
          `ingress-load-${target}-${round}`,
          options.image,
          HTTP_LOAD_SCRIPT,
          [address, '80', String(options.seconds), String(options.concurrency), HOST],
          { nodeName: nodes[0]! },
        ),
        options.kubectlEnv,
        options.context,
      );
      runs[target].nodeCpu.push((await containerCpuSeconds(nodes)) - cpuBefore);
      runs[target].results.push(result);
    }
  }
  await ingresses.delete('default', 'bench-ingress');

  const median = (values: readonly number[]) => percentile(values, 50);
  const span = (values: readonly number[], digits: number) =>
    `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
  const of = (target: 'ingress' | 'direct', pick: (result: LoadResult) => number) =>
    runs[target].results.map(pick);
  const cpuPerThousand = (target: 'ingress' | 'direct') =>
    runs[target].results.map((result, i) => (runs[target].nodeCpu[i]! / result.ok) * 1000);
  const figures: IngressBenchFigures = {
    ingressRps: median(of('ingress', (r) => r.rps)),
    directRps: median(of('direct', (r) => r.rps)),
    ingressP99Ms: median(of('ingress', (r) => r.p99)),
    directP99Ms: median(of('direct', (r) => r.p99)),
  };
  printTable(
    `HTTP from a pod on ${nodes[0]} through the ingress (LoadBalancer address → agent → ClusterIP) vs the ClusterIP directly, new connection per request, ${options.concurrency} in flight, ${options.rounds} × ${options.seconds} s each (median, range)`,
    [
      ['measure', 'through the ingress', 'ClusterIP directly', 'goal'],
      [
        'requests/s',
        span(
          of('ingress', (r) => r.rps),
          0,
        ),
        span(
          of('direct', (r) => r.rps),
          0,
        ),
        'ingress ≥ 70 %',
      ],
      ['  ingress / direct', `${((figures.ingressRps / figures.directRps) * 100).toFixed(1)} %`, '', ''],
      [
        'p50 latency ms',
        span(
          of('ingress', (r) => r.p50),
          2,
        ),
        span(
          of('direct', (r) => r.p50),
          2,
        ),
        '',
      ],
      [
        'p99 latency ms',
        span(
          of('ingress', (r) => r.p99),
          2,
        ),
        span(
          of('direct', (r) => r.p99),
          2,
        ),
        '',
      ],
      [
        'errors',
        String(of('ingress', (r) => r.errors).reduce((a, b) => a + b, 0)),
        String(of('direct', (r) => r.errors).reduce((a, b) => a + b, 0)),
        '0',
      ],
      [
        'nodes CPU s per 1,000 requests',
        span(cpuPerThousand('ingress'), 2),
        span(cpuPerThousand('direct'), 2),
        '',
      ],
    ],
  );
  return figures;
}
