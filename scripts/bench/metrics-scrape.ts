// The built-in metrics server's cost (issue 23): process CPU of MetricsScraper rounds — the mTLS
// request to each kubelet, reading and decoding its Summary, storing the round — per node per
// scrape, against stand-in kubelets in a child process (not real nodes: their serving cost and
// Docker stay out of the figure; each serves 30 pods), for 1, 10 and 50 nodes; and the same for
// simulated nodes (`--fake-nodes`, usage made from 30 pods' requests, no network). Run alone with
// `tsx scripts/bench/metrics-scrape.ts`, or through `npm run bench:stream`.
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Node, Pod } from '../../src/api/types/core-v1.generated.js';
import { MetricsScraper } from '../../src/apiserver/resource-metrics/scraper.js';
import { MetricsStorage } from '../../src/apiserver/resource-metrics/storage.js';
import { createCertificateAuthority } from '../../src/pki/certificate-authority.js';
import { issueClientCertificate, issueServingCertificate } from '../../src/pki/certificates.js';
import { percentile, printTable } from './report.js';

const PODS_PER_NODE = 30;
const ROUNDS = 20;
const NODE_COUNTS = [1, 10, 50];
const kubeletsScript = fileURLToPath(new URL('./metrics-scrape-kubelets.ts', import.meta.url));

function readyNode(name: string, port: number, labels: Record<string, string> = {}): Node {
  return {
    metadata: { name, labels, creationTimestamp: new Date(Date.now() - 3_600_000).toISOString() },
    status: {
      addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

function simulatedPods(nodes: readonly Node[]): Pod[] {
  const startedAt = new Date(Date.now() - 600_000).toISOString();
  return nodes.flatMap((node) =>
    Array.from({ length: PODS_PER_NODE }, (_, i) => ({
      metadata: { name: `${node.metadata?.name}-${i}`, namespace: 'bench' },
      spec: {
        nodeName: node.metadata?.name,
        containers: [{ name: 'app', resources: { requests: { cpu: '25m', memory: '48Mi' } } }],
      },
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'app',
            image: 'x',
            imageID: '',
            ready: true,
            restartCount: 0,
            state: { running: { startedAt } },
          },
        ],
      },
    })),
  );
}

interface Figures {
  nodes: number;
  cpuMsPerNodeScrape: number[];
  wallMs: number[];
}

/** CPU (user + system, this process) and wall time of each of ROUNDS rounds, after two to warm up. */
async function measure(scraper: MetricsScraper, nodes: number): Promise<Figures> {
  await scraper.scrapeOnce();
  await scraper.scrapeOnce();
  const figures: Figures = { nodes, cpuMsPerNodeScrape: [], wallMs: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await scraper.scrapeOnce();
    const used = process.cpuUsage(cpu);
    figures.wallMs.push(performance.now() - started);
    figures.cpuMsPerNodeScrape.push((used.user + used.system) / 1000 / nodes);
  }
  return figures;
}

function row(kind: string, f: Figures): string[] {
  const cpu = f.cpuMsPerNodeScrape;
  return [
    kind,
    String(f.nodes),
    percentile(cpu, 50).toFixed(2),
    `${Math.min(...cpu).toFixed(2)}–${Math.max(...cpu).toFixed(2)}`,
    percentile(f.wallMs, 50).toFixed(1),
  ];
}

/** Runs the scenario and returns its table rows (printed by the caller). */
export async function benchMetricsScrape(): Promise<string[][]> {
  const ca = await createCertificateAuthority({ commonName: 'bench-kubelet-ca' });
  const serving = await issueServingCertificate(ca, { commonName: 'kubelet', ipAddresses: ['127.0.0.1'] });
  const client = await issueClientCertificate(ca, { user: 'kube-apiserver-kubelet-client' });
  const credentials = {
    certificatePem: client.certificatePem,
    privateKeyPem: client.privateKeyPem,
    caPem: ca.certificatePem,
  };
  const maxNodes = Math.max(...NODE_COUNTS);
  const kubelets = execa(process.execPath, ['--import', 'tsx', kubeletsScript], {
    input: JSON.stringify({
      cert: serving.certificatePem,
      key: serving.privateKeyPem,
      ca: ca.certificatePem,
      nodes: maxNodes,
      podsPerNode: PODS_PER_NODE,
    }),
    buffer: false,
  });
  try {
    const ports = await new Promise<number[]>((resolve, reject) => {
      let text = '';
      kubelets.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0]!) as number[]);
      });
      kubelets.catch(reject);
    });
    const rows: string[][] = [];
    for (const count of NODE_COUNTS) {
      const nodes = ports.slice(0, count).map((port, i) => readyNode(`node-${i}`, port));
      const scraper = new MetricsScraper({
        nodes: async () => nodes,
        credentials: async () => credentials,
        storage: new MetricsStorage(),
      });
      rows.push(row('stand-in kubelets (mTLS)', await measure(scraper, count)));
    }
    for (const count of NODE_COUNTS) {
      const nodes = Array.from({ length: count }, (_, i) =>
        readyNode(`fake-${i}`, 1, { 'fake.tkube.dev/node': 'true' }),
      );
      const pods = simulatedPods(nodes);
      const scraper = new MetricsScraper({
        nodes: async () => nodes,
        pods: async () => pods,
        credentials: async () => credentials,
        storage: new MetricsStorage(),
      });
      rows.push(row('simulated nodes', await measure(scraper, count)));
    }
    return rows;
  } finally {
    kubelets.kill();
    await kubelets.catch(() => undefined);
  }
}

export const METRICS_SCRAPE_TITLE = `metrics server: CPU per node per scrape (${PODS_PER_NODE} pods a node, ${ROUNDS} rounds)`;
export const METRICS_SCRAPE_HEADER = [
  'nodes from',
  'nodes',
  'CPU ms p50',
  'CPU ms range',
  'round wall ms p50',
];

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  printTable(METRICS_SCRAPE_TITLE, [METRICS_SCRAPE_HEADER, ...(await benchMetricsScrape())]);
}
