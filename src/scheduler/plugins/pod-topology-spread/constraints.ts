// Topology spread constraints as the plugin uses them (podtopologyspread common.go): selectors
// parsed (and matchLabelKeys folded in), defaults for minDomains and the inclusion policies, and
// the default constraints used for pods that declare none.

import type { RequiredNodeAffinity } from '../../../api/scheduling/node-selector.js';
import { findMatchingUntoleratedTaint, isDoNotScheduleTaint } from '../../../api/scheduling/taints.js';
import {
  type LabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
} from '../../../api/selectors/index.js';
import { LABEL_TOPOLOGY_ZONE } from '../../../api/topology.js';
import type { Node, Pod, TopologySpreadConstraint } from '../../../api/types/core-v1.generated.js';
import { selectorKey } from '../../cache/memo-keys.js';
import { type MemoTables, perNode } from '../../cache/memo-table.js';
import type { NodeInfo } from '../../cache/node-info.js';
import type { PodInfo } from '../../cache/pod-info.js';
import type { ClusterObjects } from '../../cluster-objects.js';

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export { LABEL_TOPOLOGY_ZONE };

export type InclusionPolicy = 'Honor' | 'Ignore';

export interface SpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly selector: LabelSelector;
  readonly minDomains: number;
  readonly nodeAffinityPolicy: InclusionPolicy;
  readonly nodeTaintsPolicy: InclusionPolicy;
}

/** kube-scheduler's system defaults: spread by hostname (maxSkew 3) and zone (maxSkew 5), softly. */
export const SYSTEM_DEFAULT_CONSTRAINTS: readonly TopologySpreadConstraint[] = [
  { topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: LABEL_TOPOLOGY_ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
];

function mergeLabelSetWithSelector(
  matchLabels: Record<string, string>,
  selector: LabelSelector,
): LabelSelector {
  if (selector.selectsNothing) return selector;
  return labelSelectorFromSet(matchLabels).add(...selector.requirements);
}

/** The constraints with the given whenUnsatisfiable; throws on a selector that does not parse. */
export function filterConstraints(
  constraints: readonly TopologySpreadConstraint[],
  podLabels: Readonly<Record<string, string>> | undefined,
  action: 'DoNotSchedule' | 'ScheduleAnyway',
): SpreadConstraint[] {
  const result: SpreadConstraint[] = [];
  for (const constraint of constraints) {
    if (constraint.whenUnsatisfiable !== action) continue;
    let selector = labelSelectorFromObject(constraint.labelSelector);
    const keys = constraint.matchLabelKeys ?? [];
    if (keys.length > 0 && podLabels !== undefined) {
      const matchLabels: Record<string, string> = {};
      let any = false;
      for (const key of keys) {
        if (Object.hasOwn(podLabels, key)) {
          matchLabels[key] = podLabels[key]!;
          any = true;
        }
      }
      if (any) selector = mergeLabelSetWithSelector(matchLabels, selector);
    }
    result.push({
      maxSkew: constraint.maxSkew,
      topologyKey: constraint.topologyKey,
      selector,
      minDomains: constraint.minDomains ?? 1,
      nodeAffinityPolicy: constraint.nodeAffinityPolicy === 'Ignore' ? 'Ignore' : 'Honor',
      nodeTaintsPolicy: constraint.nodeTaintsPolicy === 'Honor' ? 'Honor' : 'Ignore',
    });
  }
  return result;
}

/**
 * helper.DefaultSelector: the union of the selectors of the services selecting the pod and of its
 * controlling ReplicationController, ReplicaSet or StatefulSet.
 */
export function defaultSelector(pod: Pod, objects: ClusterObjects): LabelSelector {
  const labelSet: Record<string, string> = {};
  for (const service of objects.servicesSelecting(pod)) Object.assign(labelSet, service.spec?.selector ?? {});
  let selector = labelSelectorFromSet(labelSet);
  const owner = pod.metadata?.ownerReferences?.find((reference) => reference.controller === true);
  if (owner === undefined) return selector;
  const namespace = pod.metadata?.namespace ?? '';
  const group = owner.apiVersion.includes('/') ? owner.apiVersion.split('/')[0] : '';
  if (group === '' && owner.kind === 'ReplicationController') {
    const controller = objects.replicationControllers.get(namespace, owner.name);
    if (controller !== undefined) {
      Object.assign(labelSet, controller.spec?.selector ?? {});
      selector = labelSelectorFromSet(labelSet);
    }
  } else if (group === 'apps' && (owner.kind === 'ReplicaSet' || owner.kind === 'StatefulSet')) {
    const workload =
      owner.kind === 'ReplicaSet'
        ? objects.replicaSets.get(namespace, owner.name)
        : objects.statefulSets.get(namespace, owner.name);
    if (workload !== undefined) {
      try {
        const other = labelSelectorFromObject(workload.spec?.selector);
        if (!other.selectsNothing) selector = selector.add(...other.requirements);
      } catch {
        // An unparsable selector adds nothing.
      }
    }
  }
  return selector;
}

/** The default constraints for a pod without its own, with the default selector; none if it is empty. */
export function buildDefaultConstraints(
  pod: Pod,
  objects: ClusterObjects,
  defaults: readonly TopologySpreadConstraint[],
  action: 'DoNotSchedule' | 'ScheduleAnyway',
): SpreadConstraint[] {
  const constraints = filterConstraints(defaults, pod.metadata?.labels, action);
  if (constraints.length === 0) return constraints;
  const selector = defaultSelector(pod, objects);
  if (selector.isEmpty()) return [];
  return constraints.map((constraint) => ({ ...constraint, selector }));
}

export function nodeLabelsMatchSpreadConstraints(
  labels: Readonly<Record<string, string>>,
  constraints: readonly SpreadConstraint[],
): boolean {
  for (const constraint of constraints) if (!Object.hasOwn(labels, constraint.topologyKey)) return false;
  return true;
}

/** Whether the node counts for the constraint under its nodeAffinityPolicy / nodeTaintsPolicy. */
export function matchNodeInclusionPolicies(
  constraint: SpreadConstraint,
  pod: Pod,
  node: Node | NodeInfo,
  required: RequiredNodeAffinity,
): boolean {
  const labels = 'labels' in node ? node.labels : (node.metadata?.labels ?? {});
  const name = 'labels' in node ? node.name : (node.metadata?.name ?? '');
  if (constraint.nodeAffinityPolicy === 'Honor' && !required.matchesLabels(labels, name)) return false;
  if (constraint.nodeTaintsPolicy === 'Honor') {
    const taints = 'taints' in node ? node.taints : (node.spec?.taints ?? []);
    if (findMatchingUntoleratedTaint(taints, pod.spec?.tolerations, isDoNotScheduleTaint) !== undefined)
      return false;
  }
  return true;
}

/**
 * A counter of the pods matching the selector on the node at a position of the snapshot list,
 * remembered in the snapshot's memo tables (when given) until the node changes.
 */
export function nodeMatchCounter(
  memo: MemoTables | undefined,
  selector: LabelSelector,
  namespace: string,
): (index: number, nodeInfo: NodeInfo) => number {
  return perNode(memo, `spread:${namespace}:${selectorKey(selector)}`, (nodeInfo) =>
    countPodsMatchSelector(nodeInfo.pods, selector, namespace),
  );
}

/** Pods in the namespace matching the selector, terminating ones excluded; 0 for an empty selector. */
export function countPodsMatchSelector(
  podInfos: readonly PodInfo[],
  selector: LabelSelector,
  namespace: string,
): number {
  if (selector.isEmpty()) return 0;
  let count = 0;
  for (const podInfo of podInfos) {
    if (podInfo.namespace !== namespace || podInfo.isTerminating()) continue;
    if (selector.matches(podInfo.labels)) count++;
  }
  return count;
}
