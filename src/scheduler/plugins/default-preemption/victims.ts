// Choosing victims on one node (DefaultPreemption.SelectVictimsOnNode): remove every pod of lower
// priority, check the preemptor fits, then put pods back — those whose PodDisruptionBudget would
// be violated first, most important first — keeping each that still lets the preemptor fit.

import { labelSelectorFromObject } from '../../../api/selectors/index.js';
import type { Pod } from '../../../api/types/core-v1.generated.js';
import type { PodDisruptionBudget } from '../../../api/types/policy-v1.generated.js';
import type { NodeInfo } from '../../cache/node-info.js';
import type { PodInfo } from '../../cache/pod-info.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { Framework } from '../../framework/framework.js';
import { Status } from '../../framework/status.js';

export const NO_VICTIMS_FOUND = 'No preemption victims found for incoming pod';

/** util.GetPodStartTime: status.startTime, else now (the pod has not started). */
export function podStartTime(pod: Pod, now: number): number {
  const started = pod.status?.startTime;
  if (started === undefined) return now;
  const parsed = Date.parse(started);
  return Number.isNaN(parsed) ? now : parsed;
}

/** util.MoreImportantPod: higher priority, then the one that started earlier. */
export function moreImportantPod(a: Pod, b: Pod, now: number): boolean {
  const priorityA = a.spec?.priority ?? 0;
  const priorityB = b.spec?.priority ?? 0;
  if (priorityA !== priorityB) return priorityA > priorityB;
  return podStartTime(a, now) < podStartTime(b, now);
}

/**
 * Splits pods (kept in order) into those whose eviction would exceed a PDB's disruptionsAllowed
 * and those that would not, counting down the budgets as it goes.
 */
export function filterPodsWithPDBViolation(
  podInfos: readonly PodInfo[],
  pdbs: readonly PodDisruptionBudget[],
): { violating: PodInfo[]; nonViolating: PodInfo[] } {
  const allowed = pdbs.map((pdb) => pdb.status?.disruptionsAllowed ?? 0);
  const selectors = pdbs.map((pdb) => {
    try {
      return labelSelectorFromObject(pdb.spec?.selector);
    } catch {
      return undefined;
    }
  });
  const violating: PodInfo[] = [];
  const nonViolating: PodInfo[] = [];
  for (const podInfo of podInfos) {
    const pod = podInfo.pod;
    let violated = false;
    const labels = pod.metadata?.labels;
    if (labels !== undefined && Object.keys(labels).length > 0) {
      pdbs.forEach((pdb, index) => {
        if ((pdb.metadata?.namespace ?? '') !== podInfo.namespace) return;
        const selector = selectors[index];
        // A PDB with a nil or empty selector matches nothing.
        if (selector === undefined || selector.isEmpty() || !selector.matches(labels)) return;
        if (Object.hasOwn(pdb.status?.disruptedPods ?? {}, podInfo.name)) return;
        allowed[index]!--;
        if (allowed[index]! < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(podInfo);
  }
  return { violating, nonViolating };
}

export interface VictimSelection {
  readonly victims: PodInfo[];
  readonly numPDBViolations: number;
  readonly status: Status | null;
}

/** Selects victims on a copy of the node; `nodeInfo` and `state` are modified (pass copies). */
export function selectVictimsOnNode(
  framework: Framework,
  state: CycleState,
  preemptor: PodInfo,
  nodeInfo: NodeInfo,
  pdbs: readonly PodDisruptionBudget[],
  now: number,
): VictimSelection {
  const removePod = (podInfo: PodInfo): Status | null => {
    nodeInfo.removePod(podInfo.key);
    return framework.runPreFilterExtensionRemovePod(state, preemptor, podInfo, nodeInfo);
  };
  const addPod = (podInfo: PodInfo): Status | null => {
    nodeInfo.addPodInfo(podInfo);
    return framework.runPreFilterExtensionAddPod(state, preemptor, podInfo, nodeInfo);
  };
  const potential = nodeInfo.pods.filter((podInfo) => podInfo.priority < preemptor.priority);
  for (const podInfo of potential) {
    const status = removePod(podInfo);
    if (status !== null) return { victims: [], numPDBViolations: 0, status };
  }
  if (potential.length === 0)
    return { victims: [], numPDBViolations: 0, status: Status.unresolvable(NO_VICTIMS_FOUND) };
  const fits = framework.runFilterPluginsWithNominatedPods(state, preemptor, nodeInfo);
  if (fits !== null) return { victims: [], numPDBViolations: 0, status: fits };

  potential.sort((a, b) =>
    moreImportantPod(a.pod, b.pod, now) ? -1 : moreImportantPod(b.pod, a.pod, now) ? 1 : 0,
  );
  const { violating, nonViolating } = filterPodsWithPDBViolation(potential, pdbs);
  const victims: PodInfo[] = [];
  let numPDBViolations = 0;
  const reprieve = (podInfo: PodInfo): { fits: boolean; error: Status | null } => {
    const added = addPod(podInfo);
    if (added !== null) return { fits: false, error: added };
    const status = framework.runFilterPluginsWithNominatedPods(state, preemptor, nodeInfo);
    if (status === null) return { fits: true, error: null };
    const removed = removePod(podInfo);
    if (removed !== null) return { fits: false, error: removed };
    victims.push(podInfo);
    return { fits: false, error: null };
  };
  for (const podInfo of violating) {
    const { fits: kept, error } = reprieve(podInfo);
    if (error !== null) return { victims: [], numPDBViolations: 0, status: error };
    if (!kept) numPDBViolations++;
  }
  for (const podInfo of nonViolating) {
    const { error } = reprieve(podInfo);
    if (error !== null) return { victims: [], numPDBViolations: 0, status: error };
  }
  if (violating.length > 0 && nonViolating.length > 0) {
    victims.sort((a, b) =>
      moreImportantPod(a.pod, b.pod, now) ? -1 : moreImportantPod(b.pod, a.pod, now) ? 1 : 0,
    );
  }
  return { victims, numPDBViolations, status: null };
}
