// The resource quota controller: each ResourceQuota's status.hard follows spec.hard and its
// status.used is measured from the objects that exist, when the quota is created or its limits
// change, when counted objects go away or use less, and every five minutes. Admission charges new
// objects to status.used in between.
import type { KubeObject } from '../../api/object.js';
import type { ResourceQuota } from '../../api/types/core-v1.generated.js';
import {
  type GroupResource,
  type ResourceQuota as QuotaShape,
  recalculateQuotaStatus,
  resourcesTrackedBy,
} from '../../apiserver/admission/quota/index.js';
import { sameResourceList } from '../../apiserver/admission/quota/resource-list.js';
import { Controller, type SyncResult, splitKey } from '../../client/controller.js';
import { RESOURCE_QUOTAS } from '../../client/resources.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../context.js';
import { QuotaMonitor } from './quota-monitor.js';

const SERVICE_ACCOUNT = 'resourcequota-controller';
/** `--concurrent-resource-quota-syncs`' default. */
const WORKERS = 5;
/** `--resource-quota-sync-period`'s default: every quota is recalculated this often. */
const RESYNC_MS = 5 * 60_000;
/** What the evaluators measure and the object counts every cluster has: watched from the start. */
const MONITORED_FROM_START: readonly GroupResource[] = [
  'pods',
  'services',
  'persistentvolumeclaims',
  'configmaps',
  'secrets',
  'replicationcontrollers',
  'resourcequotas',
].map((resource) => ({ group: '', resource }));

export class ResourceQuotaController implements RunnableController {
  readonly controller: Controller;
  private readonly monitor: QuotaMonitor;

  constructor(private readonly context: ControllerContext) {
    const quotas = context.informers.informerFor<ResourceQuota>(RESOURCE_QUOTAS);
    this.monitor = new QuotaMonitor(
      context.informers,
      (resource, namespace) => this.replenish(resource, namespace),
      (namespace) => quotas.lister.list(namespace).length > 0,
    );
    for (const resource of MONITORED_FROM_START) this.monitor.monitor(resource);
    // Status changes (this controller's and admission's) are not followed: only new quotas and
    // new limits need a recalculation.
    const registration = quotas.addEventHandler({
      onAdd: (quota) => this.controller.enqueue(quota),
      onUpdate: (old, quota) => {
        if (!sameResourceList(old.spec?.hard, quota.spec?.hard)) this.controller.enqueue(quota);
      },
    });
    this.controller = new Controller({
      name: 'resourcequota',
      sync: (key) => this.sync(key),
      workers: WORKERS,
      waitFor: [registration],
    });
  }

  run(signal: AbortSignal): Promise<void> {
    this.monitor.started(signal);
    return this.controller.run(signal);
  }

  /** Queues the namespace's quotas that count `resource`. */
  private replenish(resource: GroupResource, namespace: string): void {
    for (const quota of this.context.informers.listerFor<ResourceQuota>(RESOURCE_QUOTAS).list(namespace)) {
      const tracked = resourcesTrackedBy(Object.keys(quota.spec?.hard ?? {}));
      if (tracked.some((r) => r.group === resource.group && r.resource === resource.resource)) {
        this.controller.enqueue(quota);
      }
    }
  }

  async sync(key: string): Promise<SyncResult | undefined> {
    const { namespace, name } = splitKey(key);
    const quota = this.context.informers.listerFor<ResourceQuota>(RESOURCE_QUOTAS).get(namespace, name);
    if (!quota) return undefined;
    const listed = new Map<string, readonly KubeObject[]>();
    for (const resource of resourcesTrackedBy(Object.keys(quota.spec?.hard ?? {}))) {
      const objects = await this.monitor.objects(resource, namespace);
      if (objects === undefined) return undefined; // stopping
      listed.set(idOf(resource), objects);
    }
    const status = recalculateQuotaStatus(
      quota as QuotaShape,
      (resource) => listed.get(idOf(resource)) ?? [],
    );
    const dirty =
      quota.status?.hard === undefined ||
      quota.status.used === undefined ||
      !sameResourceList(quota.spec?.hard, quota.status.hard) ||
      !sameResourceList(status.used, quota.status.used);
    if (dirty) {
      await this.context
        .clientFor(SERVICE_ACCOUNT)
        .resource<ResourceQuota>(RESOURCE_QUOTAS)
        .updateStatus({ ...structuredClone(quota), status });
    }
    return { requeueAfterMs: RESYNC_MS };
  }
}

function idOf(resource: GroupResource): string {
  return `${resource.resource}.${resource.group}`;
}

export const resourceQuotaController: ControllerDescriptor = {
  name: 'resourcequota-controller',
  create: (context) => new ResourceQuotaController(context),
};
