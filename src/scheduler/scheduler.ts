// The scheduler: inputs are object events (pods, nodes, and the few other kinds plugins consult),
// outputs go through SchedulerEffects — binding (pods/binding), failure reports, events and
// preemption's API calls. Each cycle pops one pod, decides synchronously, assumes it onto the node
// in the cache and binds in the background, so the next pod is decided without waiting.
import type { ReplicaSet, StatefulSet } from '../api/types/apps-v1.generated.js';
import type { Namespace, Node, Pod, ReplicationController, Service } from '../api/types/core-v1.generated.js';
import type { PodDisruptionBudget } from '../api/types/policy-v1.generated.js';
import type { ApiObject } from '../client/types.js';
import { SchedulingAlgorithm, SchedulingError } from './algorithm.js';
import { SchedulerCache } from './cache/cache.js';
import { PodInfo, podKey } from './cache/pod-info.js';
import { Snapshot } from './cache/snapshot.js';
import { ClusterObjects, type ObjectsByKey } from './cluster-objects.js';
import {
  failedSchedulingEvent,
  podScheduledCondition,
  type SchedulingEvent,
  type SchedulingFailure,
  scheduledEvent,
  skipDeletingPodEvent,
} from './failure.js';
import { CycleState } from './framework/cycle-state.js';
import {
  ActionType,
  EVENT_ASSIGNED_POD_ADD,
  EVENT_ASSIGNED_POD_DELETE,
  EVENT_NODE_ADD,
  EVENT_NODE_DELETE,
  nodeUpdateActions,
  podUpdateEvents,
} from './framework/events.js';
import { addPluginStatus, FitError, newDiagnosis } from './framework/fit-error.js';
import { Framework, type ProfileConfig } from './framework/framework.js';
import type { FrameworkHandle } from './framework/handle.js';
import type { NominatingInfo } from './framework/interfaces.js';
import type { QueuedPodInfo } from './framework/queued-pod-info.js';
import { Code, Status } from './framework/status.js';
import type { Binder } from './plugins/default-binder.js';
import type { PreemptionExecutor } from './plugins/default-preemption/plugin.js';
import { priorityLess } from './plugins/priority-sort.js';
import { DEFAULT_SCHEDULER_NAME, defaultProfile } from './plugins/registry.js';
import type { VolumeApi } from './plugins/volume-binding/plugin.js';
import { SchedulingQueue } from './queue/scheduling-queue.js';

/** What the scheduler does to the cluster. `bind` is required; the rest is optional reporting. */
/** The objects VolumeBinding watches, as cluster events name them. */
export type StorageObjectKind = 'PersistentVolumeClaim' | 'PersistentVolume' | 'StorageClass';

export interface SchedulerEffects extends Binder, Partial<PreemptionExecutor>, Partial<VolumeApi> {
  /** Posts the FailedScheduling event and patches PodScheduled=False (and nominatedNodeName). */
  reportFailure?(failure: SchedulingFailure): void | Promise<void>;
  /** Records an event about a pod (Scheduled, or FailedScheduling for a pod being deleted). */
  recordEvent?(pod: Pod, event: SchedulingEvent): void;
}

export interface SchedulerOptions {
  readonly effects: SchedulerEffects;
  /** The profile's name; pods with another spec.schedulerName are left alone (default-scheduler). */
  readonly schedulerName?: string;
  /** Replaces the default profile (plugins and weights). */
  readonly profiles?: readonly ProfileConfig[];
  readonly percentageOfNodesToScore?: number;
  readonly now?: () => number;
  readonly random?: () => number;
  readonly podInitialBackoffMs?: number;
  readonly podMaxBackoffMs?: number;
  readonly podMaxInUnschedulablePodsMs?: number;
  /** How long an assumed pod may wait for its bound-pod event after binding (0: forever). */
  readonly assumedPodTtlMs?: number;
  readonly log?: (message: string) => void;
}

const CLEAR_NOMINATION: NominatingInfo = { nominatedNodeName: '', mode: 'Override' };
/** Yield to the event loop at least this often while pods are waiting (ms). */
const YIELD_INTERVAL_MS = 5;

function isTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

function isAssigned(pod: Pod): boolean {
  return Boolean(pod.spec?.nodeName);
}

export class Scheduler {
  readonly cache: SchedulerCache;
  readonly queue: SchedulingQueue;
  readonly objects = new ClusterObjects();
  readonly frameworks = new Map<string, Framework>();
  readonly algorithm: SchedulingAlgorithm;
  private readonly effects: SchedulerEffects;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly log: (message: string) => void;
  /** The latest version of each pending pod this scheduler is responsible for. */
  private readonly pendingPods = new Map<string, Pod>();
  private readonly inFlightBindings = new Set<Promise<void>>();
  private readonly snapshot = new Snapshot();
  private readonly assumedPodTtlMs: number;

  constructor(options: SchedulerOptions) {
    this.effects = options.effects;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.log = options.log ?? (() => {});
    this.assumedPodTtlMs = options.assumedPodTtlMs ?? 0;
    this.cache = new SchedulerCache({ assumedPodTtlMs: this.assumedPodTtlMs, now: this.now });
    this.algorithm = new SchedulingAlgorithm(this.cache, this.snapshot, this.random);
    const effects = this.effects;
    const executor: PreemptionExecutor = {
      preemptVictim: (victim, preemptor, nodeName) =>
        effects.preemptVictim?.(victim, preemptor, nodeName) ?? Promise.resolve(),
      clearNominatedNodeName: (pod) => effects.clearNominatedNodeName?.(pod) ?? Promise.resolve(),
    };
    const profiles = options.profiles ?? [
      defaultProfile({
        schedulerName: options.schedulerName ?? DEFAULT_SCHEDULER_NAME,
        binder: effects,
        percentageOfNodesToScore: options.percentageOfNodesToScore,
        preemption: { executor, now: this.now },
        volumes: effects,
      }),
    ];
    let first: Framework | undefined;
    const handle: Omit<FrameworkHandle, 'framework'> = {
      snapshot: () => this.snapshot,
      objects: this.objects,
      nominator: {
        nominatedPodsForNode: (name) => this.queue.nominator.nominatedPodsForNode(name),
        hasNominatedPods: () => this.queue.nominator.hasNominatedPods(),
      },
      random: this.random,
      activate: (pod, onlyIfGatedBy) => {
        if (onlyIfGatedBy !== undefined && this.queue.get(pod)?.gatingPlugin !== onlyIfGatedBy) return;
        this.queue.activate([pod]);
      },
    };
    for (const profile of profiles) {
      const built = new Framework(profile, { ...handle, framework: () => built });
      this.frameworks.set(profile.schedulerName, built);
      first ??= built;
    }
    const queueSort = first?.queueSort;
    const less =
      queueSort !== undefined ? (a: QueuedPodInfo, b: QueuedPodInfo) => queueSort.less(a, b) : priorityLess;
    this.queue = new SchedulingQueue({
      less,
      profiles: this.frameworks,
      now: this.now,
      podInitialBackoffMs: options.podInitialBackoffMs,
      podMaxBackoffMs: options.podMaxBackoffMs,
      podMaxInUnschedulablePodsMs: options.podMaxInUnschedulablePodsMs,
    });
  }

  /** Whether a pod is for one of this scheduler's profiles. */
  responsibleFor(pod: Pod): boolean {
    return this.frameworks.has(pod.spec?.schedulerName || DEFAULT_SCHEDULER_NAME);
  }

  // ---- inputs: pods -------------------------------------------------------------------------

  onPodAdd(pod: Pod): void {
    if (isTerminal(pod)) return;
    if (isAssigned(pod)) {
      this.addAssignedPod(pod);
      return;
    }
    if (!this.responsibleFor(pod)) return;
    const pending = withSchedulerName(pod);
    this.pendingPods.set(podKey(pod), pending);
    this.queue.add(pending);
  }

  onPodUpdate(oldPod: Pod, newPod: Pod): void {
    if (isTerminal(newPod)) {
      if (!isTerminal(oldPod)) this.onPodDelete(oldPod);
      return;
    }
    const wasAssigned = isAssigned(oldPod);
    if (isAssigned(newPod)) {
      if (!wasAssigned) {
        // Bound: it leaves the queue and becomes (or confirms) a cache entry.
        this.pendingPods.delete(podKey(newPod));
        this.queue.delete(oldPod);
        this.addAssignedPod(newPod);
        return;
      }
      this.tryCache(() => this.cache.updatePod(oldPod, newPod));
      for (const event of podUpdateEvents(oldPod, newPod))
        this.queue.moveAllToActiveOrBackoffQueue(event, oldPod, newPod);
      return;
    }
    if (!this.responsibleFor(newPod)) return;
    const pending = withSchedulerName(newPod);
    this.pendingPods.set(podKey(newPod), pending);
    if (
      oldPod.metadata?.resourceVersion !== undefined &&
      oldPod.metadata.resourceVersion === newPod.metadata?.resourceVersion
    )
      return;
    if (this.cache.isAssumedPod(newPod)) return;
    this.queue.update(withSchedulerName(oldPod), pending);
  }

  onPodDelete(pod: Pod): void {
    const key = podKey(pod);
    for (const framework of this.frameworks.values())
      framework.waitingPods.reject(key, '', 'pod was deleted');
    if (isAssigned(pod) || this.cache.getPod(pod)?.spec?.nodeName) {
      this.tryCache(() => this.cache.removePod(pod));
      this.queue.moveAllToActiveOrBackoffQueue(EVENT_ASSIGNED_POD_DELETE, pod, undefined);
      if (isAssigned(pod)) return;
    }
    this.pendingPods.delete(key);
    this.queue.delete(pod);
  }

  private addAssignedPod(pod: Pod): void {
    this.tryCache(() => this.cache.addPod(pod));
    this.queue.moveAllToActiveOrBackoffQueue(EVENT_ASSIGNED_POD_ADD, undefined, pod);
  }

  // ---- inputs: nodes ------------------------------------------------------------------------

  onNodeAdd(node: Node): void {
    this.cache.addNode(node);
    this.queue.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node);
  }

  onNodeUpdate(oldNode: Node, newNode: Node): void {
    this.cache.updateNode(newNode);
    const actions = nodeUpdateActions(oldNode, newNode);
    if (actions !== 0)
      this.queue.moveAllToActiveOrBackoffQueue(
        { resource: 'Node', actionType: actions, label: 'NodeUpdate' },
        oldNode,
        newNode,
      );
  }

  onNodeDelete(node: Node): void {
    this.tryCache(() => this.cache.removeNode(node));
    this.queue.moveAllToActiveOrBackoffQueue(EVENT_NODE_DELETE, node, undefined);
  }

  // ---- inputs: other objects ----------------------------------------------------------------

  onNamespaceUpsert(namespace: Namespace): void {
    this.objects.namespaces.upsert(namespace);
    this.queue.moveAllToActiveOrBackoffQueue(
      { resource: 'Namespace', actionType: ActionType.Add | ActionType.UpdateOther },
      undefined,
      namespace,
    );
  }

  onNamespaceDelete(namespace: Namespace): void {
    this.objects.namespaces.remove(namespace);
  }

  onPodDisruptionBudgetUpsert(pdb: PodDisruptionBudget): void {
    this.objects.podDisruptionBudgets.upsert(pdb);
  }

  onPodDisruptionBudgetDelete(pdb: PodDisruptionBudget): void {
    this.objects.podDisruptionBudgets.remove(pdb);
  }

  /** A claim, volume or class changed: VolumeBinding's rejections may no longer hold. */
  onStorageObjectUpsert(kind: StorageObjectKind, object: ApiObject): void {
    const store = this.storageStore(kind);
    const existed = store.get(object.metadata?.namespace ?? '', object.metadata?.name ?? '') !== undefined;
    store.upsert(object);
    this.queue.moveAllToActiveOrBackoffQueue(
      { resource: kind, actionType: existed ? ActionType.UpdateOther : ActionType.Add },
      undefined,
      object,
    );
  }

  onStorageObjectDelete(kind: StorageObjectKind, object: ApiObject): void {
    this.storageStore(kind).remove(object);
  }

  private storageStore(kind: StorageObjectKind): ObjectsByKey<ApiObject> {
    if (kind === 'PersistentVolumeClaim') return this.objects.persistentVolumeClaims;
    if (kind === 'PersistentVolume') return this.objects.persistentVolumes;
    return this.objects.storageClasses;
  }

  onServiceUpsert(service: Service): void {
    this.objects.services.upsert(service);
  }

  onServiceDelete(service: Service): void {
    this.objects.services.remove(service);
  }

  onReplicaSetUpsert(replicaSet: ReplicaSet): void {
    this.objects.replicaSets.upsert(replicaSet);
  }

  onReplicaSetDelete(replicaSet: ReplicaSet): void {
    this.objects.replicaSets.remove(replicaSet);
  }

  onStatefulSetUpsert(statefulSet: StatefulSet): void {
    this.objects.statefulSets.upsert(statefulSet);
  }

  onStatefulSetDelete(statefulSet: StatefulSet): void {
    this.objects.statefulSets.remove(statefulSet);
  }

  onReplicationControllerUpsert(controller: ReplicationController): void {
    this.objects.replicationControllers.upsert(controller);
  }

  onReplicationControllerDelete(controller: ReplicationController): void {
    this.objects.replicationControllers.remove(controller);
  }

  // ---- the loop -----------------------------------------------------------------------------

  /** Schedules pods until the signal aborts, waiting when none is ready. */
  async run(signal?: AbortSignal): Promise<void> {
    this.queue.run();
    const cleanup =
      this.assumedPodTtlMs > 0 ? setInterval(() => this.cache.cleanupAssumedPods(), 1_000) : undefined;
    cleanup?.unref?.();
    const onAbort = () => this.queue.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let lastYield = this.now();
      const aborted = () => signal?.aborted === true;
      while (!aborted()) {
        await this.queue.whenReady();
        if (aborted()) break;
        this.scheduleOne();
        if (this.now() - lastYield >= YIELD_INTERVAL_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          lastYield = this.now();
        }
      }
    } finally {
      if (cleanup !== undefined) clearInterval(cleanup);
      signal?.removeEventListener('abort', onAbort);
      this.queue.close();
    }
  }

  /** Resolves when every binding and preemption started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      const pending = [...this.inFlightBindings];
      for (const framework of this.frameworks.values()) {
        for (const plugin of framework.plugins) {
          const waits = (plugin as { pending?: Map<string, Promise<void>> }).pending;
          if (waits instanceof Map) pending.push(...waits.values());
        }
      }
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  /**
   * Pops one pod and runs its scheduling cycle; the binding continues in the background.
   * Returns false when no pod was ready.
   */
  scheduleOne(): boolean {
    const info = this.queue.pop();
    if (info === undefined) return false;
    const pod = info.pod;
    const framework = this.frameworks.get(pod.spec?.schedulerName || DEFAULT_SCHEDULER_NAME);
    if (framework === undefined) {
      this.queue.done(info.key);
      return true;
    }
    if (pod.metadata?.deletionTimestamp) {
      this.effects.recordEvent?.(pod, skipDeletingPodEvent(pod));
      this.queue.done(info.key);
      return true;
    }
    if (this.cache.isAssumedPod(pod)) {
      this.queue.done(info.key);
      return true;
    }
    const state = new CycleState();
    let outcome: ReturnType<SchedulingAlgorithm['schedulePod']>;
    try {
      outcome = this.algorithm.schedulePod(framework, state, info.podInfo);
    } catch (error) {
      const status = error instanceof SchedulingError ? error.status : Status.fromError(error);
      this.handleFailure(info, status, undefined, CLEAR_NOMINATION);
      return true;
    }
    if (outcome instanceof FitError) {
      let nominating: NominatingInfo | null = CLEAR_NOMINATION;
      if (framework.hasPostFilterPlugins()) {
        const { result, status } = framework.runPostFilterPlugins(
          state,
          info.podInfo,
          outcome.diagnosis.nodeToStatus,
        );
        outcome.diagnosis.postFilterMsg = status.message();
        if (status.code === Code.Error)
          this.log(`PostFilter failed for ${describe(pod)}: ${status.message()}`);
        nominating = result?.nominatingInfo ?? null;
      }
      this.handleFailure(info, new Status(Code.Unschedulable), outcome, nominating);
      return true;
    }
    this.assumeAndBind(framework, state, info, outcome.suggestedHost);
    return true;
  }

  private assumeAndBind(framework: Framework, state: CycleState, info: QueuedPodInfo, host: string): void {
    const pod = info.pod;
    const assumedPod: Pod = { ...pod, spec: { ...pod.spec!, nodeName: host } };
    const assumedInfo = info.podInfo.withPod(assumedPod);
    try {
      this.cache.assumePod(assumedPod, assumedInfo);
    } catch (error) {
      this.handleFailure(info, Status.fromError(error), undefined, CLEAR_NOMINATION);
      return;
    }
    this.queue.nominator.deleteNominatedPodIfExists(assumedPod);

    const rejectAt = (status: Status, stage: string) => {
      framework.runReservePluginsUnreserve(state, assumedInfo, host);
      this.tryCache(() => this.cache.forgetPod(assumedPod));
      if (status.isRejected()) {
        const diagnosis = newDiagnosis();
        diagnosis.nodeToStatus.set(host, status);
        addPluginStatus(diagnosis, status);
        this.handleFailure(info, status, new FitError(pod, 1, diagnosis), CLEAR_NOMINATION);
      } else {
        this.log(`${stage} failed for ${describe(pod)}: ${status.message()}`);
        this.handleFailure(info, status, undefined, CLEAR_NOMINATION);
      }
    };
    const reserve = framework.runReservePluginsReserve(state, assumedInfo, host);
    if (reserve !== null) {
      rejectAt(reserve, 'Reserve');
      return;
    }
    const permit = framework.runPermitPlugins(state, assumedInfo, host);
    if (permit !== null && permit.code !== Code.Wait) {
      rejectAt(permit, 'Permit');
      return;
    }

    const binding = this.bindingCycle(framework, state, info, assumedInfo, host, permit !== null);
    this.inFlightBindings.add(binding);
    void binding.finally(() => this.inFlightBindings.delete(binding));
  }

  private async bindingCycle(
    framework: Framework,
    state: CycleState,
    info: QueuedPodInfo,
    assumedInfo: PodInfo,
    host: string,
    waitOnPermit: boolean,
  ): Promise<void> {
    const assumedPod = assumedInfo.pod;
    let status: Status | null = null;
    if (waitOnPermit) {
      status = await framework.waitOnPermit(assumedInfo);
      if (status !== null) {
        const diagnosis = newDiagnosis();
        diagnosis.nodeToStatus.set(host, status);
        diagnosis.unschedulablePlugins.add(status.plugin);
        this.bindingFailed(
          framework,
          state,
          info,
          assumedInfo,
          host,
          status,
          new FitError(assumedPod, 1, diagnosis),
        );
        return;
      }
    }
    // Failures from here on are errors, not "unschedulable": the pod goes to backoff.
    this.queue.done(info.key);
    status = await framework.runPreBindPlugins(state, assumedInfo, host);
    if (status === null) status = await framework.runBindPlugins(state, assumedInfo, host);
    this.cache.finishBinding(assumedPod);
    if (status !== null && status.code !== Code.Success) {
      this.bindingFailed(framework, state, info, assumedInfo, host, status, undefined);
      return;
    }
    this.effects.recordEvent?.(assumedPod, scheduledEvent(assumedPod, host));
    framework.runPostBindPlugins(state, assumedInfo, host);
  }

  private bindingFailed(
    framework: Framework,
    state: CycleState,
    info: QueuedPodInfo,
    assumedInfo: PodInfo,
    host: string,
    status: Status,
    fitError: FitError | undefined,
  ): void {
    const assumedPod = assumedInfo.pod;
    framework.runReservePluginsUnreserve(state, assumedInfo, host);
    let forgotten = false;
    this.tryCache(() => {
      this.cache.forgetPod(assumedPod);
      forgotten = true;
    });
    // Forgetting frees what the pod held, like a deleted pod: others may fit now (not itself).
    const key = info.key;
    const moveOthers = () =>
      this.queue.moveAllToActiveOrBackoffQueue(
        EVENT_ASSIGNED_POD_DELETE,
        assumedPod,
        undefined,
        (pod) => podKey(pod) !== key,
      );
    if (forgotten && !status.isRejected()) moveOthers();
    this.handleFailure(info, status, fitError, CLEAR_NOMINATION);
    if (forgotten && status.isRejected()) moveOthers();
  }

  /** Requeues the pod and reports FailedScheduling / PodScheduled=False. */
  private handleFailure(
    info: QueuedPodInfo,
    status: Status,
    fitError: FitError | undefined,
    nominating: NominatingInfo | null,
  ): void {
    const rejected = fitError !== undefined || status.isRejected();
    const reason = rejected ? 'Unschedulable' : 'SchedulerError';
    if (fitError !== undefined) {
      info.unschedulablePlugins = new Set(fitError.diagnosis.unschedulablePlugins);
      info.pendingPlugins = new Set(fitError.diagnosis.pendingPlugins);
    } else {
      info.unschedulablePlugins = new Set();
      info.pendingPlugins = new Set();
    }
    const pod = info.pod;
    const latest = this.pendingPods.get(info.key);
    if (latest === undefined || isAssigned(latest)) {
      this.queue.done(info.key);
    } else {
      if (latest !== info.pod) info.podInfo = new PodInfo(latest);
      this.queue.addUnschedulableIfNotPresent(info);
    }
    // A pod deleted or bound meanwhile keeps no nomination.
    if (latest !== undefined && !isAssigned(latest))
      this.queue.nominator.addNominatedPod(info.podInfo, nominating);
    else this.queue.nominator.deleteNominatedPodIfExists(pod);
    const message = fitError !== undefined ? fitError.message : status.message();
    if (latest === undefined) return;
    const currentNomination = latest.status?.nominatedNodeName ?? '';
    const nominatedNodeName =
      nominating?.mode === 'Override' && nominating.nominatedNodeName !== currentNomination
        ? nominating.nominatedNodeName
        : undefined;
    const failure: SchedulingFailure = {
      pod: latest,
      condition: podScheduledCondition(reason, message, this.now()),
      event: failedSchedulingEvent(message),
      nominatedNodeName,
    };
    try {
      const reported = this.effects.reportFailure?.(failure);
      if (reported instanceof Promise)
        reported.catch((error) => this.log(`reporting failure of ${describe(pod)}: ${String(error)}`));
    } catch (error) {
      this.log(`reporting failure of ${describe(pod)}: ${String(error)}`);
    }
  }

  private tryCache(action: () => void): void {
    try {
      action();
    } catch (error) {
      this.log(`scheduler cache: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Pods without spec.schedulerName belong to the default scheduler (the API server defaults it). */
function withSchedulerName(pod: Pod): Pod {
  if (pod.spec === undefined || pod.spec.schedulerName) return pod;
  return { ...pod, spec: { ...pod.spec, schedulerName: DEFAULT_SCHEDULER_NAME } };
}

function describe(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}
