// The overload scenario of `npm run bench:api` (issue 21): on `tkube up --nodes 0 --fake-nodes 2`,
// a Deployment rollout and `kubectl get pods` timed without, then with, a ServiceAccount flooding
// ConfigMap creates and lists; A/B alternated over `runs` rounds in one session.
import { startTestCluster } from '../../test/support/cluster.js';
import { measure, type OverloadSample, prepareOverload } from '../../test/support/overload.js';
import { percentile, printTable } from './report.js';

export interface OverloadFigures {
  readonly quietRolloutMs: number;
  readonly floodedRolloutMs: number;
  readonly quietKubectlP99Ms: number;
  readonly floodedKubectlP99Ms: number;
  readonly floodRequestsPerSec: number;
  readonly floodRejectedShare: number;
}

export async function overloadBench(runs = 3, floodMs = 20_000): Promise<OverloadFigures> {
  const cluster = await startTestCluster('ov-bench', { fakeNodes: 2 });
  try {
    const setup = await prepareOverload(cluster, 'bench-overload');
    const quiet: OverloadSample[] = [];
    const flooded: OverloadSample[] = [];
    for (let run = 0; run < runs; run++) {
      quiet.push(await measure(cluster, setup, `quiet-${run}`, { kubectlRuns: 10 }));
      flooded.push(await measure(cluster, setup, `flooded-${run}`, { kubectlRuns: 10, floodMs }));
    }
    const rollouts = (samples: OverloadSample[]) => samples.map((sample) => sample.rolloutMs);
    const kubectl = (samples: OverloadSample[]) => samples.flatMap((sample) => sample.kubectlMs);
    const floods = flooded.map((sample) => sample.flood!);
    const requests = floods.reduce((sum, flood) => sum + flood.requests, 0);
    const rejected = floods.reduce((sum, flood) => sum + (flood.byStatus[429] ?? 0), 0);
    const range = (values: number[]) =>
      `${percentile(values, 50).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
    const figures: OverloadFigures = {
      quietRolloutMs: percentile(rollouts(quiet), 50),
      floodedRolloutMs: percentile(rollouts(flooded), 50),
      quietKubectlP99Ms: percentile(kubectl(quiet), 99),
      floodedKubectlP99Ms: percentile(kubectl(flooded), 99),
      floodRequestsPerSec: requests / ((runs * floodMs) / 1000),
      floodRejectedShare: requests === 0 ? 0 : rejected / requests,
    };
    printTable(
      `Overload: one ServiceAccount flooding creates + lists (400 streams, ${floodMs / 1000} s) — ${runs} rounds, A/B alternated`,
      [
        [
          'Deployment rollout, 6 pods on fake nodes (ms, median and range)',
          range(rollouts(quiet)),
          'no flood',
        ],
        [
          '  … during the flood',
          range(rollouts(flooded)),
          `${(figures.floodedRolloutMs / figures.quietRolloutMs).toFixed(2)}× quiet; goal ≤ 2×`,
        ],
        [
          'kubectl get pods p50 / p99 (ms)',
          `${percentile(kubectl(quiet), 50).toFixed(0)} / ${figures.quietKubectlP99Ms.toFixed(0)}`,
          'no flood (kubectl start-up included)',
        ],
        [
          '  … during the flood',
          `${percentile(kubectl(flooded), 50).toFixed(0)} / ${figures.floodedKubectlP99Ms.toFixed(0)}`,
          'goal p99 ≤ 1,000 ms',
        ],
        [
          'flood requests/s answered (share refused with 429)',
          `${figures.floodRequestsPerSec.toFixed(0)} (${(figures.floodRejectedShare * 100).toFixed(1)} %)`,
          '',
        ],
      ],
    );
    return figures;
  } finally {
    await cluster.down();
  }
}
