// The Deployment controller (pkg/controller/deployment/deployment_controller.go), acting as
// system:serviceaccount:kube-system:deployment-controller: claims the ReplicaSets its selector
// matches, then per sync either only writes the status (being deleted), scales (paused, or
// spec.replicas changed), rolls back (deprecated annotation), or takes a rollout step of its
// strategy.
import { type LabelSelector, labelSelectorFromObject } from '../../api/selectors/index.js';
import type { Deployment, ReplicaSet } from '../../api/types/apps-v1.generated.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import { Controller, keyOf, objectOf, splitKey } from '../../client/controller.js';
import type { DeletedFinalStateUnknown, SharedInformer } from '../../client/informers/index.js';
import { DEPLOYMENTS, PODS, REPLICA_SETS } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../context.js';
import {
  adoptionPatch,
  claimObjects,
  recheckDeletionTimestamp,
  releasePatch,
} from '../controller-utils/controller-ref-manager.js';
import {
  CONTROLLER_UID_INDEX,
  controllerRefOf,
  controllerUidIndexFunc,
  enqueueOwnersOfChanged,
  type OwnerResolver,
} from '../controller-utils/owner-references.js';
import { statusOf } from './deployment-util.js';
import { type PodsByReplicaSet, rolloutRecreate } from './recreate.js';
import {
  checkPausedConditions,
  isScalingEvent,
  rollbackRevision,
  syncScaling,
  syncStatusOnly,
} from './replica-sets.js';
import { rollback } from './rollback.js';
import { rolloutRolling } from './rolling.js';
import { DEPLOYMENT_KIND, type SyncContext, updateDeploymentStatus } from './sync-context.js';

const SERVICE_ACCOUNT = 'deployment-controller';
/** --concurrent-deployment-syncs. */
const WORKERS = 5;

export interface DeploymentControllerOptions {
  readonly now?: () => number;
}

export class DeploymentController implements RunnableController {
  readonly controller: Controller;
  private readonly deployments: SharedInformer<Deployment>;
  private readonly replicaSets: SharedInformer<ReplicaSet>;
  private readonly pods: SharedInformer<Pod>;
  private readonly ctx: SyncContext;
  private readonly deploymentClient: ResourceClient<Deployment>;
  private readonly replicaSetClient: ResourceClient<ReplicaSet>;

  constructor(context: ControllerContext, options: DeploymentControllerOptions = {}) {
    const client = context.clientFor(SERVICE_ACCOUNT);
    this.deploymentClient = client.resource<Deployment>(DEPLOYMENTS);
    this.replicaSetClient = client.resource<ReplicaSet>(REPLICA_SETS);
    this.deployments = context.informers.informerFor<Deployment>(DEPLOYMENTS);
    this.replicaSets = context.informers.informerFor<ReplicaSet>(REPLICA_SETS, {
      indexers: { [CONTROLLER_UID_INDEX]: controllerUidIndexFunc },
    });
    this.pods = context.informers.informerFor<Pod>(PODS);
    const now = options.now ?? Date.now;
    this.ctx = {
      deployments: this.deploymentClient,
      replicaSets: this.replicaSetClient,
      replicaSetLister: this.replicaSets.lister,
      recorder: context.recorderFor(SERVICE_ACCOUNT, SERVICE_ACCOUNT),
      now,
      requeueAfter: (deployment, ms) => this.controller.enqueueAfter(deployment, ms),
      requeueRateLimited: (deployment) => this.controller.queue.addRateLimited(keyOf(deployment)),
    };
    const registrations = [
      this.deployments.addEventHandler({
        onAdd: (d) => this.controller.enqueue(d),
        onUpdate: (_old, d) => this.controller.enqueue(d),
        onDelete: (d) => this.controller.enqueue(d),
      }),
      this.replicaSets.addEventHandler({
        onAdd: (rs) => this.addReplicaSet(rs),
        onUpdate: (old, rs) => this.updateReplicaSet(old, rs),
        onDelete: (rs) => this.deleteReplicaSet(rs),
      }),
      this.pods.addEventHandler({ onDelete: (pod) => this.deletePod(objectOf(pod)) }),
    ];
    this.controller = new Controller({
      name: 'deployment',
      workers: WORKERS,
      sync: (key) => this.sync(key),
      waitFor: registrations,
    });
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  // ---- event handlers ----------------------------------------------------------------------

  private readonly resolver: OwnerResolver<Deployment> = {
    resolve: (namespace, reference) => {
      if (reference.kind !== DEPLOYMENT_KIND.kind) return undefined;
      const deployment = this.deployments.lister.get(namespace, reference.name);
      return deployment?.metadata?.uid === reference.uid ? deployment : undefined;
    },
    // Deployments whose selectors match an orphan ReplicaSet's labels (none without labels).
    selecting: (rs) => {
      const labels = rs.metadata?.labels ?? {};
      if (Object.keys(labels).length === 0) return [];
      return this.deployments.lister.list(rs.metadata?.namespace ?? '').filter((d) => {
        const selector = selectorOrUndefined(d);
        return selector !== undefined && !selector.isEmpty() && selector.matches(labels);
      });
    },
  };

  private addReplicaSet(rs: ReplicaSet): void {
    if (rs.metadata?.deletionTimestamp !== undefined) {
      this.deleteReplicaSet(rs);
      return;
    }
    const reference = controllerRefOf(rs);
    if (reference !== undefined) {
      const deployment = this.resolver.resolve(rs.metadata?.namespace ?? '', reference);
      if (deployment !== undefined) this.controller.enqueue(deployment);
      return;
    }
    for (const deployment of this.resolver.selecting(rs)) this.controller.enqueue(deployment);
  }

  private updateReplicaSet(old: ReplicaSet, current: ReplicaSet): void {
    if (old.metadata?.resourceVersion === current.metadata?.resourceVersion) return;
    enqueueOwnersOfChanged(old, current, this.resolver, (d) => this.controller.enqueue(d));
  }

  private deleteReplicaSet(value: ReplicaSet | DeletedFinalStateUnknown<ReplicaSet>): void {
    const rs = objectOf(value);
    const reference = controllerRefOf(rs);
    if (reference === undefined) return;
    const deployment = this.resolver.resolve(rs.metadata?.namespace ?? '', reference);
    if (deployment !== undefined) this.controller.enqueue(deployment);
  }

  /** A Recreate Deployment waits for its old pods to be gone: sync it when its last pod goes. */
  private deletePod(pod: Pod): void {
    const deployment = this.deploymentOfPod(pod);
    if (deployment === undefined || deployment.spec?.strategy?.type !== 'Recreate') return;
    const replicaSets = this.ownedReplicaSets(deployment);
    const podMap = this.podMap(deployment, replicaSets);
    if (podMap === undefined) return;
    const count = [...podMap.values()].reduce((sum, pods) => sum + pods.length, 0);
    if (count === 0) this.controller.enqueue(deployment);
  }

  private deploymentOfPod(pod: Pod): Deployment | undefined {
    const reference = controllerRefOf(pod);
    if (reference === undefined || reference.kind !== 'ReplicaSet') return undefined;
    const rs = this.replicaSets.lister.get(pod.metadata?.namespace ?? '', reference.name);
    if (rs === undefined || rs.metadata?.uid !== reference.uid) return undefined;
    const owner = controllerRefOf(rs);
    return owner && this.resolver.resolve(rs.metadata?.namespace ?? '', owner);
  }

  /** The cached ReplicaSets the Deployment controls. */
  private ownedReplicaSets(deployment: Deployment): ReplicaSet[] {
    return this.replicaSets.indexer.byIndex(CONTROLLER_UID_INDEX, deployment.metadata?.uid ?? '');
  }

  // ---- sync --------------------------------------------------------------------------------

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const cached = this.deployments.lister.get(namespace, name);
    if (cached === undefined) return;
    // A copy to work on (the cache must stay as the apiserver sent it), named by kind for events.
    const deployment: Deployment = { ...structuredClone(cached), ...DEPLOYMENT_KIND };
    const selectorObject = deployment.spec?.selector;
    if (
      selectorObject !== undefined &&
      Object.keys(selectorObject.matchLabels ?? {}).length === 0 &&
      (selectorObject.matchExpressions ?? []).length === 0
    ) {
      this.ctx.recorder.event(
        deployment,
        'Warning',
        'SelectingAll',
        'This deployment is selecting all pods. A non-empty selector is required.',
      );
      const status = statusOf(deployment);
      if ((status.observedGeneration ?? 0) < (deployment.metadata?.generation ?? 0)) {
        status.observedGeneration = deployment.metadata?.generation;
        await updateDeploymentStatus(this.ctx, deployment).catch(() => undefined);
      }
      return;
    }
    const replicaSets = await this.claimReplicaSets(deployment);
    const podMap = this.podMap(deployment, replicaSets);
    if (podMap === undefined) return;
    if (deployment.metadata?.deletionTimestamp !== undefined) {
      await syncStatusOnly(this.ctx, deployment, replicaSets);
      return;
    }
    await checkPausedConditions(this.ctx, deployment);
    if (deployment.spec?.paused) {
      await syncScaling(this.ctx, deployment, replicaSets);
      return;
    }
    if (rollbackRevision(deployment) !== undefined) {
      await rollback(this.ctx, deployment, replicaSets);
      return;
    }
    if (await isScalingEvent(this.ctx, deployment, replicaSets)) {
      await syncScaling(this.ctx, deployment, replicaSets);
      return;
    }
    const strategy = deployment.spec?.strategy?.type ?? 'RollingUpdate';
    if (strategy === 'Recreate') await rolloutRecreate(this.ctx, deployment, replicaSets, podMap);
    else if (strategy === 'RollingUpdate') await rolloutRolling(this.ctx, deployment, replicaSets);
    else throw new Error(`unexpected deployment strategy type: ${strategy}`);
  }

  /** The ReplicaSets the Deployment controls after adopting matching orphans and releasing misfits. */
  private claimReplicaSets(deployment: Deployment): Promise<ReplicaSet[]> {
    const meta = deployment.metadata ?? {};
    const namespace = meta.namespace ?? '';
    let selector: LabelSelector;
    try {
      selector = labelSelectorFromObject(deployment.spec?.selector);
    } catch (error) {
      throw new Error(`deployment ${namespace}/${meta.name} has invalid label selector: ${String(error)}`);
    }
    const canAdopt = recheckDeletionTimestamp(async () => {
      const fresh = await this.deploymentClient.get(namespace, meta.name ?? '');
      if (fresh.metadata?.uid !== meta.uid) {
        throw new Error(
          `original Deployment ${namespace}/${meta.name} is gone: got uid ${fresh.metadata?.uid}, wanted ${meta.uid}`,
        );
      }
      return fresh;
    });
    return claimObjects(this.replicaSets.lister.list(namespace), {
      owner: deployment,
      ownerKind: DEPLOYMENT_KIND,
      objectKind: 'ReplicaSet',
      selector,
      canAdopt,
      adopt: async (rs) => {
        const patch = adoptionPatch(deployment, DEPLOYMENT_KIND, rs.metadata?.uid ?? '');
        await this.replicaSetClient.patch(namespace, rs.metadata?.name ?? '', 'strategic', patch);
      },
      release: async (rs) => {
        const patch = releasePatch(rs.metadata?.uid ?? '', meta.uid ?? '');
        await this.replicaSetClient.patch(namespace, rs.metadata?.name ?? '', 'strategic', patch);
      },
    });
  }

  /** The Deployment's pods (finished ones too) by their controlling ReplicaSet's UID. */
  private podMap(deployment: Deployment, replicaSets: readonly ReplicaSet[]): PodsByReplicaSet | undefined {
    const selector = selectorOrUndefined(deployment);
    if (selector === undefined) return undefined;
    const map = new Map<string, Pod[]>(replicaSets.map((rs) => [rs.metadata?.uid ?? '', []]));
    for (const pod of this.pods.lister.list(deployment.metadata?.namespace ?? '', selector)) {
      const uid = controllerRefOf(pod)?.uid;
      if (uid !== undefined) map.get(uid)?.push(pod);
    }
    return map;
  }
}

function selectorOrUndefined(deployment: Deployment): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(deployment.spec?.selector);
  } catch {
    return undefined;
  }
}

export const deploymentController: ControllerDescriptor = {
  name: 'deployment-controller',
  create: (context) => new DeploymentController(context),
};
