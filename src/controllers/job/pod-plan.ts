// Which pods a Job wants (pkg/controller/job/job_controller.go manageJob, and
// indexed_job_utils.go for Indexed Jobs): replacements up to parallelism — per missing index for
// Indexed Jobs, carrying the index's failures so far — and the active pods beyond what is wanted
// (duplicates of an index, indexes already done or failed, pods over parallelism).
import type { Job } from '../../api/types/batch-v1.generated.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import { completionIndexOf } from './indexes.js';
import { INDEX_FAILURE_COUNT_ANNOTATION, isTerminating, podReplacementPolicy } from './job-pods.js';

export interface WantedPod {
  /** The completion index (Indexed Jobs). */
  readonly index: number | undefined;
  /** The index's failures so far (the pod's index-failure-count annotation). */
  readonly failures: number;
}

/** Pods to add (per index for Indexed Jobs) and active pods beyond what is wanted. */
export function planPods(
  job: Job,
  active: Pod[],
  pods: Pod[],
  completed: ReadonlySet<number>,
  failedIndexes: ReadonlySet<number>,
  succeeded: number,
): { wanted: WantedPod[]; excess: Pod[] } {
  const spec = job.spec;
  const parallelism = spec?.parallelism ?? 1;
  // Terminating pods hold their slot until they finish when replacements wait for failure.
  const busy = podReplacementPolicy(job) === 'Failed' ? pods.filter(isTerminating).length : 0;
  if (spec?.completionMode === 'Indexed') {
    const total = spec.completions ?? 0;
    const byIndex = new Map<number, Pod[]>();
    const excess: Pod[] = [];
    for (const pod of active) {
      const index = completionIndexOf(pod, total);
      if (index === undefined || completed.has(index) || failedIndexes.has(index)) {
        excess.push(pod);
        continue;
      }
      const list = byIndex.get(index) ?? [];
      list.push(pod);
      byIndex.set(index, list);
    }
    // One pod per index: the oldest stays.
    for (const list of byIndex.values()) {
      list.sort((a, b) =>
        (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? ''),
      );
      excess.push(...list.slice(1));
    }
    const terminatingIndexes = new Set(
      pods.filter(isTerminating).map((pod) => completionIndexOf(pod, total)),
    );
    const room = parallelism - byIndex.size - busy;
    const wanted: Array<{ index: number; failures: number }> = [];
    for (let index = 0; index < total && wanted.length < room; index++) {
      if (completed.has(index) || failedIndexes.has(index) || byIndex.has(index)) continue;
      if (busy > 0 && terminatingIndexes.has(index)) continue;
      wanted.push({ index, failures: indexFailures(pods, index, total) });
    }
    if (room < 0) excess.push(...[...byIndex.values()].flat().slice(room));
    return { wanted, excess };
  }
  const completions = spec?.completions;
  // A work queue (no completions) leaves what runs running once one pod succeeded.
  let want =
    completions !== undefined
      ? Math.min(parallelism, completions - succeeded)
      : succeeded > 0
        ? active.length
        : parallelism;
  want = Math.max(0, want - busy);
  if (active.length > want) {
    const newestFirst = [...active].sort((a, b) =>
      (b.metadata?.creationTimestamp ?? '').localeCompare(a.metadata?.creationTimestamp ?? ''),
    );
    return { wanted: [], excess: newestFirst.slice(0, active.length - want) };
  }
  return {
    wanted: Array.from({ length: want - active.length }, () => ({ index: undefined, failures: 0 })),
    excess: [],
  };
}

/** Failures of an index so far: the most any of its failed pods carried, plus one. */
export function indexFailures(pods: Pod[], index: number, total: number): number {
  let failures = 0;
  for (const pod of pods) {
    if (completionIndexOf(pod, total) !== index || pod.status?.phase !== 'Failed') continue;
    failures = Math.max(
      failures,
      Number(pod.metadata?.annotations?.[INDEX_FAILURE_COUNT_ANNOTATION] ?? '0') + 1,
    );
  }
  return failures;
}
