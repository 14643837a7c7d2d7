// Completion-index sets of Indexed Jobs (pkg/controller/job/indexed_job_utils.go): the
// `status.completedIndexes` / `status.failedIndexes` text, ordered comma-separated intervals such
// as `1,3-5,7`, and the index a pod carries in its annotation (or, failing that, its label).
import type { Pod } from '../../api/types/core-v1.generated.js';

export const COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
/** The pod label carrying the index (PodIndexLabel, on by default since 1.28). */
export const COMPLETION_INDEX_LABEL = 'batch.kubernetes.io/job-completion-index';

/** The indexes below `completions` an interval text names; malformed parts are skipped. */
export function parseIndexes(text: string | undefined, completions: number): Set<number> {
  const indexes = new Set<number>();
  if (!text) return indexes;
  for (const part of text.split(',')) {
    const [first, last = first] = part.split('-');
    const from = Number(first);
    const to = Number(last);
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from) continue;
    for (let index = from; index <= Math.min(to, completions - 1); index++) indexes.add(index);
  }
  return indexes;
}

/** The interval text of a set of indexes: runs of two or more become `a-b`. */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The completion index of a pod of an Indexed Job; undefined when absent or out of range. */
export function completionIndexOf(pod: Pod, completions: number): number | undefined {
  const text =
    pod.metadata?.annotations?.[COMPLETION_INDEX_ANNOTATION] ??
    pod.metadata?.labels?.[COMPLETION_INDEX_LABEL];
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const index = Number(text);
  return index < completions ? index : undefined;
}
