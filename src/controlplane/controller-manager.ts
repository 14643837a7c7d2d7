// The in-process kube-controller-manager: one shared informer factory under the manager's own
// identity, and each controller writing under its own service account (Kubernetes'
// `--use-service-account-credentials`), so RBAC applies to every controller as it does upstream.

import { setMaxListeners } from 'node:events';
import { setImmediate as setImmediatePromise, setTimeout as sleep } from 'node:timers/promises';
import type { UserInfo } from '../apiserver/http/types.js';
import { EventBroadcaster, type EventRecorder } from '../client/events/index.js';
import { SharedInformerFactory, stripManagedFields } from '../client/informers/index.js';
import type { Client } from '../client/types.js';
import { clusterDnsController } from '../controllers/cluster-dns/cluster-dns-controller.js';
import { clusterRoleAggregationController } from '../controllers/clusterrole-aggregation/clusterrole-aggregation-controller.js';
import {
  type ClusterSettings,
  type ControllerContext,
  type ControllerDescriptor,
  DEFAULT_CLUSTER_SETTINGS,
  type RunnableController,
} from '../controllers/context.js';
import { cronJobController } from '../controllers/cronjob/cronjob-controller.js';
import { csrApprovingController } from '../controllers/csrapproving/csr-approving-controller.js';
import { csrCleanerController } from '../controllers/csrcleaner/csr-cleaner-controller.js';
import { csrSigningController } from '../controllers/csrsigning/csr-signing-controller.js';
import { daemonSetController } from '../controllers/daemonset/daemonset-controller.js';
import { deploymentController } from '../controllers/deployment/deployment-controller.js';
import { disruptionController } from '../controllers/disruption/disruption-controller.js';
import { endpointsController } from '../controllers/endpoint/endpoints-controller.js';
import { endpointSliceController } from '../controllers/endpointslice/endpointslice-controller.js';
import { endpointSliceMirroringController } from '../controllers/endpointslice-mirroring/endpointslice-mirroring-controller.js';
import { garbageCollectorController } from '../controllers/garbage-collector/garbage-collector.js';
import { ingressStatusController } from '../controllers/ingress-status/ingress-status-controller.js';
import { jobController } from '../controllers/job/job-controller.js';
import { namespaceController } from '../controllers/namespace/namespace-controller.js';
import { nodeIpamController } from '../controllers/node-ipam/node-ipam-controller.js';
import { nodeLifecycleController } from '../controllers/nodelifecycle/node-lifecycle-controller.js';
import { horizontalPodAutoscalerController } from '../controllers/podautoscaler/horizontal-controller.js';
import { podGcController } from '../controllers/podgc/pod-gc-controller.js';
import { replicaSetController } from '../controllers/replicaset/replica-set-controller.js';
import { replicationControllerController } from '../controllers/replicationcontroller/replication-controller.js';
import { resourceQuotaController } from '../controllers/resourcequota/resource-quota-controller.js';
import { rootCaPublisherController } from '../controllers/root-ca-publisher/root-ca-publisher.js';
import { serviceLoadBalancerController } from '../controllers/service-lb/service-lb-controller.js';
import { serviceAccountController } from '../controllers/serviceaccount/serviceaccounts-controller.js';
import { serviceAccountTokenController } from '../controllers/serviceaccount-token/tokens-controller.js';
import { statefulSetController } from '../controllers/statefulset/statefulset-controller.js';
import { taintEvictionController } from '../controllers/tainteviction/taint-eviction-controller.js';
import { ttlAfterFinishedController } from '../controllers/ttlafterfinished/ttl-after-finished-controller.js';
import { ephemeralVolumeController } from '../controllers/volume/ephemeral/ephemeral-controller.js';
import { localPathProvisionerController } from '../controllers/volume/local-path/local-path-provisioner.js';
import { persistentVolumeBinderController } from '../controllers/volume/persistentvolume/pv-controller.js';
import { pvcProtectionController } from '../controllers/volume/pvcprotection/pvc-protection-controller.js';
import { pvProtectionController } from '../controllers/volume/pvprotection/pv-protection-controller.js';
import { controllerIdentity, type LoopbackClients } from './loopback.js';

/** The manager's own identity (its client certificate's subject in kubeadm clusters): informers read as it. */
export const MANAGER_IDENTITY: UserInfo = {
  name: 'system:kube-controller-manager',
  groups: ['system:authenticated'],
};

/**
 * Started first, on their informers alone: what a new cluster's first pods wait for (each
 * namespace's `default` ServiceAccount and `kube-root-ca.crt`), as upstream's manager starts its
 * token controller before the others. The others' ~45 informers would otherwise list and watch
 * first, and the accounts' creation wait behind those watches at the apiserver (~150 ms of
 * `tkube up`). The rest start once these have synced what they found, or after
 * FIRST_CONTROLLERS_LEAD_MS at most.
 */
export const FIRST_CONTROLLERS: readonly ControllerDescriptor[] = [
  serviceAccountController,
  rootCaPublisherController,
];

/** The longest the other controllers wait for the first ones (an apiserver slow to answer them). */
export const FIRST_CONTROLLERS_LEAD_MS = 1_000;

/** The controllers the manager runs, in start order. */
export const CONTROLLERS: readonly ControllerDescriptor[] = [
  ...FIRST_CONTROLLERS,
  nodeIpamController,
  garbageCollectorController,
  endpointsController,
  endpointSliceController,
  endpointSliceMirroringController,
  nodeLifecycleController,
  taintEvictionController,
  podGcController,
  ttlAfterFinishedController,
  jobController,
  cronJobController,
  namespaceController,
  serviceAccountTokenController,
  resourceQuotaController,
  clusterRoleAggregationController,
  replicaSetController,
  replicationControllerController,
  deploymentController,
  daemonSetController,
  statefulSetController,
  horizontalPodAutoscalerController,
  disruptionController,
  csrApprovingController,
  csrSigningController,
  csrCleanerController,
  clusterDnsController,
  ingressStatusController,
  serviceLoadBalancerController,
  persistentVolumeBinderController,
  pvcProtectionController,
  pvProtectionController,
  localPathProvisionerController,
  ephemeralVolumeController,
];

interface BuiltController {
  readonly descriptor: ControllerDescriptor;
  readonly controller: RunnableController;
}

export class ControllerManager {
  private readonly abort = new AbortController();
  private readonly clients = new Map<string, Client>();
  private readonly broadcasters = new Map<string, EventBroadcaster>();
  /** The shared informers, reading as the manager: fake nodes beside it read through them too. */
  readonly informers: SharedInformerFactory;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly loopback: LoopbackClients,
    private readonly settings: ClusterSettings = DEFAULT_CLUSTER_SETTINGS,
    private readonly controllers: readonly ControllerDescriptor[] = CONTROLLERS,
  ) {
    this.informers = new SharedInformerFactory(loopback.client(MANAGER_IDENTITY, 'kube-controller-manager'), {
      transform: stripManagedFields,
    });
  }

  start(): void {
    const context: ControllerContext = {
      informers: this.informers,
      settings: this.settings,
      rootClient: this.informers.client,
      clientFor: (serviceAccount) => this.clientFor(serviceAccount),
      recorderFor: (serviceAccount, component) => this.recorderFor(serviceAccount, component),
    };
    const signal = this.abort.signal;
    // Every controller (and every worker of some) listens for the stop: not a leak.
    setMaxListeners(0, signal);
    const first = this.controllers.filter((descriptor) => FIRST_CONTROLLERS.includes(descriptor));
    const rest = this.controllers.filter((descriptor) => !FIRST_CONTROLLERS.includes(descriptor));
    const firstBuilt = first.map((descriptor) => this.build(descriptor, context));
    this.informers.start(signal);
    this.running = Promise.all([
      this.run(firstBuilt, signal),
      this.startRest(firstBuilt, rest, context, signal),
    ]);
  }

  /**
   * Builds the other controllers one at a time, the event loop turning in between (building them
   * all takes tens of milliseconds, which would hold back the first controllers' requests), and
   * starts them once the first controllers have caught up (their writes then reach the apiserver
   * ahead of the others' lists and watches).
   */
  private async startRest(
    first: readonly BuiltController[],
    descriptors: readonly ControllerDescriptor[],
    context: ControllerContext,
    signal: AbortSignal,
  ): Promise<void> {
    const built: BuiltController[] = [];
    for (const descriptor of descriptors) {
      await setImmediatePromise();
      if (signal.aborted) return;
      built.push(this.build(descriptor, context));
    }
    const caughtUp = Promise.all(first.map(({ controller }) => controller.caughtUp?.()));
    const leadOver = new AbortController();
    const lead = sleep(FIRST_CONTROLLERS_LEAD_MS, undefined, {
      signal: AbortSignal.any([signal, leadOver.signal]),
    }).catch(() => undefined);
    await Promise.race([caughtUp, lead]);
    leadOver.abort();
    if (!(await this.informers.waitForCacheSync(signal))) return;
    this.informers.start(signal);
    await this.run(built, signal);
  }

  /** A controller built registers its informers, which the factory's next start starts. */
  private build(descriptor: ControllerDescriptor, context: ControllerContext): BuiltController {
    return { descriptor, controller: descriptor.create(context) };
  }

  private async run(built: readonly BuiltController[], signal: AbortSignal): Promise<void> {
    await Promise.all(
      built.map(({ descriptor, controller }) =>
        controller.run(signal).catch((error: unknown) => {
          console.error(`controller ${descriptor.name} failed: ${String(error)}`);
        }),
      ),
    );
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
    await Promise.all([...this.broadcasters.values()].map((broadcaster) => broadcaster.shutdown()));
    await this.informers.stop();
  }

  private clientFor(serviceAccount: string): Client {
    let client = this.clients.get(serviceAccount);
    if (!client) {
      client = this.loopback.client(controllerIdentity(serviceAccount), 'kube-controller-manager');
      this.clients.set(serviceAccount, client);
    }
    return client;
  }

  private recorderFor(serviceAccount: string, component: string): EventRecorder {
    let broadcaster = this.broadcasters.get(serviceAccount);
    if (!broadcaster) {
      broadcaster = new EventBroadcaster(this.clientFor(serviceAccount));
      this.broadcasters.set(serviceAccount, broadcaster);
    }
    return broadcaster.newRecorder({ component });
  }
}
