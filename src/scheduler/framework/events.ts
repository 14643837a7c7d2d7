// Cluster events (framework.ClusterEvent): what changed, so the queue can move back exactly the
// unschedulable pods whose rejecting plugins care about that change.

import { podRequests } from '../../api/scheduling/pod-requests.js';
import type { Node, Pod } from '../../api/types/core-v1.generated.js';

/** Bits of what happened to an object. */
export const ActionType = {
  Add: 1 << 0,
  Delete: 1 << 1,
  UpdateNodeAllocatable: 1 << 2,
  UpdateNodeLabel: 1 << 3,
  /** Taints changed, or spec.unschedulable did. */
  UpdateNodeTaint: 1 << 4,
  UpdateNodeCondition: 1 << 5,
  UpdateNodeAnnotation: 1 << 6,
  UpdatePodLabel: 1 << 7,
  UpdatePodScaleDown: 1 << 8,
  UpdatePodToleration: 1 << 9,
  UpdatePodSchedulingGatesEliminated: 1 << 10,
  /** A pod update that is none of the specific ones. */
  UpdatePodOther: 1 << 11,
  /** Any other update (namespaces, PDBs …). */
  UpdateOther: 1 << 12,
} as const;

const UPDATE =
  ActionType.UpdateNodeAllocatable |
  ActionType.UpdateNodeLabel |
  ActionType.UpdateNodeTaint |
  ActionType.UpdateNodeCondition |
  ActionType.UpdateNodeAnnotation |
  ActionType.UpdatePodLabel |
  ActionType.UpdatePodScaleDown |
  ActionType.UpdatePodToleration |
  ActionType.UpdatePodSchedulingGatesEliminated |
  ActionType.UpdatePodOther |
  ActionType.UpdateOther;

/** Every kind of update; and every action. */
export const ACTION_UPDATE = UPDATE;
export const ACTION_ALL = ActionType.Add | ActionType.Delete | UPDATE;

/**
 * `Pod` in a registration matches both `AssignedPod` (bound pods) and `UnscheduledPod` events;
 * `*` is the wildcard.
 */
export type EventResource =
  | 'Pod'
  | 'AssignedPod'
  | 'UnscheduledPod'
  | 'Node'
  | 'Namespace'
  | 'PodDisruptionBudget'
  | 'Service'
  | 'PersistentVolumeClaim'
  | 'PersistentVolume'
  | 'StorageClass'
  | '*';

export interface ClusterEvent {
  readonly resource: EventResource;
  readonly actionType: number;
  /** For logs and the special wildcard events. */
  readonly label?: string;
}

export const EVENT_NODE_ADD: ClusterEvent = {
  resource: 'Node',
  actionType: ActionType.Add,
  label: 'NodeAdd',
};
export const EVENT_NODE_DELETE: ClusterEvent = {
  resource: 'Node',
  actionType: ActionType.Delete,
  label: 'NodeDelete',
};
export const EVENT_ASSIGNED_POD_ADD: ClusterEvent = {
  resource: 'AssignedPod',
  actionType: ActionType.Add,
  label: 'AssignedPodAdd',
};
export const EVENT_ASSIGNED_POD_DELETE: ClusterEvent = {
  resource: 'AssignedPod',
  actionType: ActionType.Delete,
  label: 'AssignedPodDelete',
};
/** Pods that stayed unschedulable longer than the limit (5 min) are retried. */
export const EVENT_UNSCHEDULABLE_TIMEOUT: ClusterEvent = {
  resource: '*',
  actionType: ACTION_ALL,
  label: 'UnschedulableTimeout',
};
export const EVENT_FORCE_ACTIVATE: ClusterEvent = {
  resource: '*',
  actionType: ACTION_ALL,
  label: 'ForceActivate',
};

export function isWildcardEvent(event: ClusterEvent): boolean {
  return event.resource === '*' && event.actionType === ACTION_ALL;
}

/** Whether a registered event covers an incoming one. */
export function eventMatches(registered: ClusterEvent, incoming: ClusterEvent): boolean {
  if (isWildcardEvent(registered)) return true;
  const resourceMatches =
    registered.resource === '*' ||
    registered.resource === incoming.resource ||
    (registered.resource === 'Pod' &&
      (incoming.resource === 'AssignedPod' || incoming.resource === 'UnscheduledPod'));
  return resourceMatches && (registered.actionType & incoming.actionType) !== 0;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** The update bits a node change amounts to (framework.NodeSchedulingPropertiesChange). */
export function nodeUpdateActions(oldNode: Node, newNode: Node): number {
  let actions = 0;
  if ((oldNode.spec?.unschedulable ?? false) !== (newNode.spec?.unschedulable ?? false)) {
    actions |= ActionType.UpdateNodeTaint;
  }
  if (!sameJson(oldNode.status?.allocatable, newNode.status?.allocatable))
    actions |= ActionType.UpdateNodeAllocatable;
  if (!sameJson(oldNode.metadata?.labels, newNode.metadata?.labels)) actions |= ActionType.UpdateNodeLabel;
  if (!sameJson(oldNode.spec?.taints, newNode.spec?.taints)) actions |= ActionType.UpdateNodeTaint;
  const conditions = (node: Node) => (node.status?.conditions ?? []).map((c) => [c.type, c.status]);
  if (!sameJson(conditions(oldNode), conditions(newNode))) actions |= ActionType.UpdateNodeCondition;
  if (!sameJson(oldNode.metadata?.annotations, newNode.metadata?.annotations))
    actions |= ActionType.UpdateNodeAnnotation;
  return actions;
}

function scaledDown(oldPod: Pod, newPod: Pod): boolean {
  const before = podRequests(oldPod);
  const after = podRequests(newPod);
  if (after.milliCPU < before.milliCPU || after.memory < before.memory) return true;
  if (after.ephemeralStorage < before.ephemeralStorage) return true;
  for (const [name, amount] of before.scalar ?? []) if (after.scalarOf(name) < amount) return true;
  return false;
}

/** The events a pod update amounts to (framework.PodSchedulingPropertiesChange). */
export function podUpdateEvents(oldPod: Pod, newPod: Pod): ClusterEvent[] {
  const resource: EventResource = newPod.spec?.nodeName ? 'AssignedPod' : 'UnscheduledPod';
  const events: ClusterEvent[] = [];
  const push = (actionType: number, label: string) => events.push({ resource, actionType, label });
  if (!sameJson(oldPod.metadata?.labels, newPod.metadata?.labels))
    push(ActionType.UpdatePodLabel, 'PodLabelChange');
  if (scaledDown(oldPod, newPod)) push(ActionType.UpdatePodScaleDown, 'PodScaleDown');
  const gatesBefore = oldPod.spec?.schedulingGates?.length ?? 0;
  const gatesAfter = newPod.spec?.schedulingGates?.length ?? 0;
  if (gatesBefore > 0 && gatesAfter === 0)
    push(ActionType.UpdatePodSchedulingGatesEliminated, 'PodSchedulingGateEliminatedChange');
  if (!sameJson(oldPod.spec?.tolerations, newPod.spec?.tolerations))
    push(ActionType.UpdatePodToleration, 'PodTolerationChange');
  if (events.length === 0) push(ActionType.UpdatePodOther, 'PodUpdate');
  return events;
}
