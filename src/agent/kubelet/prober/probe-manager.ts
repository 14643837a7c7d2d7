// The kubelet's probe manager: one worker per probe of each running container, the settled
// readiness and startup state the status manager reads, and the results the pod worker acts on
// (restart after a liveness or startup failure, Ready after readiness).
import type { Container, Pod } from '../../../api/types/core-v1.generated.js';
import type { ExecSync } from './exec-probe.js';
import type { ProbeKind } from './outcome.js';
import { ProbeWorker } from './probe-worker.js';
import { runProbe } from './run-probe.js';

export interface ProbeResultEvent {
  podUid: string;
  containerName: string;
  containerId: string;
  kind: ProbeKind;
  result: 'success' | 'failure';
  /** The last attempt's output: what follows `Liveness probe failed: ` in the Unhealthy event. */
  output: string;
}

/** One attempt that failed, errored or warned, as the kubelet records it on the pod. */
export interface ProbeAttemptEvent {
  podUid: string;
  containerName: string;
  containerId: string;
  kind: ProbeKind;
  type: 'Warning';
  reason: 'Unhealthy' | 'ProbeWarning';
  /** `Liveness probe failed: HTTP probe failed with statuscode: 500`, `Readiness probe errored: ...` */
  message: string;
}

export interface ProbeManager {
  addContainer(pod: Pod, container: Container, containerId: string, podIP: string): void;
  removeContainer(containerId: string): void;
  removePod(podUid: string): void;
  /** Ready per the readiness probe (true without one, false until started). */
  isReady(containerId: string): boolean;
  /** Started per the startup probe (true without one). */
  isStarted(containerId: string): boolean;
}

export interface ProbeManagerOptions {
  execSync: ExecSync;
  /** Settled results as they change (after successThreshold / failureThreshold attempts). */
  onResult: (event: ProbeResultEvent) => void;
  /** Every failed, errored or warning attempt: record it as an event on the pod. */
  onAttempt?: (event: ProbeAttemptEvent) => void;
}

interface ProbedContainer {
  readonly podUid: string;
  readonly containerName: string;
  readonly workers: Map<ProbeKind, ProbeWorker>;
}

const KINDS: readonly ProbeKind[] = ['startup', 'liveness', 'readiness'];

export class KubeletProbeManager implements ProbeManager {
  private readonly containers = new Map<string, ProbedContainer>();
  private readonly startedAt = Date.now();

  constructor(private readonly options: ProbeManagerOptions) {}

  addContainer(pod: Pod, container: Container, containerId: string, podIP: string): void {
    if (this.containers.has(containerId)) return;
    const podUid = pod.metadata?.uid ?? '';
    const entry: ProbedContainer = { podUid, containerName: container.name, workers: new Map() };
    this.containers.set(containerId, entry);
    const target = { container, containerId, podIP, execSync: this.options.execSync };
    for (const kind of KINDS) {
      const probe = probeOf(container, kind);
      if (!probe) continue;
      const worker = new ProbeWorker(
        kind,
        probe,
        () => runProbe(probe, target),
        { started: () => this.isStarted(containerId) },
        {
          settled: (settledKind, result, output) => {
            if (settledKind === 'startup' && result === 'success') {
              // Readiness need not wait a whole period once the container has started.
              entry.workers.get('readiness')?.trigger();
            }
            this.options.onResult({
              podUid,
              containerName: container.name,
              containerId,
              kind: settledKind,
              result,
              output,
            });
          },
          attempt: (attemptKind, reason, message) =>
            this.options.onAttempt?.({
              podUid,
              containerName: container.name,
              containerId,
              kind: attemptKind,
              type: 'Warning',
              reason,
              message,
            }),
        },
      );
      entry.workers.set(kind, worker);
    }
    for (const worker of entry.workers.values()) {
      const periodMs = (probeOf(container, worker.kind)?.periodSeconds ?? 10) * 1000;
      // Right after the kubelet starts, adopted containers would all be probed at once: spread them.
      const spread = Date.now() - this.startedAt < periodMs ? Math.random() * periodMs : 0;
      worker.start(spread);
    }
  }

  removeContainer(containerId: string): void {
    const entry = this.containers.get(containerId);
    if (!entry) return;
    for (const worker of entry.workers.values()) worker.stop();
    this.containers.delete(containerId);
  }

  removePod(podUid: string): void {
    for (const [id, entry] of this.containers) if (entry.podUid === podUid) this.removeContainer(id);
  }

  isStarted(containerId: string): boolean {
    const startup = this.containers.get(containerId)?.workers.get('startup');
    return startup === undefined || startup.result === 'success';
  }

  isReady(containerId: string): boolean {
    if (!this.isStarted(containerId)) return false;
    const readiness = this.containers.get(containerId)?.workers.get('readiness');
    return readiness === undefined || readiness.result === 'success';
  }
}

function probeOf(container: Container, kind: ProbeKind) {
  return kind === 'startup'
    ? container.startupProbe
    : kind === 'liveness'
      ? container.livenessProbe
      : container.readinessProbe;
}

/**
 * The grace period of a kill after a failed liveness or startup probe: the probe's own
 * terminationGracePeriodSeconds, else the pod's (30 s by default).
 */
export function probeTerminationGracePeriodSeconds(
  pod: Pod,
  container: Container,
  kind: 'liveness' | 'startup',
): number {
  const probe = kind === 'liveness' ? container.livenessProbe : container.startupProbe;
  return probe?.terminationGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
}
