// The wait for a node's containerd (kind waits likewise for its node's systemd and containerd):
// the entrypoint writes CONTAINERD_READY_MARKER once containerd answers and the pause image is in
// place. Seen from the host when the node's /run/tkube is a host directory (polling a file costs
// nothing), otherwise through one exec that waits inside the node.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type Dockerode from 'dockerode';
import { isConnectionError } from './docker-client.js';
import { DockerProviderError, engineMessage } from './errors.js';
import { execInContainer } from './exec.js';
import { CONTAINERD_READY_MARKER } from './image/layout.js';
import { containerLogTail } from './logs.js';

const POLL_MS = 50;
/** How often the host-side wait asks the engine whether the node still runs. */
const STATE_CHECK_MS = 500;

export async function waitForContainerdInNode(
  docker: Dockerode,
  node: string,
  timeoutMs: number,
): Promise<void> {
  // One exec that waits inside the node: polling from here would cost an exec per try.
  const tries = Math.max(1, Math.ceil(timeoutMs / POLL_MS));
  const script =
    `i=0; until [ -e ${CONTAINERD_READY_MARKER} ]; do i=$((i + 1)); ` +
    `[ "$i" -le ${tries} ] || exit 3; sleep 0.05; done`;
  let failure: string;
  try {
    const result = await execInContainer(docker, node, ['sh', '-c', script]);
    if (result.exitCode === 0) return;
    failure = result.exitCode === 3 ? notReady(timeoutMs) : result.stderr.trim();
  } catch (error) {
    if (isConnectionError(error)) throw error;
    failure = engineMessage(error);
  }
  throw await containerdFailure(docker, node, failure);
}

/**
 * Watches the ready marker in `runDirOnHost`, the host directory mounted at the node's
 * /run/tkube. The entrypoint deletes a marker left by an earlier start before it starts
 * containerd, so the caller empties the directory before the node is created. A node whose
 * container stops or is restarted by the engine (its entrypoint failed) fails the wait at once.
 */
export async function waitForContainerdMarker(
  docker: Dockerode,
  node: string,
  runDirOnHost: string,
  timeoutMs: number,
): Promise<void> {
  const marker = join(runDirOnHost, basename(CONTAINERD_READY_MARKER));
  const deadline = Date.now() + timeoutMs;
  let nextStateCheck = Date.now() + STATE_CHECK_MS;
  for (;;) {
    if (existsSync(marker)) return;
    if (Date.now() >= deadline) throw await containerdFailure(docker, node, notReady(timeoutMs));
    if (Date.now() >= nextStateCheck) {
      const stopped = await whyNotRunning(docker, node);
      if (stopped) throw await containerdFailure(docker, node, stopped);
      nextStateCheck = Date.now() + STATE_CHECK_MS;
    }
    await sleep(POLL_MS);
  }
}

/** Why the node's container is not running its first start, or undefined while it is. */
async function whyNotRunning(docker: Dockerode, node: string): Promise<string | undefined> {
  let state: Dockerode.ContainerInspectInfo['State'];
  let restarts: number;
  try {
    const info = await docker.getContainer(node).inspect();
    state = info.State;
    restarts = info.RestartCount;
  } catch (error) {
    if (isConnectionError(error)) throw error;
    return engineMessage(error);
  }
  if (restarts > 0) return `its container was restarted ${restarts} time(s) after its entrypoint exited`;
  if (!state.Running) return `its container is ${state.Status} (exit code ${state.ExitCode})`;
  return undefined;
}

function notReady(timeoutMs: number): string {
  return `not ready after ${timeoutMs / 1000} s`;
}

async function containerdFailure(
  docker: Dockerode,
  node: string,
  failure: string,
): Promise<DockerProviderError> {
  const logs = await containerLogTail(docker, node, 20).catch(() => '');
  return new DockerProviderError(
    `containerd in node ${node} did not start: ${failure}${logs ? `\nlast lines of the node's log:\n${logs}` : ''}`,
  );
}
