// Stopping containers and pods (killContainer, killPodWithSyncResult): a Killing event, the
// preStop hook within the grace period, then StopContainer with what remains of it (at least
// 2 s: SIGTERM, then SIGKILL). Regular containers stop first; sidecars follow in reverse order.
import type { Container, ObjectReference, Pod } from '../../../api/types/core-v1.generated.js';
import type { CriClient } from '../cri/client.js';
import { isCriNotFound } from '../cri/client.js';
import type { RecordEvent } from '../images/image-manager.js';
import { type ExecInContainer, runHook } from '../lifecycle/hooks.js';
import type { ContainerInfo } from '../runtime/labels.js';
import type { PodRuntime, RuntimeContainer } from '../runtime/pod-runtime.js';
import { isRestartableInitContainer } from '../runtime/restart-policy.js';

/** The kubelet never gives a container less than this to stop (minimumGracePeriodInSeconds). */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;
const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;

export interface KillDeps {
  readonly cri: CriClient;
  readonly record: RecordEvent;
  readonly exec: ExecInContainer;
  readonly containerRef: (pod: Pod, container: Container) => ObjectReference;
  /** The pod's address for httpGet hooks. */
  readonly podIP: (pod: Pod) => string;
  readonly log: (message: string) => void;
}

/**
 * The grace period of a container being killed (setTerminationGracePeriod): the deletion's, else
 * the probe's own for probe kills, else the pod's.
 */
export function terminationGracePeriod(pod: Pod, container: Container | undefined, reason: string): number {
  const deletion = pod.metadata?.deletionGracePeriodSeconds;
  if (deletion !== undefined) return deletion;
  const probe =
    reason === 'LivenessProbe'
      ? container?.livenessProbe
      : reason === 'StartupProbe'
        ? container?.startupProbe
        : undefined;
  if (probe?.terminationGracePeriodSeconds !== undefined) return probe.terminationGracePeriodSeconds;
  return pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
}

/** What is left of a deleted pod's grace period (deletionTimestamp - now), in whole seconds. */
export function remainingGracePeriod(pod: Pod, now = Date.now()): number | undefined {
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  const deadline = pod.metadata?.deletionTimestamp;
  if (grace === undefined) return undefined;
  if (!deadline) return grace;
  const remaining = Math.ceil((Date.parse(deadline) - now) / 1000);
  return Math.max(0, Math.min(grace, remaining));
}

/** What killing a container needs to know of it. */
export type KillTarget = Pick<RuntimeContainer, 'id' | 'name' | 'state'> & {
  readonly info: Pick<ContainerInfo, 'preStop'>;
};

/** A container's spec, or one restored from its labels when the pod is unknown. */
function specOf(pod: Pod, container: KillTarget): Container {
  const spec =
    pod.spec?.containers?.find((c) => c.name === container.name) ??
    pod.spec?.initContainers?.find((c) => c.name === container.name);
  if (spec) return spec;
  return {
    name: container.name,
    ...(container.info.preStop ? { lifecycle: { preStop: container.info.preStop } } : {}),
  };
}

export interface KillOptions {
  readonly message?: string;
  readonly reason?: string;
  /** Overrides the grace period (seconds). */
  readonly gracePeriod?: number;
  /** Waited for after the preStop hook and before stopping (termination ordering). */
  readonly turn?: Promise<unknown>;
}

export async function killContainer(
  deps: KillDeps,
  pod: Pod,
  container: KillTarget,
  options: KillOptions = {},
): Promise<void> {
  const spec = specOf(pod, container);
  let grace = options.gracePeriod ?? terminationGracePeriod(pod, spec, options.reason ?? '');
  const ref = deps.containerRef(pod, spec);
  deps.record(ref, 'Normal', 'Killing', options.message || `Stopping container ${spec.name}`);
  const started = Date.now();
  const preStop = spec.lifecycle?.preStop;
  if (preStop && grace > 0 && container.state === 'running') {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), grace * 1000);
    const failure = await Promise.race([
      runHook(preStop, {
        pod,
        container: spec,
        containerId: container.id,
        podIP: deps.podIP(pod),
        exec: deps.exec,
        signal: abort.signal,
      }),
      new Promise<undefined>((resolve) =>
        abort.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
      ),
    ]);
    clearTimeout(timer);
    if (failure) {
      deps.log(
        `kubelet: preStop hook of ${pod.metadata?.namespace}/${pod.metadata?.name}/${spec.name}: ${failure}`,
      );
      deps.record(ref, 'Warning', 'FailedPreStopHook', 'PreStopHook failed');
    }
    grace -= Math.floor((Date.now() - started) / 1000);
  }
  if (options.turn && grace > 0) {
    const waitStarted = Date.now();
    await options.turn;
    grace -= Math.floor((Date.now() - waitStarted) / 1000);
  }
  grace = Math.max(grace, MINIMUM_GRACE_PERIOD_SECONDS);
  try {
    await deps.cri.stopContainer(container.id, grace);
  } catch (error) {
    if (!isCriNotFound(error)) throw error;
  }
}

/** The containers that may still run: everything not known to have exited. */
function liveContainers(runtime: PodRuntime): RuntimeContainer[] {
  return runtime.containers.filter((container) => container.state !== 'exited');
}

/**
 * Stops every container of the pod (sidecars after the regular containers, later sidecars
 * first), then its sandboxes.
 */
export async function killPod(
  deps: KillDeps,
  pod: Pod,
  runtime: PodRuntime,
  gracePeriod?: number,
): Promise<void> {
  const initSpecs = pod.spec?.initContainers ?? [];
  const live = liveContainers(runtime);
  const sidecarIndex = (container: RuntimeContainer) =>
    initSpecs.findIndex((spec) => spec.name === container.name && isRestartableInitContainer(spec));
  const regular = live.filter((container) => sidecarIndex(container) < 0);
  const sidecars = live
    .filter((container) => sidecarIndex(container) >= 0)
    .sort((a, b) => sidecarIndex(b) - sidecarIndex(a));
  const errors: unknown[] = [];
  const kill = (container: RuntimeContainer, turn?: Promise<unknown>) =>
    killContainer(deps, pod, container, { gracePeriod, turn }).catch((error: unknown) => {
      errors.push(error);
    });
  let turn: Promise<unknown> = Promise.all(regular.map((container) => kill(container)));
  const sidecarKills: Promise<unknown>[] = [];
  for (const sidecar of sidecars) {
    const done = kill(sidecar, turn);
    sidecarKills.push(done);
    turn = Promise.all([turn, done]);
  }
  await Promise.all([turn, ...sidecarKills]);
  for (const sandbox of runtime.sandboxes) {
    if (!sandbox.ready) continue;
    try {
      await deps.cri.stopPodSandbox(sandbox.id);
    } catch (error) {
      if (!isCriNotFound(error)) errors.push(error);
    }
  }
  if (errors.length > 0) {
    throw new Error(
      `failed to kill pod: ${errors.map((e) => (e instanceof Error ? e.message : String(e))).join('; ')}`,
    );
  }
}
