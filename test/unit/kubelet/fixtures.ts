// Pods and runtime states for the kubelet's unit tests.

import { containerHash } from '../../../src/agent/kubelet/runtime/container-hash.js';
import type { ContainerInfo } from '../../../src/agent/kubelet/runtime/labels.js';
import type {
  PodRuntime,
  RuntimeContainer,
  RuntimeContainerState,
  RuntimeSandbox,
} from '../../../src/agent/kubelet/runtime/pod-runtime.js';
import type { Container, Pod } from '../../../src/api/types/core-v1.generated.js';

export const UID = '11111111-2222-3333-4444-555555555555';

export function container(name: string, extra: Partial<Container> = {}): Container {
  return { name, image: 'tkube-test/busybox:1', terminationMessagePath: '/dev/termination-log', ...extra };
}

export function pod(spec: Partial<NonNullable<Pod['spec']>> = {}, extra: Partial<Pod> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: UID, resourceVersion: '7' },
    spec: { containers: [container('app')], restartPolicy: 'Always', ...spec },
    status: { phase: 'Pending', qosClass: 'BestEffort' },
    ...extra,
  };
}

export function sandbox(extra: Partial<RuntimeSandbox> = {}): RuntimeSandbox {
  return {
    id: 'sb1',
    podName: 'web',
    podNamespace: 'default',
    attempt: 0,
    ready: true,
    createdAt: 1_000,
    ips: ['10.244.1.5'],
    hostNetwork: false,
    ...extra,
  };
}

let nextId = 0;

/** A runtime container of `spec` (hash included, so it counts as unchanged). */
export function running(
  spec: Container,
  state: RuntimeContainerState = 'running',
  extra: Partial<RuntimeContainer> & { restartCount?: number } = {},
): RuntimeContainer {
  const { restartCount = 0, ...rest } = extra;
  const info: ContainerInfo = {
    podUid: UID,
    podName: 'web',
    podNamespace: 'default',
    containerName: spec.name,
    hash: containerHash(spec),
    restartCount,
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    type: 'container',
  };
  nextId++;
  return {
    id: `c${nextId}`,
    sandboxId: 'sb1',
    name: spec.name,
    info,
    state,
    createdAt: 2_000 + nextId,
    startedAt: state === 'created' ? 0 : 2_100,
    finishedAt: state === 'exited' ? 2_500 : 0,
    exitCode: 0,
    reason: state === 'exited' ? 'Completed' : '',
    message: '',
    image: 'docker.io/tkube-test/busybox:1',
    imageRef: 'sha256:abc',
    logPath: '',
    ...rest,
  };
}

/** Runtime state; containers are listed newest first as the reader does. */
export function runtimeOf(sandboxes: RuntimeSandbox[], containers: RuntimeContainer[]): PodRuntime {
  return {
    uid: UID,
    sandboxes,
    containers: [...containers].sort((a, b) => b.createdAt - a.createdAt),
  };
}
