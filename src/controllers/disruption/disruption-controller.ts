// The disruption controller (pkg/controller/disruption): keeps each PodDisruptionBudget's status
// — healthy and desired pod counts, expected pods, disruptions allowed and the DisruptionAllowed
// condition — current with the pods it selects, so the eviction subresource and the scheduler's
// preemption can honour it. Evictions it has not yet seen carried out stay in
// status.disruptedPods for two minutes. It also turns back a pod's DisruptionTarget condition
// that nothing acted on (the pod was never deleted) after two minutes.
import { setStatusCondition } from '../../api/conditions.js';
import { podCondition, updatePodCondition } from '../../api/pod-conditions.js';
import {
  budgetStatusOf,
  conditionsAreUpToDate,
  DISRUPTION_ALLOWED_CONDITION,
  SYNC_FAILED_REASON,
  updateDisruptionAllowedCondition,
} from '../../api/pod-disruption-budgets.js';
import { labelSelectorFromObject } from '../../api/selectors/index.js';
import type { Deployment, ReplicaSet, StatefulSet } from '../../api/types/apps-v1.generated.js';
import type { Pod, ReplicationController } from '../../api/types/core-v1.generated.js';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from '../../api/types/policy-v1.generated.js';
import { goLabelSelectorStruct } from '../../apiserver/printers/format.js';
import { Controller, objectOf, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import { rfc3339 } from '../../client/events/time.js';
import type { Lister } from '../../client/informers/index.js';
import {
  DEPLOYMENTS,
  PDBS,
  PODS,
  REPLICA_SETS,
  REPLICATION_CONTROLLERS,
  STATEFUL_SETS,
} from '../../client/resources.js';
import { isConflict } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../context.js';
import { buildDisruptedPodMap, countHealthyPods, disruptionsAllowed } from './budget-status.js';
import { ExpectedPods } from './expected-pods.js';

const SERVICE_ACCOUNT = 'disruption-controller';
/** The event source upstream's recorder names. */
const COMPONENT = 'controllermanager';
const DISRUPTION_TARGET = 'DisruptionTarget';
/** The kubelet's own DisruptionTarget reason: its pods may take arbitrarily long to terminate. */
const TERMINATION_BY_KUBELET = 'TerminationByKubelet';
/** stalePodDisruptionTimeout. */
export const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60_000;

export interface DisruptionControllerOptions {
  readonly stalePodDisruptionTimeoutMs?: number;
  readonly now?: () => number;
}

export class DisruptionController implements RunnableController {
  /** Syncs budgets (`namespace/name` keys). */
  readonly controller: Controller;
  /** Resets stale DisruptionTarget conditions (pod keys). */
  readonly stalePods: Controller;
  private readonly budgets: Lister<PodDisruptionBudget>;
  private readonly pods: Lister<Pod>;
  private readonly client: Client;
  private readonly recorder: EventRecorder;
  private readonly expectedPods: ExpectedPods;
  private readonly staleTimeoutMs: number;
  private readonly now: () => number;

  constructor(context: ControllerContext, options: DisruptionControllerOptions = {}) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, COMPONENT);
    this.staleTimeoutMs = options.stalePodDisruptionTimeoutMs ?? STALE_POD_DISRUPTION_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    const { informers } = context;
    const budgets = informers.informerFor<PodDisruptionBudget>(PDBS);
    const pods = informers.informerFor<Pod>(PODS);
    const replicationControllers = informers.informerFor<ReplicationController>(REPLICATION_CONTROLLERS);
    const replicaSets = informers.informerFor<ReplicaSet>(REPLICA_SETS);
    const deployments = informers.informerFor<Deployment>(DEPLOYMENTS);
    const statefulSets = informers.informerFor<StatefulSet>(STATEFUL_SETS);
    this.budgets = budgets.lister;
    this.pods = pods.lister;
    this.expectedPods = new ExpectedPods(
      {
        replicationControllers: replicationControllers.lister,
        replicaSets: replicaSets.lister,
        deployments: deployments.lister,
        statefulSets: statefulSets.lister,
      },
      this.client,
    );
    const waitFor = [pods, replicationControllers, replicaSets, deployments, statefulSets];
    // Upstream requeues failed budgets without limit.
    this.controller = new Controller({
      name: 'disruption',
      sync: (key) => this.sync(key),
      maxRetries: Number.POSITIVE_INFINITY,
      waitFor,
    });
    this.stalePods = new Controller({
      name: 'disruption-stale-pod',
      sync: (key) => this.syncStalePod(key),
      maxRetries: Number.POSITIVE_INFINITY,
      waitFor: [pods],
    });
    this.controller.watch(budgets);
    pods.addEventHandler({
      onAdd: (pod) => this.podChanged(pod),
      onUpdate: (_old, pod) => this.podChanged(pod),
      onDelete: (deleted) => {
        const budget = this.budgetForPod(objectOf(deleted));
        if (budget) this.controller.enqueue(budget);
      },
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.controller.run(signal), this.stalePods.run(signal)]);
  }

  private podChanged(pod: Pod): void {
    const budget = this.budgetForPod(pod);
    if (budget) this.controller.enqueue(budget);
    const waitMs = this.staleConditionWait(pod);
    if (waitMs !== undefined) this.stalePods.enqueueAfter(pod, waitMs);
  }

  /** getPdbForPod: the first budget selecting the pod (an empty selector selects all); warns when several do. */
  private budgetForPod(pod: Pod): PodDisruptionBudget | undefined {
    const namespace = pod.metadata?.namespace ?? '';
    const matching = this.budgets.list(namespace).filter((pdb) => {
      try {
        return labelSelectorFromObject(pdb.spec?.selector).matches(pod.metadata?.labels ?? {});
      } catch {
        return false;
      }
    });
    const first = matching[0];
    if (first && matching.length > 1) {
      const message =
        `Pod ${JSON.stringify(namespace)}/${JSON.stringify(pod.metadata?.name ?? '')} matches multiple ` +
        `PodDisruptionBudgets.  Chose ${JSON.stringify(first.metadata?.name ?? '')} arbitrarily.`;
      this.recorder.event(pod, 'Warning', 'MultiplePodDisruptionBudgets', message);
    }
    return first;
  }

  async sync(key: string): Promise<{ requeueAfterMs: number } | undefined> {
    const { namespace, name } = splitKey(key);
    const pdb = this.budgets.get(namespace, name);
    if (!pdb) return undefined;
    try {
      return await this.trySync(pdb);
    } catch (error) {
      // A conflict is a stale cache: retry without declaring the budget failed.
      if (isConflict(error)) throw error;
      await this.failSafe(pdb, error);
      return undefined;
    }
  }

  private async trySync(pdb: PodDisruptionBudget): Promise<{ requeueAfterMs: number } | undefined> {
    let pods: Pod[];
    try {
      const selector = labelSelectorFromObject(pdb.spec?.selector);
      pods = this.pods.list(pdb.metadata?.namespace ?? '', selector);
    } catch (error) {
      this.recorder.event(pdb, 'Warning', 'NoPods', `Failed to get pods: ${messageOf(error)}`);
      throw error;
    }
    if (pods.length === 0) this.recorder.event(pdb, 'Normal', 'NoPods', 'No matching pods found');
    let expected: Awaited<ReturnType<ExpectedPods['count']>>;
    try {
      expected = await this.expectedPods.count(pdb, pods);
    } catch (error) {
      this.recorder.event(
        pdb,
        'Warning',
        'CalculateExpectedPodCountFailed',
        `Failed to calculate the number of expected pods: ${messageOf(error)}`,
      );
      throw error;
    }
    if (expected.unmanagedPods.length > 0) {
      this.recorder.event(
        pdb,
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${goLabelSelectorStruct(pdb.spec?.selector)}) ` +
          'were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, ' +
          'which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" ' +
          'field of the PDB to an integer value.',
      );
    }
    const now = this.now();
    const { disruptedPods, recheckAtMs, notDeleted } = buildDisruptedPodMap(pods, pdb, now);
    for (const pod of notDeleted) {
      // (Upstream's message names the namespace twice.)
      const namespace = pdb.metadata?.namespace ?? '';
      this.recorder.event(
        pod,
        'Warning',
        'NotDeleted',
        `Pod was expected by PDB ${namespace}/${namespace} to be deleted but it wasn't`,
      );
    }
    const currentHealthy = countHealthyPods(pods, disruptedPods, now);
    await this.updateStatus(pdb, {
      currentHealthy,
      desiredHealthy: expected.desiredHealthy,
      expectedPods: expected.expectedCount,
      disruptionsAllowed: disruptionsAllowed(currentHealthy, expected.desiredHealthy, expected.expectedCount),
      disruptedPods,
    });
    return recheckAtMs === undefined ? undefined : { requeueAfterMs: Math.max(0, recheckAtMs - now) };
  }

  private async updateStatus(
    pdb: PodDisruptionBudget,
    computed: Omit<PodDisruptionBudgetStatus, 'conditions' | 'observedGeneration'>,
  ): Promise<void> {
    const current = budgetStatusOf(pdb);
    const generation = pdb.metadata?.generation ?? 0;
    if (
      current.currentHealthy === computed.currentHealthy &&
      current.desiredHealthy === computed.desiredHealthy &&
      current.expectedPods === computed.expectedPods &&
      current.disruptionsAllowed === computed.disruptionsAllowed &&
      sameDisruptedPods(current.disruptedPods, computed.disruptedPods) &&
      (current.observedGeneration ?? 0) === generation &&
      conditionsAreUpToDate(pdb)
    ) {
      return;
    }
    const status: PodDisruptionBudgetStatus = {
      ...computed,
      observedGeneration: generation,
      conditions: structuredClone(current.conditions ?? []),
    };
    if (Object.keys(status.disruptedPods ?? {}).length === 0) delete status.disruptedPods;
    updateDisruptionAllowedCondition(status, rfc3339(this.now()));
    await this.client.resource<PodDisruptionBudget>(PDBS).updateStatus({ ...pdb, status });
  }

  /** failSafe: whatever went wrong, no disruptions are allowed, and the condition says why. */
  private async failSafe(pdb: PodDisruptionBudget, error: unknown): Promise<void> {
    const status = { ...budgetStatusOf(pdb), disruptionsAllowed: 0 };
    status.conditions = structuredClone(status.conditions ?? []);
    setStatusCondition(
      status.conditions,
      {
        type: DISRUPTION_ALLOWED_CONDITION,
        status: 'False',
        reason: SYNC_FAILED_REASON,
        message: messageOf(error),
        observedGeneration: status.observedGeneration ?? 0,
      },
      rfc3339(this.now()),
    );
    await this.client.resource<PodDisruptionBudget>(PDBS).updateStatus({ ...pdb, status });
  }

  /**
   * nonTerminatingPodHasStaleDisruptionCondition: how long until a DisruptionTarget condition
   * of a pod that is not terminating counts as stale (0: now); undefined when it never will.
   */
  private staleConditionWait(pod: Pod): number | undefined {
    if (pod.metadata?.deletionTimestamp) return undefined;
    const condition = podCondition(pod.status, DISRUPTION_TARGET);
    const phase = pod.status?.phase;
    if (
      condition?.status !== 'True' ||
      condition.reason === TERMINATION_BY_KUBELET ||
      phase === 'Succeeded' ||
      phase === 'Failed'
    ) {
      return undefined;
    }
    const since = Date.parse(condition.lastTransitionTime ?? '');
    const elapsed = Number.isNaN(since) ? this.staleTimeoutMs : this.now() - since;
    return Math.max(0, this.staleTimeoutMs - elapsed);
  }

  async syncStalePod(key: string): Promise<undefined> {
    const { namespace, name } = splitKey(key);
    const pod = this.pods.get(namespace, name);
    if (!pod) return undefined;
    const waitMs = this.staleConditionWait(pod);
    if (waitMs === undefined) return undefined;
    if (waitMs > 0) {
      this.stalePods.enqueueAfter(key, waitMs);
      return undefined;
    }
    const updated = structuredClone(pod);
    updated.status ??= {};
    const changed = updatePodCondition(
      updated.status,
      { type: DISRUPTION_TARGET, status: 'False' },
      rfc3339(this.now()),
    );
    if (changed) await this.client.resource<Pod>(PODS).updateStatus(updated);
    return undefined;
  }
}

/** DeepEqual in apimachinery's semantic sense: a missing map equals an empty one. */
function sameDisruptedPods(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const left = Object.entries(a ?? {});
  return left.length === Object.keys(b ?? {}).length && left.every(([pod, time]) => b?.[pod] === time);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const disruptionController: ControllerDescriptor = {
  name: 'disruption-controller',
  create: (context) => new DisruptionController(context),
};
