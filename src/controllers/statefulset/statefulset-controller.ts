// The StatefulSet controller (pkg/controller/statefulset): records the template as
// ControllerRevisions, runs the update algorithm of stateful-set-control.ts against the API
// (pods with stable names, their PersistentVolumeClaims and the claims' retention policy), and
// writes the status. Acts as system:serviceaccount:kube-system:statefulset-controller.
import { type LabelSelector, labelSelectorFromObject } from '../../api/selectors/index.js';
import type {
  ControllerRevision,
  StatefulSet,
  StatefulSetStatus,
} from '../../api/types/apps-v1.generated.js';
import type { PersistentVolumeClaim, Pod } from '../../api/types/core-v1.generated.js';
import { Controller, objectOf, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import type { SharedInformer } from '../../client/informers/index.js';
import { CONTROLLER_REVISIONS, PODS, PVCS, STATEFUL_SETS } from '../../client/resources.js';
import { isAlreadyExists, isNotFound } from '../../client/rest/index.js';
import type { ResourceClient } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../context.js';
import {
  adoptionPatch,
  claimObjects,
  recheckDeletionTimestamp,
  releasePatch,
} from '../controller-utils/controller-ref-manager.js';
import { controllerRefOf } from '../controller-utils/owner-references.js';
import { messageOf } from '../controller-utils/pod-control.js';
import { claimRevisions, cleanupHistory, syncRevisions } from '../history/revision-sync.js';
import { claimOwnersFor } from './claim-retention.js';
import { podClaims, revisionHashOf, STATEFUL_SET_KIND, templateOfRevision } from './stateful-pods.js';
import { completeRollingUpdate, type StatefulPodActions, updateStatefulSet } from './stateful-set-control.js';

const SERVICE_ACCOUNT = 'statefulset-controller';
/** --concurrent-statefulset-syncs. */
const WORKERS = 5;

export class StatefulSetController implements RunnableController {
  readonly controller: Controller;
  private readonly sets: SharedInformer<StatefulSet>;
  private readonly pods: SharedInformer<Pod>;
  private readonly revisions: SharedInformer<ControllerRevision>;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly resource: ResourceClient<StatefulSet>;
  private readonly podClient: ResourceClient<Pod>;
  private readonly claimClient: ResourceClient<PersistentVolumeClaim>;
  private readonly revisionClient: ResourceClient<ControllerRevision>;
  private readonly recorder: EventRecorder;

  constructor(
    context: ControllerContext,
    private readonly now: () => number = Date.now,
  ) {
    const client = context.clientFor(SERVICE_ACCOUNT);
    this.resource = client.resource<StatefulSet>(STATEFUL_SETS);
    this.podClient = client.resource<Pod>(PODS);
    this.claimClient = client.resource<PersistentVolumeClaim>(PVCS);
    this.revisionClient = client.resource<ControllerRevision>(CONTROLLER_REVISIONS);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, 'statefulset-controller');
    this.sets = context.informers.informerFor<StatefulSet>(STATEFUL_SETS);
    this.pods = context.informers.informerFor<Pod>(PODS);
    this.revisions = context.informers.informerFor<ControllerRevision>(CONTROLLER_REVISIONS);
    this.claims = context.informers.informerFor<PersistentVolumeClaim>(PVCS);
    const podRegistration = this.pods.addEventHandler({
      onAdd: (pod) => this.podChanged(pod),
      onUpdate: (old, pod) => {
        this.podChanged(pod);
        this.readyLater(old, pod);
      },
      onDelete: (pod) => this.podChanged(objectOf(pod)),
    });
    this.controller = new Controller({
      name: 'statefulset-controller',
      workers: WORKERS,
      sync: (key) => this.sync(key),
      waitFor: [podRegistration, this.claims],
    });
    this.controller.watch(this.sets);
    this.controller.watch(this.revisions, (revision) => this.ownerKey(revision));
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  private ownerKey(object: Pod | ControllerRevision): string | undefined {
    const reference = controllerRefOf(object);
    if (reference === undefined || reference.kind !== STATEFUL_SET_KIND.kind) return undefined;
    const namespace = object.metadata?.namespace ?? '';
    const owner = this.sets.lister.get(namespace, reference.name);
    return owner?.metadata?.uid === reference.uid ? `${namespace}/${reference.name}` : undefined;
  }

  private podChanged(pod: Pod): void {
    const key = this.ownerKey(pod);
    if (key !== undefined) {
      this.controller.enqueueKey(key);
      return;
    }
    if (controllerRefOf(pod) !== undefined) return;
    for (const set of this.sets.lister.list(pod.metadata?.namespace ?? '')) {
      if (selectorOf(set)?.matches(pod.metadata?.labels ?? {})) this.controller.enqueue(set);
    }
  }

  /** A pod turning ready turns available minReadySeconds later: look again then. */
  private readyLater(old: Pod, pod: Pod): void {
    const key = this.ownerKey(pod);
    if (key === undefined) return;
    const set = this.sets.lister.get(pod.metadata?.namespace ?? '', controllerRefOf(pod)?.name ?? '');
    const minReadySeconds = set?.spec?.minReadySeconds ?? 0;
    const wasReady = old.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    const isReady = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    if (minReadySeconds > 0 && !wasReady && isReady)
      this.controller.enqueueAfter(key, minReadySeconds * 1000 + 100);
  }

  async sync(key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const { namespace, name } = splitKey(key);
    const set = this.sets.lister.get(namespace, name);
    if (set === undefined) return undefined;
    const selector = selectorOf(set);
    if (selector === undefined || selector.isEmpty()) return undefined;
    // Being deleted: the garbage collector takes the pods; nothing is created or adopted.
    if (set.metadata?.deletionTimestamp !== undefined) return undefined;
    const parent = { ...set, ...STATEFUL_SET_KIND };
    const pods = await this.claimPods(set, selector);
    const owned = await claimRevisions(
      this.revisionClient,
      set,
      STATEFUL_SET_KIND,
      selector,
      this.revisions.lister.list(namespace),
      this.canAdopt(set),
    );
    const history = await syncRevisions({
      client: this.revisionClient,
      parent,
      parentKind: STATEFUL_SET_KIND,
      template: set.spec?.template ?? {},
      collisionCount: set.status?.collisionCount ?? 0,
      owned,
    });
    const template = set.spec?.template ?? {};
    const currentRevision =
      [...owned, history.current].find(
        (revision) => revision.metadata?.name === set.status?.currentRevision,
      ) ?? history.current;
    const updateHash = history.current.metadata?.name ?? '';
    const currentHash = currentRevision.metadata?.name ?? '';
    const withCollisions = {
      ...set,
      status: { ...(set.status ?? { replicas: 0 }), collisionCount: history.collisionCount },
    };
    // Pods carry the revision's name as their controller-revision-hash, as upstream's do.
    const revisions = {
      currentHash,
      currentTemplate: templateOfRevision(currentRevision, template),
      updateHash,
      updateTemplate: template,
    };
    let status = await updateStatefulSet(
      withCollisions,
      revisions,
      pods,
      this.actions(withCollisions),
      this.now(),
    );
    status = completeRollingUpdate(withCollisions, status);
    status.collisionCount = history.collisionCount;
    await this.updateStatus(set, status);
    const live = new Set(pods.map(revisionHashOf));
    live.add(status.currentRevision ?? '');
    live.add(status.updateRevision ?? '');
    await cleanupHistory(
      this.revisionClient,
      history.old.filter((revision) => !live.has(revision.metadata?.name ?? '')),
      new Set(),
      set.spec?.revisionHistoryLimit ?? 10,
    );
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    if (minReadySeconds > 0 && (status.readyReplicas ?? 0) !== (status.availableReplicas ?? 0)) {
      return { requeueAfterMs: minReadySeconds * 1000 };
    }
    return undefined;
  }

  private actions(set: StatefulSet): StatefulPodActions {
    const namespace = set.metadata?.namespace ?? '';
    const parent = { ...set, ...STATEFUL_SET_KIND };
    const setName = set.metadata?.name ?? '';
    return {
      createPod: async (pod, ordinal) => {
        for (const claim of podClaims(set, ordinal).values()) {
          const owners = claimOwnersFor(claim, set, pod, false);
          const claimWithOwner: PersistentVolumeClaim = owners
            ? { ...claim, metadata: { ...claim.metadata, ownerReferences: owners } }
            : claim;
          try {
            await this.claimClient.create(claimWithOwner);
            this.recorder.event(
              parent,
              'Normal',
              'SuccessfulCreate',
              `create Claim ${claim.metadata?.name} Pod ${pod.metadata?.name} in StatefulSet ${setName} success`,
            );
          } catch (error) {
            if (!isAlreadyExists(error)) {
              this.recorder.event(
                parent,
                'Warning',
                'FailedCreate',
                `create Claim ${claim.metadata?.name} for Pod ${pod.metadata?.name} in StatefulSet ${setName} failed error: ${messageOf(error)}`,
              );
              throw error;
            }
          }
        }
        try {
          await this.podClient.create(pod);
        } catch (error) {
          if (isAlreadyExists(error)) return;
          this.recorder.event(
            parent,
            'Warning',
            'FailedCreate',
            `create Pod ${pod.metadata?.name} in StatefulSet ${setName} failed error: ${messageOf(error)}`,
          );
          throw error;
        }
        this.recorder.event(
          parent,
          'Normal',
          'SuccessfulCreate',
          `create Pod ${pod.metadata?.name} in StatefulSet ${setName} successful`,
        );
      },
      recreating: (pod) => {
        this.recorder.event(
          parent,
          'Warning',
          'RecreatingFailedPod',
          `StatefulSet ${namespace}/${setName} is recreating failed Pod ${pod.metadata?.name}`,
        );
      },
      deletePod: async (pod) => {
        try {
          await this.podClient.delete(namespace, pod.metadata?.name ?? '');
        } catch (error) {
          if (isNotFound(error)) return;
          this.recorder.event(
            parent,
            'Warning',
            'FailedDelete',
            `delete Pod ${pod.metadata?.name} in StatefulSet ${setName} failed error: ${messageOf(error)}`,
          );
          throw error;
        }
        this.recorder.event(
          parent,
          'Normal',
          'SuccessfulDelete',
          `delete Pod ${pod.metadata?.name} in StatefulSet ${setName} successful`,
        );
      },
      syncClaimOwners: async (pod, ordinal, condemned) => {
        for (const template of podClaims(set, ordinal).values()) {
          const claim = this.claims.lister.get(namespace, template.metadata?.name ?? '');
          if (claim === undefined) continue;
          const owners = claimOwnersFor(claim, set, pod, condemned);
          if (owners === undefined) continue;
          try {
            // The role may update claims, not patch them (as upstream's updateClaimOwnerRefs).
            await this.claimClient.update({
              ...claim,
              metadata: { ...claim.metadata, ownerReferences: owners },
            });
          } catch (error) {
            if (!isNotFound(error)) throw error;
          }
        }
      },
    };
  }

  /** Adoption waits for one fresh read showing the StatefulSet is not being deleted. */
  private canAdopt(set: StatefulSet): () => Promise<void> {
    const meta = set.metadata ?? {};
    const namespace = meta.namespace ?? '';
    return recheckDeletionTimestamp(async () => {
      const fresh = await this.resource.get(namespace, meta.name ?? '');
      if (fresh.metadata?.uid !== meta.uid) {
        throw new Error(
          `original StatefulSet ${namespace}/${meta.name} is gone: got uid ${fresh.metadata?.uid}, wanted ${meta.uid}`,
        );
      }
      return fresh;
    });
  }

  private claimPods(set: StatefulSet, selector: LabelSelector): Promise<Pod[]> {
    const meta = set.metadata ?? {};
    const namespace = meta.namespace ?? '';
    const podsClient = this.podClient;
    return claimObjects(this.pods.lister.list(namespace), {
      owner: set,
      ownerKind: STATEFUL_SET_KIND,
      objectKind: 'Pod',
      selector,
      // Only pods named for this set are its own (isMemberOf).
      filter: (pod) => /^(.*)-([0-9]+)$/.exec(pod.metadata?.name ?? '')?.[1] === meta.name,
      canAdopt: this.canAdopt(set),
      adopt: async (pod) => {
        await podsClient.patch(
          namespace,
          pod.metadata?.name ?? '',
          'strategic',
          adoptionPatch(set, STATEFUL_SET_KIND, pod.metadata?.uid ?? ''),
        );
      },
      release: async (pod) => {
        await podsClient.patch(
          namespace,
          pod.metadata?.name ?? '',
          'strategic',
          releasePatch(pod.metadata?.uid ?? '', meta.uid ?? ''),
        );
      },
    });
  }

  private async updateStatus(set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    const before = canonical(set.status ?? { replicas: 0 });
    if (before === canonical(status)) return;
    try {
      await this.resource.updateStatus({ ...set, status });
    } catch (error) {
      if (isNotFound(error)) return;
      const fresh = await this.resource.get(set.metadata?.namespace ?? '', set.metadata?.name ?? '');
      await this.resource.updateStatus({ ...fresh, status });
    }
  }
}

function canonical(status: StatefulSetStatus): string {
  const entries = Object.entries(status)
    .filter(([, value]) => value !== undefined && value !== 0 && value !== '')
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(entries);
}

function selectorOf(set: StatefulSet): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(set.spec?.selector);
  } catch {
    return undefined;
  }
}

export const statefulSetController: ControllerDescriptor = {
  name: 'statefulset-controller',
  create: (context) => new StatefulSetController(context),
};
