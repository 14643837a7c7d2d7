// Leader election on a Lease (client-go tools/leaderelection): candidates try to take the lease
// every retryPeriod; a lease nobody renewed for leaseDuration (as observed on the candidate's own
// clock) may be taken over. The leader renews every retryPeriod and gives up leadership when it
// cannot renew within renewDeadline.
import { findResource } from '../../api/resources/lookup.js';
import type { Lease } from '../../api/types/coordination-v1.generated.js';
import type { EventRecorder } from '../events/index.js';
import { apiErrorCode, isNotFoundError, sleep } from '../informers/index.js';
import type { Client } from '../types.js';
import { type LeaderElectionRecord, LeaseLock } from './lease-lock.js';

export interface LeaderCallbacks {
  /** Leadership gained; the signal aborts when it is lost or the elector stops. */
  onStartedLeading(signal: AbortSignal): void;
  /** Called when `run` ends, whether or not this candidate ever led. */
  onStoppedLeading(): void;
  /** The lease changed hands (also reports this candidate). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig {
  readonly client: Client;
  readonly namespace: string;
  /** The lease's name (`kube-controller-manager`, `kube-scheduler` ...). */
  readonly name: string;
  /** This candidate, unique among candidates (`<hostname>_<uuid>` in Kubernetes). */
  readonly identity: string;
  readonly callbacks: LeaderCallbacks;
  /** How long others wait after the last renewal before taking over (15 s). */
  readonly leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it gives up (10 s). */
  readonly renewDeadlineMs?: number;
  /** Pause between attempts (2 s). */
  readonly retryPeriodMs?: number;
  /** Hand the lease back when stopped, so another candidate takes over at once. */
  readonly releaseOnCancel?: boolean;
  readonly labels?: Readonly<Record<string, string>>;
  /** Records `<identity> became leader` / `stopped leading` events on the lease. */
  readonly recorder?: EventRecorder;
  readonly log?: (message: string) => void;
  readonly now?: () => number;
  readonly random?: () => number;
}

/** Attempts to acquire are spread over retryPeriod × (1 + up to this factor). */
export const JITTER_FACTOR = 1.2;

const LEASES = findResource('coordination.k8s.io', 'v1', 'leases')!;

export class LeaderElector {
  private readonly lock: LeaseLock;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly log: (message: string) => void;
  private observedRecord?: LeaderElectionRecord;
  private observedRaw = '';
  private observedTime = 0;
  private reportedLeader = '';

  constructor(private readonly config: LeaderElectionConfig) {
    this.leaseDurationMs = config.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = config.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = config.retryPeriodMs ?? 2_000;
    if (this.leaseDurationMs <= this.renewDeadlineMs) {
      throw new Error('leaseDuration must be greater than renewDeadline');
    }
    if (this.renewDeadlineMs <= JITTER_FACTOR * this.retryPeriodMs) {
      throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    }
    if (this.leaseDurationMs < 1) throw new Error('leaseDuration must be greater than zero');
    if (this.renewDeadlineMs < 1) throw new Error('renewDeadline must be greater than zero');
    if (this.retryPeriodMs < 1) throw new Error('retryPeriod must be greater than zero');
    if (!config.identity) throw new Error('Lock identity is empty');
    this.now = config.now ?? Date.now;
    this.random = config.random ?? Math.random;
    this.log = config.log ?? ((message) => console.error(message));
    this.lock = new LeaseLock(
      config.client.resource<Lease>(LEASES),
      config.namespace,
      config.name,
      config.identity,
      config.labels,
    );
  }

  /** The holder last observed (`''` when none). */
  getLeader(): string {
    return this.observedRecord?.holderIdentity ?? '';
  }

  isLeader(): boolean {
    return this.getLeader() === this.config.identity;
  }

  /**
   * Campaigns until leading, leads until the lease is lost or the signal aborts, then calls
   * onStoppedLeading. Resolves when all that is over; never rejects.
   */
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!(await this.acquire(signal))) return;
      const leading = new AbortController();
      const stopLeading = (): void => leading.abort();
      signal.addEventListener('abort', stopLeading, { once: true });
      try {
        try {
          this.config.callbacks.onStartedLeading(leading.signal);
        } catch (error) {
          this.log(`onStartedLeading failed: ${errorText(error)}`);
        }
        await this.renew(signal);
      } finally {
        signal.removeEventListener('abort', stopLeading);
        leading.abort();
        this.recordEvent('stopped leading');
        if (this.config.releaseOnCancel) await this.release();
      }
    } finally {
      try {
        this.config.callbacks.onStoppedLeading();
      } catch (error) {
        this.log(`onStoppedLeading failed: ${errorText(error)}`);
      }
    }
  }

  /** Tries every retryPeriod (jittered) until the lease is ours; false when the signal aborted. */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.log(`attempting to acquire leader lease ${this.lock.describe()}...`);
    while (!signal.aborted) {
      const acquired = await this.tryAcquireOrRenew();
      this.maybeReportTransition();
      if (acquired) {
        this.recordEvent('became leader');
        this.log(`successfully acquired lease ${this.lock.describe()}`);
        return true;
      }
      await sleep(this.retryPeriodMs * (1 + this.random() * JITTER_FACTOR), signal);
    }
    return false;
  }

  /** Renews every retryPeriod; returns when a renewal failed for renewDeadline or the signal aborted. */
  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const deadline = this.now() + this.renewDeadlineMs;
      let renewed = false;
      for (;;) {
        renewed = await withDeadline(this.tryAcquireOrRenew(), deadline - this.now());
        if (renewed || signal.aborted || this.now() + this.retryPeriodMs > deadline) break;
        await sleep(this.retryPeriodMs, signal);
      }
      this.maybeReportTransition();
      if (signal.aborted) return;
      if (!renewed) {
        this.log(`failed to renew lease ${this.lock.describe()}: timed out waiting for the condition`);
        return;
      }
      await sleep(this.retryPeriodMs, signal);
    }
  }

  /** Gives the lease up: holder cleared, duration 1 s, so the next candidate need not wait. */
  private async release(): Promise<void> {
    try {
      const { record } = await withTimeout(this.lock.get(), this.renewDeadlineMs);
      if (!this.isLeader()) return;
      const now = this.now();
      const released: LeaderElectionRecord = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaderTransitions: record.leaderTransitions,
      };
      await withTimeout(this.lock.update(released), this.renewDeadlineMs);
      this.setObserved(released);
    } catch (error) {
      this.log(`failed to release lease ${this.lock.describe()}: ${errorText(error)}`);
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.now();
    const desired: LeaderElectionRecord = {
      holderIdentity: this.config.identity,
      leaseDurationSeconds: Math.floor(this.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };

    // Fast path: we hold a lease that is still valid, so write without reading first.
    if (this.isLeader() && this.isLeaseValid(now) && this.observedRecord !== undefined) {
      const renewal = {
        ...desired,
        acquireTime: this.observedRecord.acquireTime,
        leaderTransitions: this.observedRecord.leaderTransitions,
      };
      try {
        await this.lock.update(renewal);
        this.setObserved(renewal);
        return true;
      } catch {
        // Fall back to reading the lease.
      }
    }

    let current: { record: LeaderElectionRecord; raw: string };
    try {
      current = await this.lock.get();
    } catch (error) {
      if (!isNotFoundError(error)) {
        this.log(`error retrieving lease lock ${this.lock.describe()}: ${errorText(error)}`);
        return false;
      }
      try {
        await this.lock.create(desired);
      } catch (createError) {
        this.log(`error initially creating lease lock ${this.lock.describe()}: ${errorText(createError)}`);
        return false;
      }
      this.setObserved(desired);
      return true;
    }

    if (current.raw !== this.observedRaw) {
      this.setObserved(current.record);
      this.observedRaw = current.raw;
    }
    if (current.record.holderIdentity !== '' && this.isLeaseValid(now) && !this.isLeader()) {
      return false; // held by another candidate and not expired
    }
    const record = this.isLeader()
      ? {
          ...desired,
          acquireTime: current.record.acquireTime,
          leaderTransitions: current.record.leaderTransitions,
        }
      : { ...desired, leaderTransitions: current.record.leaderTransitions + 1 };
    try {
      await this.lock.update(record);
    } catch (error) {
      if (apiErrorCode(error) !== 409) {
        this.log(`failed to update lease ${this.lock.describe()}: ${errorText(error)}`);
      }
      return false;
    }
    this.setObserved(record);
    return true;
  }

  private isLeaseValid(now: number): boolean {
    const seconds = this.observedRecord?.leaseDurationSeconds ?? 0;
    return this.observedTime + seconds * 1000 > now;
  }

  private setObserved(record: LeaderElectionRecord): void {
    this.observedRecord = record;
    this.observedTime = this.now();
  }

  private maybeReportTransition(): void {
    const holder = this.getLeader();
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    try {
      this.config.callbacks.onNewLeader?.(holder);
    } catch (error) {
      this.log(`onNewLeader failed: ${errorText(error)}`);
    }
  }

  private recordEvent(what: string): void {
    const lease = this.lock.lease;
    if (this.config.recorder === undefined || lease === undefined) return;
    this.config.recorder.event(
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: lease.metadata },
      'Normal',
      'LeaderElection',
      `${this.config.identity} ${what}`,
    );
  }
}

/** The attempt's outcome, or false when it takes longer than `ms`. */
function withDeadline(attempt: Promise<boolean>, ms: number): Promise<boolean> {
  return withTimeout(attempt, ms).catch(() => false);
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out waiting for the condition')), Math.max(0, ms));
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
