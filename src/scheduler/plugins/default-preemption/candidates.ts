// Preemption candidates and the choice among them (preemption.pickOneNodeForPreemption): fewest
// PDB violations, then the lowest highest-priority victim, then the smallest sum of priorities,
// then the fewest victims, then the latest start of the highest-priority victims, then the first.
import type { PodInfo } from '../../cache/pod-info.js';
import { podStartTime } from './victims.js';

export interface Candidate {
  readonly nodeName: string;
  /** Victims, most important first. */
  readonly victims: readonly PodInfo[];
  readonly numPDBViolations: number;
}

const MAX_INT32_PLUS_ONE = 2 ** 31;

/** util.GetEarliestPodStartTime: the earliest start among the highest-priority victims. */
export function earliestStartOfHighestPriority(victims: readonly PodInfo[], now: number): number | undefined {
  if (victims.length === 0) return undefined;
  let earliest = podStartTime(victims[0]!.pod, now);
  let maxPriority = victims[0]!.priority;
  for (const victim of victims) {
    if (victim.priority === maxPriority) {
      earliest = Math.min(earliest, podStartTime(victim.pod, now));
    } else if (victim.priority > maxPriority) {
      maxPriority = victim.priority;
      earliest = podStartTime(victim.pod, now);
    }
  }
  return earliest;
}

export function pickOneNodeForPreemption(
  candidates: readonly Candidate[],
  now: number,
): Candidate | undefined {
  if (candidates.length === 0) return undefined;
  const scoreFunctions: ((candidate: Candidate) => number)[] = [
    (candidate) => -candidate.numPDBViolations,
    (candidate) => -(candidate.victims[0]?.priority ?? 0),
    (candidate) => -candidate.victims.reduce((sum, victim) => sum + victim.priority + MAX_INT32_PLUS_ONE, 0),
    (candidate) => -candidate.victims.length,
    (candidate) => earliestStartOfHighestPriority(candidate.victims, now) ?? Number.MIN_SAFE_INTEGER,
  ];
  let remaining = candidates.slice();
  for (const score of scoreFunctions) {
    let best = Number.NEGATIVE_INFINITY;
    let selected: Candidate[] = [];
    for (const candidate of remaining) {
      const value = score(candidate);
      if (value > best) {
        best = value;
        selected = [candidate];
      } else if (value === best) {
        selected.push(candidate);
      }
    }
    if (selected.length === 1) return selected[0];
    remaining = selected;
  }
  return remaining[0];
}
