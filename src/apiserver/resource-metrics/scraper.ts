// metrics-server's scraper (sigs.k8s.io/metrics-server pkg/scraper): every resolution period
// (--metric-resolution: 15 s, or the cluster config's) each Ready node's kubelet `/stats/summary`
// is fetched, all nodes at once, over the connection kube-apiserver uses for nodes/proxy (its
// kubelet client certificate, the node tunnel dialer); a node that fails is skipped with a log
// line, and the round is stored.
// Fake nodes serve no kubelet API: their usage is simulated from their pods' requests instead.
import type { Node, Pod } from '../../api/types/core-v1.generated.js';
import {
  type KubeletClientCredentials,
  type KubeletRequest,
  kubeletAddress,
  sendToKubelet,
} from '../handlers/kubelet-connection.js';
import { SimulatedUsage } from './simulated-usage.js';
import type { MetricsStorage, NodeScrape } from './storage.js';
import { decodeSummary, type SummaryJson } from './summary-decode.js';

/** metrics-server's --metric-resolution default. */
export const SCRAPE_INTERVAL_MS = 15_000;
/** metrics-server's per-node timeout, as a share of the resolution: a round ends before the next. */
const SCRAPE_TIMEOUT_SHARE = 0.9;

export interface ScraperDeps {
  readonly nodes: () => Promise<readonly Node[]>;
  /** Every pod, for the simulated nodes' usage (without it, fake nodes report nothing). */
  readonly pods?: () => Promise<readonly Pod[]>;
  readonly credentials: () => Promise<KubeletClientCredentials>;
  readonly dial?: KubeletRequest['dial'];
  readonly storage: MetricsStorage;
  /** The resolution (SCRAPE_INTERVAL_MS by default). */
  readonly intervalMs?: number;
  readonly log?: (line: string) => void;
}

/** providers/fake's label: fake nodes have no kubelet to ask (their addresses route nowhere). */
const FAKE_NODE_LABEL = 'fake.tkube.dev/node';
/** providers/fake's mark of a simulated kubelet that was stopped (it reports nothing). */
const FAKE_KUBELET_STOPPED_ANNOTATION = 'fake.tkube.dev/kubelet-stopped';

function isReady(node: Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

function isSimulated(node: Node): boolean {
  return node.metadata?.labels?.[FAKE_NODE_LABEL] === 'true';
}

/** One node's summary, decoded; rejects with a message naming the node. */
export async function scrapeNode(
  node: Node,
  credentials: KubeletClientCredentials,
  dial: KubeletRequest['dial'],
  timeoutMs = SCRAPE_INTERVAL_MS * SCRAPE_TIMEOUT_SHARE,
): Promise<NodeScrape> {
  const name = node.metadata?.name ?? '';
  const { host, port } = kubeletAddress(node);
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const url = new URL(`https://${hostPart}:${port}/stats/summary?only_cpu_and_memory=true`);
  const abort = new AbortController();
  const closing = {
    once: (_: 'close', listener: () => void) => abort.signal.addEventListener('abort', listener),
  };
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const response = await sendToKubelet(
      { url, method: 'GET', headers: { accept: 'application/json' }, credentials, dial, signal: closing },
      (dialText) => new Error(dialText),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (response.statusCode !== 200) {
      throw new Error(`request failed, status: "${response.statusCode}", body: ${text.slice(0, 200)}`);
    }
    const scrape = decodeSummary(JSON.parse(text) as SummaryJson);
    if (!scrape) throw new Error('summary has no node CPU or memory');
    return scrape;
  } catch (error) {
    throw new Error(`Failed to scrape node "${name}": ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

export class MetricsScraper {
  private timer?: NodeJS.Timeout;
  /** A round still under way: the next tick does not start another beside it. */
  private busy = false;

  private readonly simulated = new SimulatedUsage();

  private readonly intervalMs: number;

  constructor(private readonly deps: ScraperDeps) {
    this.intervalMs = deps.intervalMs ?? SCRAPE_INTERVAL_MS;
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      if (this.busy) return;
      this.busy = true;
      void this.scrapeOnce().finally(() => {
        this.busy = false;
      });
    };
    tick();
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One round over all Ready nodes (simulated ones from their pods), stored when done. */
  async scrapeOnce(): Promise<void> {
    const log = this.deps.log ?? ((line: string) => console.error(line));
    try {
      const ready = (await this.deps.nodes()).filter(isReady);
      const real = ready.filter((node) => !isSimulated(node));
      const round = new Map<string, NodeScrape>();
      const simulated = ready.filter(
        (node) =>
          isSimulated(node) && node.metadata?.annotations?.[FAKE_KUBELET_STOPPED_ANNOTATION] === undefined,
      );
      this.simulated.retain(new Set(simulated.map((node) => node.metadata?.name ?? '')));
      if (simulated.length > 0 && this.deps.pods) {
        const pods = await this.deps.pods();
        const nowMs = Date.now();
        for (const node of simulated)
          round.set(node.metadata?.name ?? '', this.simulated.scrape(node, pods, nowMs));
      }
      if (real.length > 0) {
        const credentials = await this.deps.credentials();
        const results = await Promise.allSettled(
          real.map((node) =>
            scrapeNode(node, credentials, this.deps.dial, this.intervalMs * SCRAPE_TIMEOUT_SHARE),
          ),
        );
        results.forEach((result, index) => {
          if (result.status === 'fulfilled') round.set(real[index]?.metadata?.name ?? '', result.value);
          else log(`metrics-server: ${(result.reason as Error).message}`);
        });
      }
      this.deps.storage.store(round);
    } catch (error) {
      log(`metrics-server: scrape round failed: ${(error as Error).message}`);
    }
  }
}
