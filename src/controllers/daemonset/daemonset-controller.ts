// The DaemonSet controller (pkg/controller/daemon): one pod per eligible node, placed by the
// scheduler through node affinity on metadata.name; pods on nodes that stop qualifying or vanish
// are deleted; templates are recorded as ControllerRevisions and rolled out with OnDelete or
// RollingUpdate (maxUnavailable, maxSurge). Acts as system:serviceaccount:kube-system:daemon-set-controller.
import { type LabelSelector, labelSelectorFromObject } from '../../api/selectors/index.js';
import type { ControllerRevision, DaemonSet } from '../../api/types/apps-v1.generated.js';
import type { Node, Pod } from '../../api/types/core-v1.generated.js';
import { Controller, objectOf, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import type { SharedInformer } from '../../client/informers/index.js';
import { CONTROLLER_REVISIONS, DAEMON_SETS, NODES, PODS } from '../../client/resources.js';
import { hasStatusCause, isNotFound } from '../../client/rest/index.js';
import type { ResourceClient } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../context.js';
import {
  adoptionPatch,
  claimObjects,
  recheckDeletionTimestamp,
  releasePatch,
} from '../controller-utils/controller-ref-manager.js';
import { ControllerExpectations } from '../controller-utils/expectations.js';
import { controllerRefOf, newControllerRef, type OwnerKind } from '../controller-utils/owner-references.js';
import { NAMESPACE_TERMINATING_CAUSE, PodControl } from '../controller-utils/pod-control.js';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from '../controller-utils/slow-start.js';
import { claimRevisions, cleanupHistory, syncRevisions } from '../history/revision-sync.js';
import { daemonSetStatus, planManage, planRollingUpdate, type SyncPlan } from './daemon-plan.js';
import { DaemonPlacement, daemonPodTemplate, targetNodeName } from './daemon-pods.js';
import { FailedPodsBackoff } from './failed-pods-backoff.js';

const SERVICE_ACCOUNT = 'daemon-set-controller';
const DAEMON_SET_KIND: OwnerKind = { apiVersion: 'apps/v1', kind: 'DaemonSet' };
/** BurstReplicas: pods created per sync at most. */
const BURST_REPLICAS = 250;
/** --concurrent-daemonset-syncs. */
const WORKERS = 2;

export class DaemonSetController implements RunnableController {
  readonly controller: Controller;
  private readonly daemonSets: SharedInformer<DaemonSet>;
  private readonly pods: SharedInformer<Pod>;
  private readonly nodes: SharedInformer<Node>;
  private readonly revisions: SharedInformer<ControllerRevision>;
  private readonly resource: ResourceClient<DaemonSet>;
  private readonly revisionClient: ResourceClient<ControllerRevision>;
  private readonly podControl: PodControl;
  private readonly expectations: ControllerExpectations;
  private readonly recorder: EventRecorder;
  private readonly failedPodsBackoff = new FailedPodsBackoff();

  constructor(
    context: ControllerContext,
    private readonly now: () => number = Date.now,
  ) {
    const client = context.clientFor(SERVICE_ACCOUNT);
    this.resource = client.resource<DaemonSet>(DAEMON_SETS);
    this.revisionClient = client.resource<ControllerRevision>(CONTROLLER_REVISIONS);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, 'daemonset-controller');
    this.podControl = new PodControl(client, this.recorder);
    this.expectations = new ControllerExpectations(now);
    this.daemonSets = context.informers.informerFor<DaemonSet>(DAEMON_SETS);
    this.pods = context.informers.informerFor<Pod>(PODS);
    this.nodes = context.informers.informerFor<Node>(NODES);
    this.revisions = context.informers.informerFor<ControllerRevision>(CONTROLLER_REVISIONS);
    const podRegistration = this.pods.addEventHandler({
      onAdd: (pod) => this.podChanged(pod, 'add'),
      onUpdate: (_old, pod) => this.podChanged(pod, pod.metadata?.deletionTimestamp ? 'delete' : 'update'),
      onDelete: (pod) => this.podChanged(objectOf(pod), 'delete'),
    });
    // Any node change may change which DaemonSets belong on it.
    const nodeRegistration = this.nodes.addEventHandler({
      onAdd: () => this.enqueueAll(),
      onUpdate: (old, node) => {
        if (
          JSON.stringify(old.metadata?.labels) !== JSON.stringify(node.metadata?.labels) ||
          JSON.stringify(old.spec?.taints) !== JSON.stringify(node.spec?.taints)
        ) {
          this.enqueueAll();
        }
      },
      onDelete: () => this.enqueueAll(),
    });
    this.controller = new Controller({
      name: 'daemonset-controller',
      workers: WORKERS,
      sync: (key) => this.sync(key),
      waitFor: [podRegistration, nodeRegistration],
    });
    this.controller.watch(this.daemonSets);
    this.controller.watch(this.revisions, (revision) => this.ownerKey(revision));
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  private enqueueAll(): void {
    for (const daemonSet of this.daemonSets.lister.list()) this.controller.enqueue(daemonSet);
  }

  private ownerKey(object: Pod | ControllerRevision): string | undefined {
    const reference = controllerRefOf(object);
    if (reference === undefined || reference.kind !== DAEMON_SET_KIND.kind) return undefined;
    const namespace = object.metadata?.namespace ?? '';
    const owner = this.daemonSets.lister.get(namespace, reference.name);
    return owner?.metadata?.uid === reference.uid ? `${namespace}/${reference.name}` : undefined;
  }

  private podChanged(pod: Pod, change: 'add' | 'update' | 'delete'): void {
    const key = this.ownerKey(pod);
    if (key === undefined) {
      if (change === 'delete' || controllerRefOf(pod) !== undefined) return;
      // An orphan: whoever selects it may adopt it.
      for (const daemonSet of this.daemonSets.lister.list(pod.metadata?.namespace ?? '')) {
        const selector = selectorOf(daemonSet);
        if (selector?.matches(pod.metadata?.labels ?? {})) this.controller.enqueue(daemonSet);
      }
      return;
    }
    if (change === 'add' && pod.metadata?.deletionTimestamp === undefined)
      this.expectations.creationObserved(key);
    if (change === 'delete') this.expectations.deletionObserved(key);
    this.controller.enqueueKey(key);
  }

  async sync(key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const { namespace, name } = splitKey(key);
    const daemonSet = this.daemonSets.lister.get(namespace, name);
    if (daemonSet === undefined) {
      this.expectations.delete(key);
      return undefined;
    }
    const selector = selectorOf(daemonSet);
    // An empty selector would select every pod of the namespace: upstream refuses to act on it.
    if (selector === undefined || selector.isEmpty()) return undefined;
    if (daemonSet.metadata?.deletionTimestamp !== undefined) return undefined;
    const parent = { ...daemonSet, ...DAEMON_SET_KIND };
    const history = await syncRevisions({
      client: this.revisionClient,
      parent,
      parentKind: DAEMON_SET_KIND,
      template: daemonSet.spec?.template ?? {},
      collisionCount: daemonSet.status?.collisionCount,
      owned: await claimRevisions(
        this.revisionClient,
        daemonSet,
        DAEMON_SET_KIND,
        selector,
        this.revisions.lister.list(namespace),
        this.canAdopt(daemonSet),
      ),
    });
    let current = daemonSet;
    if (history.collisionCount !== daemonSet.status?.collisionCount) {
      current = await this.resource.updateStatus({
        ...daemonSet,
        status: { ...defaultStatus(daemonSet), collisionCount: history.collisionCount },
      });
    }
    const hash = history.hash;
    const placement = new DaemonPlacement(current);
    const nodes = this.nodes.lister.list().map((node) => ({
      name: node.metadata?.name ?? '',
      placement: placement.on(node),
    }));
    const pods = await this.claimPods(current, selector);
    const podsByNode = groupByNode(pods);
    const nowMs = this.now();
    if (this.expectations.satisfied(key)) {
      const manage = this.limitFailedDeletions(
        current,
        planManage(current, nodes, podsByNode, hash, nowMs),
        nowMs,
      );
      await this.syncNodes(key, current, manage, hash);
      if (
        (current.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' &&
        this.expectations.satisfied(key)
      ) {
        // The pods as they are now: manage may have just created some, and a node whose pod
        // is being replaced must count as unavailable (rollingUpdate lists them afresh).
        const fresh = groupByNode(await this.claimPods(current, selector));
        await this.syncNodes(key, current, planRollingUpdate(current, nodes, fresh, hash, this.now()), hash);
      }
      await cleanupHistory(
        this.revisionClient,
        history.old,
        new Set(pods.map((pod) => pod.metadata?.labels?.['controller-revision-hash'] ?? '')),
        current.spec?.revisionHistoryLimit ?? 10,
      );
    }
    const status = daemonSetStatus(
      current,
      nodes,
      groupByNode(pods.filter(notTerminalDeleting)),
      hash,
      nowMs,
    );
    await this.updateStatus(current, status);
    // Ready pods turn available minReadySeconds later: look again then.
    const minReadySeconds = current.spec?.minReadySeconds ?? 0;
    if (minReadySeconds > 0 && status.numberReady !== (status.numberAvailable ?? 0)) {
      return { requeueAfterMs: minReadySeconds * 1000 };
    }
    return undefined;
  }

  /**
   * Failed pods are deleted (and replaced) at most once per backoff period per node, with a
   * FailedDaemonPod event each time; a node still in backoff is looked at again when it ends.
   */
  private limitFailedDeletions(daemonSet: DaemonSet, plan: SyncPlan, nowMs: number): SyncPlan {
    const failed = new Set(plan.failed ?? []);
    if (failed.size === 0) return plan;
    this.failedPodsBackoff.gc(nowMs);
    const parent = { ...daemonSet, ...DAEMON_SET_KIND };
    const remove = plan.remove.filter((pod) => {
      if (!failed.has(pod)) return true;
      const node = targetNodeName(pod) ?? '';
      const backoffKey = `${daemonSet.metadata?.uid ?? ''}/${node}`;
      if (this.failedPodsBackoff.inBackoff(backoffKey, nowMs)) {
        this.controller.enqueueAfter(daemonSet, this.failedPodsBackoff.delay(backoffKey));
        return false;
      }
      this.failedPodsBackoff.next(backoffKey, nowMs);
      this.recorder.event(
        parent,
        'Warning',
        'FailedDaemonPod',
        `Found failed daemon pod ${pod.metadata?.namespace}/${pod.metadata?.name} on node ${node}, will try to kill it`,
      );
      return true;
    });
    return { ...plan, remove };
  }

  /** Adoption waits for one fresh read showing the DaemonSet is not being deleted. */
  private canAdopt(daemonSet: DaemonSet): () => Promise<void> {
    const meta = daemonSet.metadata ?? {};
    const namespace = meta.namespace ?? '';
    return recheckDeletionTimestamp(async () => {
      const fresh = await this.resource.get(namespace, meta.name ?? '');
      if (fresh.metadata?.uid !== meta.uid) {
        throw new Error(
          `original DaemonSet ${namespace}/${meta.name} is gone: got uid ${fresh.metadata?.uid}, wanted ${meta.uid}`,
        );
      }
      return fresh;
    });
  }

  private claimPods(daemonSet: DaemonSet, selector: LabelSelector): Promise<Pod[]> {
    const meta = daemonSet.metadata ?? {};
    const namespace = meta.namespace ?? '';
    return claimObjects(this.pods.lister.list(namespace), {
      owner: daemonSet,
      ownerKind: DAEMON_SET_KIND,
      objectKind: 'Pod',
      selector,
      canAdopt: this.canAdopt(daemonSet),
      adopt: (pod) =>
        this.podControl.patchPod(
          namespace,
          pod.metadata?.name ?? '',
          adoptionPatch(daemonSet, DAEMON_SET_KIND, pod.metadata?.uid ?? ''),
        ),
      release: (pod) =>
        this.podControl.patchPod(
          namespace,
          pod.metadata?.name ?? '',
          releasePatch(pod.metadata?.uid ?? '', meta.uid ?? ''),
        ),
    });
  }

  /** syncNodes: deletes, then creates in slow-start batches, with expectations for both. */
  private async syncNodes(key: string, daemonSet: DaemonSet, plan: SyncPlan, hash: string): Promise<void> {
    const namespace = daemonSet.metadata?.namespace ?? '';
    const parent = { ...daemonSet, ...DAEMON_SET_KIND };
    const createOn = plan.createOn.slice(0, BURST_REPLICAS);
    const remove = plan.remove.slice(0, BURST_REPLICAS);
    this.expectations.set(key, createOn.length, remove.length);
    const errors: unknown[] = [];
    const reference = newControllerRef(daemonSet, DAEMON_SET_KIND);
    let next = 0;
    const { successes, error } = await slowStartBatch(
      createOn.length,
      SLOW_START_INITIAL_BATCH_SIZE,
      async () => {
        const nodeName = createOn[next++]!;
        try {
          await this.podControl.createPod(
            namespace,
            daemonPodTemplate(daemonSet, hash, nodeName),
            parent,
            reference,
          );
        } catch (failure) {
          this.expectations.creationObserved(key);
          if (!hasStatusCause(failure, NAMESPACE_TERMINATING_CAUSE)) throw failure;
        }
      },
    );
    // Pods never attempted will not be observed.
    for (let skipped = createOn.length - successes - (error ? 1 : 0); skipped > 0; skipped--) {
      this.expectations.creationObserved(key);
    }
    if (error !== undefined) errors.push(error);
    const results = await Promise.allSettled(
      remove.map(async (pod) => {
        try {
          await this.podControl.deletePod(namespace, pod.metadata?.name ?? '', parent);
        } catch (failure) {
          this.expectations.deletionObserved(key);
          if (!isNotFound(failure)) throw failure;
        }
      }),
    );
    for (const result of results) if (result.status === 'rejected') errors.push(result.reason);
    if (errors.length > 0) throw errors[0];
  }

  private async updateStatus(
    daemonSet: DaemonSet,
    status: ReturnType<typeof daemonSetStatus>,
  ): Promise<void> {
    const before = JSON.stringify({ ...defaultStatus(daemonSet), ...daemonSet.status });
    if (before === JSON.stringify({ ...defaultStatus(daemonSet), ...status })) return;
    try {
      await this.resource.updateStatus({ ...daemonSet, status });
    } catch (error) {
      if (isNotFound(error)) return;
      const fresh = await this.resource.get(
        daemonSet.metadata?.namespace ?? '',
        daemonSet.metadata?.name ?? '',
      );
      await this.resource.updateStatus({
        ...fresh,
        status: {
          ...status,
          ...(fresh.status?.collisionCount !== undefined
            ? { collisionCount: fresh.status.collisionCount }
            : {}),
        },
      });
    }
  }
}

function selectorOf(daemonSet: DaemonSet): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(daemonSet.spec?.selector);
  } catch {
    return undefined;
  }
}

function defaultStatus(daemonSet: DaemonSet): NonNullable<DaemonSet['status']> {
  return (
    daemonSet.status ?? {
      currentNumberScheduled: 0,
      desiredNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
    }
  );
}

/** Terminal pods already being deleted are done with (getNodesToDaemonPods leaves them out). */
function notTerminalDeleting(pod: Pod): boolean {
  const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
  return !(terminal && pod.metadata?.deletionTimestamp !== undefined);
}

function groupByNode(pods: readonly Pod[]): Map<string, Pod[]> {
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods) {
    const node = targetNodeName(pod);
    if (node === undefined) continue;
    const list = byNode.get(node);
    if (list) list.push(pod);
    else byNode.set(node, [pod]);
  }
  return byNode;
}

export const daemonSetController: ControllerDescriptor = {
  name: 'daemonset-controller',
  create: (context) => new DaemonSetController(context),
};
