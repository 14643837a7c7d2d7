// The pod conditions the kubelet owns (pkg/kubelet/status/generate.go), with Kubernetes'
// reasons and messages. Go prints string lists as `[a b]`.
import type { ContainerStatus, PodCondition, PodSpec } from '../../../api/types/core-v1.generated.js';
import { isRestartableInitContainer } from '../runtime/restart-policy.js';

/** The conditions the kubelet writes, in its order; others' conditions are left alone. */
export const KUBELET_CONDITIONS = [
  'PodReadyToStartContainers',
  'Initialized',
  'Ready',
  'ContainersReady',
  'PodScheduled',
] as const;

export type Condition = Pick<PodCondition, 'type' | 'status' | 'reason' | 'message'>;

const goList = (names: readonly string[]): string => `[${names.join(' ')}]`;

function find(statuses: readonly ContainerStatus[], name: string): ContainerStatus | undefined {
  return statuses.find((status) => status.name === name);
}

/** Some regular container is running or has run: the pod has been initialized at some point. */
export function hasAnyRegularContainerStarted(spec: PodSpec, statuses: readonly ContainerStatus[]): boolean {
  const names = new Set(spec.containers.map((container) => container.name));
  return statuses.some(
    (status) =>
      names.has(status.name) &&
      (status.state?.running !== undefined || status.state?.terminated !== undefined),
  );
}

export function containersReadyCondition(
  spec: PodSpec,
  statuses: readonly ContainerStatus[],
  phase: string,
): Condition {
  const unknown: string[] = [];
  const unready: string[] = [];
  const consider = [...(spec.initContainers ?? []).filter(isRestartableInitContainer), ...spec.containers];
  for (const container of consider) {
    const status = find(statuses, container.name);
    if (!status) unknown.push(container.name);
    else if (!status.ready) unready.push(container.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) {
    return { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' };
  }
  if (phase === 'Failed') return { type: 'ContainersReady', status: 'False', reason: 'PodFailed' };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${goList(unready)}`);
  if (messages.length > 0) {
    return {
      type: 'ContainersReady',
      status: 'False',
      reason: 'ContainersNotReady',
      message: messages.join(', '),
    };
  }
  return { type: 'ContainersReady', status: 'True' };
}

export function readyCondition(
  spec: PodSpec,
  conditions: readonly PodCondition[],
  statuses: readonly ContainerStatus[],
  phase: string,
): Condition {
  const containersReady = containersReadyCondition(spec, statuses, phase);
  if (containersReady.status !== 'True') return { ...containersReady, type: 'Ready' };
  const messages: string[] = [];
  for (const gate of spec.readinessGates ?? []) {
    const condition = conditions.find((c) => c.type === gate.conditionType);
    if (!condition) {
      messages.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    } else if (condition.status !== 'True') {
      messages.push(
        `the status of pod readiness gate "${gate.conditionType}" is not "True", but ${condition.status}`,
      );
    }
  }
  if (messages.length > 0) {
    return { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: messages.join(', ') };
  }
  return { type: 'Ready', status: 'True' };
}

export function initializedCondition(
  spec: PodSpec,
  statuses: readonly ContainerStatus[],
  phase: string,
): Condition {
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const container of spec.initContainers ?? []) {
    const status = find(statuses, container.name);
    if (!status) {
      unknown.push(container.name);
    } else if (isRestartableInitContainer(container)) {
      if (!status.started) incomplete.push(container.name);
    } else if (!(status.state?.terminated?.exitCode === 0)) {
      incomplete.push(container.name);
    }
  }
  if (phase === 'Succeeded' && unknown.length === 0) {
    return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  }
  if (hasAnyRegularContainerStarted(spec, statuses)) return { type: 'Initialized', status: 'True' };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length > 0) messages.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (messages.length > 0) {
    return {
      type: 'Initialized',
      status: 'False',
      reason: 'ContainersNotInitialized',
      message: messages.join(', '),
    };
  }
  return { type: 'Initialized', status: 'True' };
}
