// The scheduling queue (internal/queue PriorityQueue). Three places a pending pod can be:
//  - activeQ: ready to be tried, highest priority first, then oldest;
//  - backoffQ: failed recently and waits 1 s, doubling per attempt up to 10 s (when activeQ is
//    empty, pods that were merely unschedulable may be popped early, as SchedulerPopFromBackoffQ);
//  - unschedulablePods: turned down by some plugins; moved back only by a cluster event one of
//    those plugins says may help (its queueing hint), or after 5 minutes regardless.
// Pods being scheduled are "in flight": events that arrive meanwhile are remembered so a pod that
// fails can be requeued at once if one of them may have helped.
import type { Pod } from '../../api/types/core-v1.generated.js';
import { podKey } from '../cache/pod-info.js';
import {
  type ClusterEvent,
  EVENT_FORCE_ACTIVATE,
  EVENT_UNSCHEDULABLE_TIMEOUT,
  eventMatches,
  isWildcardEvent,
  podUpdateEvents,
} from '../framework/events.js';
import type { ClusterEventWithHint, PreEnqueuePlugin } from '../framework/interfaces.js';
import { QueuedPodInfo } from '../framework/queued-pod-info.js';
import { KeyedHeap } from './heap.js';
import { Nominator } from './nominator.js';

export const DEFAULT_POD_INITIAL_BACKOFF_MS = 1_000;
export const DEFAULT_POD_MAX_BACKOFF_MS = 10_000;
export const DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_MS = 5 * 60_000;
const UNSCHEDULABLE_FLUSH_INTERVAL_MS = 30_000;
const BACKOFF_FLUSH_INTERVAL_MS = 1_000;
/** Scheduling-gated pods are only released by their own updates, so events skip them early. */
const SCHEDULING_GATES = 'SchedulingGates';

/** What the queue needs from a scheduling profile. */
export interface QueueProfile {
  readonly preEnqueuePlugins: readonly PreEnqueuePlugin[];
  readonly eventRegistrations: ReadonlyMap<string, readonly ClusterEventWithHint[]>;
}

export interface SchedulingQueueOptions {
  /** PrioritySort's less (or another QueueSort plugin's). */
  readonly less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  /** Profiles by scheduler name. */
  readonly profiles: ReadonlyMap<string, QueueProfile>;
  readonly now?: () => number;
  readonly podInitialBackoffMs?: number;
  readonly podMaxBackoffMs?: number;
  readonly podMaxInUnschedulablePodsMs?: number;
  /** Pop unschedulable-backoff pods early when activeQ is empty (default true, as in 1.33). */
  readonly popFromBackoffQ?: boolean;
}

type Strategy = 'skip' | 'afterBackoff' | 'immediately';
export type QueueName = 'activeQ' | 'backoffQ' | 'unschedulablePods';

interface RecordedEvent {
  readonly event: ClusterEvent;
  readonly oldObj: unknown;
  readonly newObj: unknown;
}

export class SchedulingQueue {
  readonly nominator = new Nominator();
  private readonly activeQ: KeyedHeap<QueuedPodInfo>;
  /** Pods backing off after being turned down. */
  private readonly backoffQ: KeyedHeap<QueuedPodInfo>;
  /** Pods backing off after an error; never popped early. */
  private readonly errorBackoffQ: KeyedHeap<QueuedPodInfo>;
  private readonly unschedulablePods = new Map<string, QueuedPodInfo>();
  private readonly inFlight = new Map<string, RecordedEvent[]>();
  private readonly now: () => number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxInUnschedulableMs: number;
  private readonly popFromBackoffQ: boolean;
  private cycle = 0;
  private waiters: (() => void)[] = [];
  private timers: ReturnType<typeof setInterval>[] = [];
  private closed = false;

  constructor(private readonly options: SchedulingQueueOptions) {
    this.now = options.now ?? Date.now;
    this.initialBackoffMs = options.podInitialBackoffMs ?? DEFAULT_POD_INITIAL_BACKOFF_MS;
    this.maxBackoffMs = options.podMaxBackoffMs ?? DEFAULT_POD_MAX_BACKOFF_MS;
    this.maxInUnschedulableMs =
      options.podMaxInUnschedulablePodsMs ?? DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_MS;
    this.popFromBackoffQ = options.popFromBackoffQ ?? true;
    const key = (info: QueuedPodInfo) => info.key;
    this.activeQ = new KeyedHeap(key, options.less);
    const backoffLess = (a: QueuedPodInfo, b: QueuedPodInfo) => {
      const expiryA = this.backoffExpiry(a);
      const expiryB = this.backoffExpiry(b);
      return expiryA !== expiryB ? expiryA < expiryB : options.less(a, b);
    };
    this.backoffQ = new KeyedHeap(key, backoffLess);
    this.errorBackoffQ = new KeyedHeap(key, backoffLess);
  }

  /** The number of pods popped so far. */
  get schedulingCycle(): number {
    return this.cycle;
  }

  /** Starts the periodic flushes (backoff every second, unschedulable leftovers every 30 s). */
  run(): void {
    if (this.timers.length > 0) return;
    const backoff = setInterval(() => this.flushBackoffQCompleted(), BACKOFF_FLUSH_INTERVAL_MS);
    const leftovers = setInterval(
      () => this.flushUnschedulablePodsLeftover(),
      UNSCHEDULABLE_FLUSH_INTERVAL_MS,
    );
    backoff.unref?.();
    leftovers.unref?.();
    this.timers = [backoff, leftovers];
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.wake();
  }

  /** A new pending pod. */
  add(pod: Pod): void {
    const info = new QueuedPodInfo(pod, this.now());
    this.moveToActiveQ(info, 'PodAdd', false, true);
  }

  /** Takes the next pod to schedule, or undefined when none is ready. */
  pop(): QueuedPodInfo | undefined {
    let info = this.activeQ.pop();
    if (info === undefined && this.popFromBackoffQ) info = this.backoffQ.pop();
    if (info === undefined) return undefined;
    info.attempts++;
    info.initialAttemptTimestamp ??= this.now();
    this.cycle++;
    this.inFlight.set(info.key, []);
    return info;
  }

  /** Resolves when `pop` may return a pod (or the queue closed). */
  async whenReady(): Promise<void> {
    if (this.closed || this.hasReady()) return;
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  hasReady(): boolean {
    return this.activeQ.size > 0 || (this.popFromBackoffQ && this.backoffQ.size > 0);
  }

  /** The pod's attempt is over (bound, or handed back); stop recording events for it. */
  done(key: string): void {
    this.inFlight.delete(key);
  }

  /**
   * A pod's attempt failed: it goes to unschedulablePods, unless an event seen while it was in
   * flight may have helped (then back to activeQ / backoffQ). Returns where it went.
   */
  addUnschedulableIfNotPresent(info: QueuedPodInfo): QueueName | undefined {
    const key = info.key;
    try {
      if (
        this.unschedulablePods.has(key) ||
        this.activeQ.has(key) ||
        this.backoffQ.has(key) ||
        this.errorBackoffQ.has(key)
      ) {
        return undefined;
      }
      info.lastFailureWasError = info.unschedulablePlugins.size === 0 && info.pendingPlugins.size === 0;
      info.timestamp = this.now();
      const strategy = this.strategyForInFlightPod(info);
      return this.requeue(info, strategy, 'ScheduleAttemptFailure');
    } finally {
      this.done(key);
    }
  }

  update(oldPod: Pod | undefined, newPod: Pod): void {
    const key = podKey(newPod);
    const events = oldPod === undefined ? [] : podUpdateEvents(oldPod, newPod);
    const recorded = this.inFlight.get(key);
    if (recorded !== undefined) {
      // It is being scheduled; the update counts if the attempt fails.
      for (const event of events) recorded.push({ event, oldObj: oldPod, newObj: newPod });
      return;
    }
    for (const heap of [this.activeQ, this.backoffQ, this.errorBackoffQ]) {
      const info = heap.get(key);
      if (info === undefined) continue;
      info.update(newPod);
      heap.addOrUpdate(info);
      if (oldPod !== undefined) this.nominator.updateNominatedPod(oldPod, info.podInfo);
      return;
    }
    const info = this.unschedulablePods.get(key);
    if (info !== undefined) {
      info.update(newPod);
      if (oldPod !== undefined) this.nominator.updateNominatedPod(oldPod, info.podInfo);
      for (const event of events) {
        const strategy = this.worthRequeuing(info, event, oldPod, newPod);
        if (strategy === 'skip') continue;
        if (this.requeue(info, strategy, event.label ?? 'PodUpdate') !== 'unschedulablePods') return;
      }
      return;
    }
    this.moveToActiveQ(new QueuedPodInfo(newPod, this.now()), 'PodUpdate', false, true);
  }

  delete(pod: Pod): void {
    const key = podKey(pod);
    this.nominator.deleteNominatedPodIfExists(pod);
    this.activeQ.delete(key);
    this.backoffQ.delete(key);
    this.errorBackoffQ.delete(key);
    this.unschedulablePods.delete(key);
  }

  /** Moves the given pods (if waiting in backoffQ or unschedulablePods) straight to activeQ. */
  activate(pods: readonly Pod[]): void {
    for (const pod of pods) {
      const key = podKey(pod);
      const info = this.unschedulablePods.get(key) ?? this.backoffQ.get(key) ?? this.errorBackoffQ.get(key);
      if (info !== undefined) {
        const fromBackoff = !this.unschedulablePods.has(key);
        this.backoffQ.delete(key);
        this.errorBackoffQ.delete(key);
        this.moveToActiveQ(info, 'ForceActivate', fromBackoff, false);
        continue;
      }
      this.inFlight.get(key)?.push({ event: EVENT_FORCE_ACTIVATE, oldObj: undefined, newObj: pod });
    }
  }

  /**
   * A cluster event: every unschedulable pod (passing `preCheck`) whose rejecting plugins say the
   * event may help goes to activeQ, or to backoffQ while still backing off.
   */
  moveAllToActiveOrBackoffQueue(
    event: ClusterEvent,
    oldObj: unknown,
    newObj: unknown,
    preCheck?: (pod: Pod) => boolean,
  ): void {
    const candidates: QueuedPodInfo[] = [];
    for (const info of this.unschedulablePods.values()) {
      if (preCheck === undefined || preCheck(info.pod)) candidates.push(info);
    }
    this.movePods(candidates, event, oldObj, newObj);
  }

  /** Moves pods whose backoff has expired to activeQ. */
  flushBackoffQCompleted(): void {
    const now = this.now();
    for (const heap of [this.backoffQ, this.errorBackoffQ]) {
      for (;;) {
        const head = heap.peek();
        if (head === undefined || this.backoffExpiry(head) > now) break;
        heap.pop();
        this.moveToActiveQ(head, 'BackoffComplete', true, false);
      }
    }
  }

  /** Retries pods that have waited in unschedulablePods longer than the limit (5 min). */
  flushUnschedulablePodsLeftover(): void {
    const now = this.now();
    const stale: QueuedPodInfo[] = [];
    for (const info of this.unschedulablePods.values()) {
      if (now - info.timestamp > this.maxInUnschedulableMs) stale.push(info);
    }
    if (stale.length > 0) this.movePods(stale, EVENT_UNSCHEDULABLE_TIMEOUT, undefined, undefined);
  }

  /** Where a pod currently waits (tests and debugging). */
  whereIs(pod: Pod): QueueName | 'inFlight' | undefined {
    const key = podKey(pod);
    if (this.activeQ.has(key)) return 'activeQ';
    if (this.backoffQ.has(key) || this.errorBackoffQ.has(key)) return 'backoffQ';
    if (this.unschedulablePods.has(key)) return 'unschedulablePods';
    if (this.inFlight.has(key)) return 'inFlight';
    return undefined;
  }

  get(pod: Pod): QueuedPodInfo | undefined {
    const key = podKey(pod);
    return (
      this.activeQ.get(key) ??
      this.backoffQ.get(key) ??
      this.errorBackoffQ.get(key) ??
      this.unschedulablePods.get(key)
    );
  }

  /** Pending pods by queue. */
  pendingPods(): Record<QueueName, Pod[]> {
    return {
      activeQ: this.activeQ.list().map((info) => info.pod),
      backoffQ: [...this.backoffQ.list(), ...this.errorBackoffQ.list()].map((info) => info.pod),
      unschedulablePods: [...this.unschedulablePods.values()].map((info) => info.pod),
    };
  }

  /** When the pod's backoff ends (ms): 1 s after the last failure, doubling per attempt, at most 10 s. */
  backoffExpiry(info: QueuedPodInfo): number {
    return info.timestamp + this.backoffDuration(info);
  }

  backoffDuration(info: QueuedPodInfo): number {
    if (info.attempts === 0) return 0;
    let duration = this.initialBackoffMs;
    for (let attempt = 1; attempt < info.attempts; attempt++) {
      if (duration > this.maxBackoffMs - duration) return this.maxBackoffMs;
      duration += duration;
    }
    return Math.min(duration, this.maxBackoffMs);
  }

  private isBackingOff(info: QueuedPodInfo): boolean {
    return this.backoffExpiry(info) > this.now();
  }

  private movePods(
    infos: readonly QueuedPodInfo[],
    event: ClusterEvent,
    oldObj: unknown,
    newObj: unknown,
  ): void {
    for (const info of infos) {
      if (info.gatingPlugin === SCHEDULING_GATES) continue;
      const strategy = this.worthRequeuing(info, event, oldObj, newObj);
      if (strategy === 'skip') continue;
      this.unschedulablePods.delete(info.key);
      this.requeue(info, strategy, event.label ?? 'ClusterEvent');
    }
    for (const recorded of this.inFlight.values()) recorded.push({ event, oldObj, newObj });
  }

  private strategyForInFlightPod(info: QueuedPodInfo): Strategy {
    if (info.unschedulablePlugins.size === 0 && info.pendingPlugins.size === 0) return 'afterBackoff';
    let strategy: Strategy = 'skip';
    for (const { event, oldObj, newObj } of this.inFlight.get(info.key) ?? []) {
      const verdict = this.worthRequeuing(info, event, oldObj, newObj);
      if (verdict === 'immediately') return verdict;
      if (verdict === 'afterBackoff') strategy = verdict;
    }
    return strategy;
  }

  /** Asks the queueing hints of the plugins that rejected the pod whether the event may help. */
  private worthRequeuing(
    info: QueuedPodInfo,
    event: ClusterEvent,
    oldObj: unknown,
    newObj: unknown,
  ): Strategy {
    const rejectors = info.unschedulablePlugins.size + info.pendingPlugins.size;
    if (rejectors === 0) return 'afterBackoff';
    if (isWildcardEvent(event)) {
      if (isPod(newObj) && podKey(newObj) !== info.key) return 'skip';
      return 'afterBackoff';
    }
    const profile = this.options.profiles.get(info.pod.spec?.schedulerName ?? '');
    if (profile === undefined) return 'afterBackoff';
    let strategy: Strategy = 'skip';
    for (const plugin of [...info.unschedulablePlugins, ...info.pendingPlugins]) {
      for (const registration of profile.eventRegistrations.get(plugin) ?? []) {
        if (!eventMatches(registration.event, event)) continue;
        let hint: 'Queue' | 'QueueSkip' = 'Queue';
        if (registration.hint !== undefined) {
          try {
            hint = registration.hint(info.pod, oldObj, newObj);
          } catch {
            hint = 'Queue';
          }
        }
        if (hint === 'QueueSkip') continue;
        if (info.pendingPlugins.has(plugin)) return 'immediately';
        strategy = 'afterBackoff';
      }
    }
    return strategy;
  }

  private requeue(info: QueuedPodInfo, strategy: Strategy, event: string): QueueName {
    if (strategy === 'skip') {
      this.unschedulablePods.set(info.key, info);
      return 'unschedulablePods';
    }
    if (strategy === 'afterBackoff' && this.isBackingOff(info)) {
      return this.moveToBackoffQ(info) ? 'backoffQ' : 'unschedulablePods';
    }
    return this.moveToActiveQ(info, event, false, false) ? 'activeQ' : 'unschedulablePods';
  }

  private runPreEnqueue(info: QueuedPodInfo): void {
    const profile = this.options.profiles.get(info.pod.spec?.schedulerName ?? '');
    for (const plugin of profile?.preEnqueuePlugins ?? []) {
      const status = plugin.preEnqueue(info.pod);
      if (status === null || status.isSuccess()) continue;
      info.unschedulablePlugins.add(plugin.name);
      info.gatingPlugin = plugin.name;
      return;
    }
    info.gatingPlugin = '';
  }

  private moveToActiveQ(
    info: QueuedPodInfo,
    event: string,
    fromBackoffQ: boolean,
    nominate: boolean,
  ): boolean {
    if (!(this.popFromBackoffQ && fromBackoffQ)) this.runPreEnqueue(info);
    if (info.gated) {
      if (!this.activeQ.has(info.key) && !this.backoffQ.has(info.key) && !this.errorBackoffQ.has(info.key)) {
        this.unschedulablePods.set(info.key, info);
      }
      return false;
    }
    this.unschedulablePods.delete(info.key);
    this.backoffQ.delete(info.key);
    this.errorBackoffQ.delete(info.key);
    this.activeQ.addOrUpdate(info);
    if (nominate || event === 'PodUpdate') this.nominator.addNominatedPod(info.podInfo, null);
    this.wake();
    return true;
  }

  private moveToBackoffQ(info: QueuedPodInfo): boolean {
    if (this.popFromBackoffQ) {
      this.runPreEnqueue(info);
      if (info.gated) {
        this.unschedulablePods.set(info.key, info);
        return false;
      }
    }
    this.unschedulablePods.delete(info.key);
    (info.lastFailureWasError ? this.errorBackoffQ : this.backoffQ).addOrUpdate(info);
    this.wake();
    return true;
  }

  private wake(): void {
    const waiters = this.waiters;
    if (waiters.length === 0) return;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

function isPod(value: unknown): value is Pod {
  return typeof value === 'object' && value !== null && 'spec' in value && 'metadata' in value;
}
