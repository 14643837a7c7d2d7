// One probe of one container, run every periodSeconds as the kubelet's prober worker does:
// nothing before initialDelaySeconds, liveness and readiness only once the container has
// started (startup probe), results settled only after successThreshold / failureThreshold
// consecutive attempts, and no more probing after a liveness or startup failure until the
// container is replaced.
import type { Probe } from '../../../api/types/core-v1.generated.js';
import { type ProbeKind, type ProbeOutcome, probeKindTitle } from './outcome.js';

/** A settled result; `unknown` is the startup probe's until it decides. */
export type SettledResult = 'success' | 'failure' | 'unknown';

/** The kubelet retries a probe that errors (could not run) this many times per period. */
const MAX_PROBE_RETRIES = 3;

export interface WorkerEvents {
  /** The settled result changed. */
  settled(kind: ProbeKind, result: 'success' | 'failure', output: string): void;
  /** An attempt failed, errored or warned: the Unhealthy / ProbeWarning event of that attempt. */
  attempt(kind: ProbeKind, reason: 'Unhealthy' | 'ProbeWarning', message: string): void;
}

export interface WorkerGates {
  /** Whether the container counts as started (liveness and readiness wait for it). */
  started(): boolean;
}

export class ProbeWorker {
  private settledResult: SettledResult;
  private lastResult: 'success' | 'failure' | undefined;
  private resultRun = 0;
  private onHold = false;
  private running = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly addedAt = Date.now();

  constructor(
    readonly kind: ProbeKind,
    private readonly probe: Probe,
    private readonly attemptOnce: () => Promise<ProbeOutcome>,
    private readonly gates: WorkerGates,
    private readonly events: WorkerEvents,
  ) {
    this.settledResult = kind === 'readiness' ? 'failure' : kind === 'liveness' ? 'success' : 'unknown';
  }

  get result(): SettledResult {
    return this.settledResult;
  }

  /** Starts probing; `firstDelayMs` spreads probes out after a kubelet restart. */
  start(firstDelayMs = 0): void {
    const periodMs = (this.probe.periodSeconds ?? 10) * 1000;
    const begin = () => {
      if (this.stopped) return;
      this.trigger();
      this.timer = setInterval(() => this.trigger(), periodMs);
      this.timer.unref();
    };
    if (firstDelayMs > 0) {
      this.timer = setTimeout(begin, firstDelayMs);
      this.timer.unref();
    } else {
      begin();
    }
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.timer);
  }

  /** Probes now, unless an attempt is already running. */
  trigger(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.doProbe()
      .catch(() => undefined)
      .finally(() => {
        this.running = false;
      });
  }

  private async doProbe(): Promise<void> {
    if (this.onHold) return;
    if (Date.now() - this.addedAt < (this.probe.initialDelaySeconds ?? 0) * 1000) return;
    if (this.kind === 'startup') {
      // A started container is not probed for startup again.
      if (this.settledResult === 'success') return;
    } else if (!this.gates.started()) {
      return;
    }
    const title = probeKindTitle(this.kind);
    let outcome: ProbeOutcome | undefined;
    let lastError: unknown;
    for (let attempt = 0; attempt < MAX_PROBE_RETRIES && outcome === undefined; attempt++) {
      try {
        outcome = await this.attemptOnce();
      } catch (error) {
        lastError = error;
      }
    }
    if (this.stopped) return;
    if (outcome === undefined) {
      // A probe that could not run says nothing about the container: the result is dropped.
      const text = lastError instanceof Error ? lastError.message : String(lastError);
      this.events.attempt(this.kind, 'Unhealthy', `${title} probe errored: ${text}`);
      return;
    }
    if (outcome.result === 'failure') {
      this.events.attempt(this.kind, 'Unhealthy', `${title} probe failed: ${outcome.output}`);
    } else if (outcome.result === 'warning') {
      this.events.attempt(this.kind, 'ProbeWarning', `${title} probe warning: ${outcome.output}`);
    }
    const result = outcome.result === 'failure' ? 'failure' : 'success';
    if (this.lastResult === result) this.resultRun++;
    else {
      this.lastResult = result;
      this.resultRun = 1;
    }
    const threshold =
      result === 'failure' ? (this.probe.failureThreshold ?? 3) : (this.probe.successThreshold ?? 1);
    if (this.resultRun < threshold) return;
    const changed = this.settledResult !== result;
    this.settledResult = result;
    if (result === 'failure' && (this.kind === 'liveness' || this.kind === 'startup')) {
      // The container will be restarted: stop probing until a new container replaces it.
      this.onHold = true;
      this.resultRun = 0;
    }
    if (changed) this.events.settled(this.kind, result, outcome.output);
  }
}
