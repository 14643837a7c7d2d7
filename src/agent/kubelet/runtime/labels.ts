// The labels and annotations the kubelet puts on sandboxes and containers
// (pkg/kubelet/kuberuntime/labels.go): they are how a restarted kubelet finds its pods, restart
// counts and hooks again in the runtime, so their names and encodings are the real kubelet's.
import type {
  Container,
  ContainerPort,
  LifecycleHandler,
  Pod,
} from '../../../api/types/core-v1.generated.js';

export const POD_NAME_LABEL = 'io.kubernetes.pod.name';
export const POD_NAMESPACE_LABEL = 'io.kubernetes.pod.namespace';
export const POD_UID_LABEL = 'io.kubernetes.pod.uid';
export const CONTAINER_NAME_LABEL = 'io.kubernetes.container.name';

const POD_DELETION_GRACE_PERIOD = 'io.kubernetes.pod.deletionGracePeriod';
const POD_TERMINATION_GRACE_PERIOD = 'io.kubernetes.pod.terminationGracePeriod';
const CONTAINER_HASH = 'io.kubernetes.container.hash';
const CONTAINER_RESTART_COUNT = 'io.kubernetes.container.restartCount';
const CONTAINER_TERMINATION_MESSAGE_PATH = 'io.kubernetes.container.terminationMessagePath';
const CONTAINER_TERMINATION_MESSAGE_POLICY = 'io.kubernetes.container.terminationMessagePolicy';
const CONTAINER_PRESTOP_HANDLER = 'io.kubernetes.container.preStopHandler';
const CONTAINER_PORTS = 'io.kubernetes.container.ports';
const CONTAINER_TYPE = 'io.kubernetes.container.type';

export type ContainerType = 'init' | 'container' | 'ephemeral';

/** A sandbox's labels: the pod's own, plus its name, namespace and uid. */
export function sandboxLabels(pod: Pod): Record<string, string> {
  const meta = pod.metadata ?? {};
  return {
    ...(meta.labels ?? {}),
    [POD_NAME_LABEL]: meta.name ?? '',
    [POD_NAMESPACE_LABEL]: meta.namespace ?? '',
    [POD_UID_LABEL]: meta.uid ?? '',
  };
}

export function containerLabels(pod: Pod, container: Container): Record<string, string> {
  const meta = pod.metadata ?? {};
  return {
    [POD_NAME_LABEL]: meta.name ?? '',
    [POD_NAMESPACE_LABEL]: meta.namespace ?? '',
    [POD_UID_LABEL]: meta.uid ?? '',
    [CONTAINER_NAME_LABEL]: container.name,
  };
}

export function containerAnnotations(
  pod: Pod,
  container: Container,
  type: ContainerType,
  restartCount: number,
  hash: string,
): Record<string, string> {
  const annotations: Record<string, string> = {
    [CONTAINER_HASH]: hash,
    [CONTAINER_RESTART_COUNT]: String(restartCount),
    [CONTAINER_TERMINATION_MESSAGE_PATH]: container.terminationMessagePath ?? '',
    [CONTAINER_TERMINATION_MESSAGE_POLICY]: container.terminationMessagePolicy ?? '',
  };
  const deletionGrace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletionGrace !== undefined) annotations[POD_DELETION_GRACE_PERIOD] = String(deletionGrace);
  const terminationGrace = pod.spec?.terminationGracePeriodSeconds;
  if (terminationGrace !== undefined) annotations[POD_TERMINATION_GRACE_PERIOD] = String(terminationGrace);
  if (container.lifecycle?.preStop)
    annotations[CONTAINER_PRESTOP_HANDLER] = JSON.stringify(container.lifecycle.preStop);
  if (container.ports?.length) annotations[CONTAINER_PORTS] = JSON.stringify(container.ports);
  annotations[CONTAINER_TYPE] = type;
  return annotations;
}

/** What the labels and annotations of a runtime container say about it. */
export interface ContainerInfo {
  readonly podUid: string;
  readonly podName: string;
  readonly podNamespace: string;
  readonly containerName: string;
  readonly hash: string;
  readonly restartCount: number;
  readonly terminationMessagePath: string;
  readonly terminationMessagePolicy: string;
  readonly type: string;
  readonly podTerminationGracePeriod?: number;
  readonly podDeletionGracePeriod?: number;
  readonly preStop?: LifecycleHandler;
  readonly ports?: ContainerPort[];
}

function integer(text: string | undefined): number | undefined {
  if (text === undefined || !/^-?\d+$/.test(text)) return undefined;
  return Number(text);
}

function json<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

export function containerInfo(
  labels: Record<string, string>,
  annotations: Record<string, string>,
): ContainerInfo {
  return {
    podUid: labels[POD_UID_LABEL] ?? '',
    podName: labels[POD_NAME_LABEL] ?? '',
    podNamespace: labels[POD_NAMESPACE_LABEL] ?? '',
    containerName: labels[CONTAINER_NAME_LABEL] ?? '',
    hash: annotations[CONTAINER_HASH] ?? '',
    restartCount: integer(annotations[CONTAINER_RESTART_COUNT]) ?? 0,
    terminationMessagePath: annotations[CONTAINER_TERMINATION_MESSAGE_PATH] ?? '',
    terminationMessagePolicy: annotations[CONTAINER_TERMINATION_MESSAGE_POLICY] ?? '',
    type: annotations[CONTAINER_TYPE] ?? '',
    podTerminationGracePeriod: integer(annotations[POD_TERMINATION_GRACE_PERIOD]),
    podDeletionGracePeriod: integer(annotations[POD_DELETION_GRACE_PERIOD]),
    preStop: json<LifecycleHandler>(annotations[CONTAINER_PRESTOP_HANDLER]),
    ports: json<ContainerPort[]>(annotations[CONTAINER_PORTS]),
  };
}
