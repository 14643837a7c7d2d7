// usageNanoCores from cumulative CPU time, as the kubelet's CRI stats provider derives it when the
// runtime leaves it out (pkg/kubelet/stats/cri_stats_provider.go getAndUpdateContainerUsageNanoCores):
// the rate over the time since the previous sample of the same container, kept per id.

interface Sample {
  readonly timeNs: number;
  readonly cumulativeNs: number;
  readonly nanoCores: number | undefined;
}

/** Samples closer together than this keep the previous rate: a tiny window is mostly noise. */
const MIN_WINDOW_NS = 1e9;

export class CpuRateCache {
  private readonly samples = new Map<string, Sample>();

  /** The rate ending at this sample; undefined for the first sample of a key. */
  rate(key: string, timeNs: number, cumulativeNs: number): number | undefined {
    const previous = this.samples.get(key);
    if (previous && timeNs - previous.timeNs < MIN_WINDOW_NS && cumulativeNs >= previous.cumulativeNs) {
      return previous.nanoCores;
    }
    let nanoCores: number | undefined;
    // A counter that went back belongs to a restarted container: start again from here.
    if (previous && cumulativeNs >= previous.cumulativeNs) {
      nanoCores = Math.round(((cumulativeNs - previous.cumulativeNs) / (timeNs - previous.timeNs)) * 1e9);
    }
    this.samples.set(key, { timeNs, cumulativeNs, nanoCores });
    return nanoCores;
  }

  /** Forgets every key not in `live` (containers that are gone). */
  retain(live: ReadonlySet<string>): void {
    for (const key of this.samples.keys()) if (!live.has(key)) this.samples.delete(key);
  }
}
