// Which tolerations let a pod stay on a node with NoExecute taints, and for how long
// (v1helper.GetMatchingTolerations and the taint manager's getMinTolerationTime).

import { toleratesTaint } from '../../api/scheduling/taints.js';
import type { Taint, Toleration } from '../../api/types/core-v1.generated.js';

/** Whether every taint is tolerated, and the first toleration matching each taint. */
export function matchingTolerations(
  taints: readonly Taint[],
  tolerations: readonly Toleration[] | undefined,
): { allTolerated: boolean; used: Toleration[] } {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const match = (tolerations ?? []).find((toleration) => toleratesTaint(toleration, taint));
    if (!match) return { allTolerated: false, used: [] };
    used.push(match);
  }
  return { allTolerated: true, used };
}

/**
 * How long the tolerations let a pod stay: the smallest tolerationSeconds (in ms; 0 when any is
 * zero or negative, or when there are none), or -1 when none is limited (forever).
 */
export function minTolerationTimeMs(tolerations: readonly Toleration[]): number {
  if (tolerations.length === 0) return 0;
  let min = Number.POSITIVE_INFINITY;
  for (const toleration of tolerations) {
    const seconds = toleration.tolerationSeconds;
    if (seconds === undefined) continue;
    if (seconds <= 0) return 0;
    min = Math.min(min, seconds);
  }
  return min === Number.POSITIVE_INFINITY ? -1 : min * 1000;
}
