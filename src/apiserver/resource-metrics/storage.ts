// metrics-server's storage (sigs.k8s.io/metrics-server pkg/storage): the last two scrapes of each
// node and container, and the usage between them — CPU as the rate of cumulative CPU time over
// the window between the two points, memory as the last working set. A pod is reported only when
// every one of its containers has two points, as metrics-server does. Not wired to a scraper yet.

/** One scrape of a node or container: cumulative CPU and the working set at a time. */
export interface MetricsPoint {
  /** When the node or container started; a later start than the previous point is a restart. */
  readonly startTimeMs: number;
  readonly timestampMs: number;
  readonly cumulativeCpuNs: number;
  readonly memoryBytes: number;
}

export interface Usage {
  readonly timestampMs: number;
  readonly windowMs: number;
  readonly cpuNanoCores: number;
  readonly memoryBytes: number;
}

export interface PodScrape {
  readonly namespace: string;
  readonly name: string;
  readonly containers: ReadonlyMap<string, MetricsPoint>;
}

export interface NodeScrape {
  readonly node: MetricsPoint;
  readonly pods: readonly PodScrape[];
}

interface Pair {
  last: MetricsPoint;
  prev?: MetricsPoint;
}

/** The usage between two points; undefined when they cannot give a rate. */
export function usageBetween(last: MetricsPoint, prev: MetricsPoint | undefined): Usage | undefined {
  if (!prev) return undefined;
  // Restarted between the points: the counter started again at startTime (metrics-server's rule).
  const restarted = last.startTimeMs > prev.timestampMs || last.cumulativeCpuNs < prev.cumulativeCpuNs;
  const fromMs = restarted ? last.startTimeMs : prev.timestampMs;
  const fromCpu = restarted ? 0 : prev.cumulativeCpuNs;
  const windowMs = last.timestampMs - fromMs;
  if (windowMs <= 0) return undefined;
  return {
    timestampMs: last.timestampMs,
    windowMs,
    cpuNanoCores: Math.round(((last.cumulativeCpuNs - fromCpu) / windowMs) * 1e3),
    memoryBytes: last.memoryBytes,
  };
}

function advance(pair: Pair | undefined, point: MetricsPoint): Pair {
  if (!pair) return { last: point };
  // A repeated sample (same timestamp) does not move the window.
  if (point.timestampMs === pair.last.timestampMs) return pair;
  return { last: point, prev: pair.last };
}

export class MetricsStorage {
  private nodes = new Map<string, Pair>();
  /** `<namespace>/<name>` → container name → points. */
  private pods = new Map<string, Map<string, Pair>>();

  /** Stores one full round of scrapes; nodes and pods absent from it are forgotten. */
  store(round: ReadonlyMap<string, NodeScrape>): void {
    const nodes = new Map<string, Pair>();
    const pods = new Map<string, Map<string, Pair>>();
    for (const [nodeName, scrape] of round) {
      nodes.set(nodeName, advance(this.nodes.get(nodeName), scrape.node));
      for (const pod of scrape.pods) {
        const key = `${pod.namespace}/${pod.name}`;
        const previous = this.pods.get(key);
        const containers = new Map<string, Pair>();
        for (const [container, point] of pod.containers) {
          containers.set(container, advance(previous?.get(container), point));
        }
        pods.set(key, containers);
      }
    }
    this.nodes = nodes;
    this.pods = pods;
  }

  nodeUsage(name: string): Usage | undefined {
    const pair = this.nodes.get(name);
    return pair && usageBetween(pair.last, pair.prev);
  }

  /** Per container, or undefined when any container has no usage yet. */
  podUsage(namespace: string, name: string): Map<string, Usage> | undefined {
    const containers = this.pods.get(`${namespace}/${name}`);
    if (!containers || containers.size === 0) return undefined;
    const usage = new Map<string, Usage>();
    for (const [container, pair] of containers) {
      const found = usageBetween(pair.last, pair.prev);
      if (!found) return undefined;
      usage.set(container, found);
    }
    return usage;
  }

  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  podKeys(): { namespace: string; name: string }[] {
    return [...this.pods.keys()].map((key) => {
      const slash = key.indexOf('/');
      return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
    });
  }
}
