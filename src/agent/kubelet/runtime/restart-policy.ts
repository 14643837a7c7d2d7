// When a stopped container runs again (ShouldContainerBeRestarted), shared by the sync (what to
// start) and the status (what shows as waiting).
import type { Container, Pod } from '../../../api/types/core-v1.generated.js';
import { latestContainer, type PodRuntime } from './pod-runtime.js';

/** An init container with `restartPolicy: Always`: a sidecar that keeps running. */
export function isRestartableInitContainer(container: Container): boolean {
  return container.restartPolicy === 'Always';
}

/** The pod restarts containers that failed (restartPolicy Always or OnFailure). */
export function restartsOnFailure(pod: Pod): boolean {
  return pod.spec?.restartPolicy !== 'Never';
}

export function shouldContainerBeRestarted(container: Container, pod: Pod, runtime: PodRuntime): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  const status = latestContainer(runtime, container.name);
  if (!status) return true;
  if (status.state === 'running') return false;
  if (status.state === 'unknown' || status.state === 'created') return true;
  const policy = pod.spec?.restartPolicy ?? 'Always';
  if (policy === 'Never') return false;
  if (policy === 'OnFailure') return status.exitCode !== 0;
  return true;
}
