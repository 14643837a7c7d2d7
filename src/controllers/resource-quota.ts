import type { KubeObject } from '../api/object.js';
import type { QuotaNamespaces } from '../apiserver/admission/plugins/resource-quota.js';
import {
  type GroupResource,
  type ResourceQuota,
  recalculateQuotaStatus,
  resourcesTrackedBy,
} from '../apiserver/admission/quota/index.js';
import type { ResourceStore } from '../apiserver/registry/resource-store.js';
import { StatusError } from '../apiserver/status.js';

/**
 * The resource quota controller: sets each quota's status.hard and status.used from the
 * objects that exist, on start and every second, so
 * usage falls again when objects go. Admission charges new objects in between.
 */
export class ResourceQuotaController {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly quotas: ResourceStore,
    private readonly storeFor: (resource: GroupResource) => ResourceStore | undefined,
    private readonly withQuotas: QuotaNamespaces,
    private readonly intervalMs = 1000,
  ) {}

  start(): void {
    this.resync();
    this.timer = setInterval(() => this.resync(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Recalculates every quota (serialized: one pass at a time). */
  resync(): Promise<void> {
    this.running = this.running
      .then(() => this.syncAll())
      .catch((error: unknown) => console.error('resource quota controller:', error));
    return this.running;
  }

  private async syncAll(): Promise<void> {
    const { items } = await this.quotas.list('');
    const quotas = items.map((text) => JSON.parse(text) as ResourceQuota & KubeObject);
    this.withQuotas.replace(quotas.map((quota) => quota.metadata?.namespace ?? ''));
    for (const quota of quotas) await this.sync(quota);
  }

  /** Idempotent: writes status only when it changed. */
  private async sync(quota: ResourceQuota & KubeObject): Promise<void> {
    const namespace = quota.metadata?.namespace ?? '';
    const listed = new Map<string, KubeObject[]>();
    for (const resource of resourcesTrackedBy(Object.keys(quota.spec?.hard ?? {}))) {
      const store = this.storeFor(resource);
      const page = store ? await store.list(namespace) : { items: [] };
      listed.set(
        `${resource.resource}.${resource.group}`,
        page.items.map((t) => JSON.parse(t) as KubeObject),
      );
    }
    const status = recalculateQuotaStatus(
      quota,
      (resource) => listed.get(`${resource.resource}.${resource.group}`) ?? [],
    );
    if (JSON.stringify(status) === JSON.stringify({ hard: quota.status?.hard, used: quota.status?.used }))
      return;
    try {
      await this.quotas.guaranteedUpdate(
        namespace,
        quota.metadata?.name ?? '',
        (current) => ({ ...current, status }),
        {
          subresource: 'status',
        },
      );
    } catch (error) {
      if (!(error instanceof StatusError && error.code === 404)) throw error;
    }
  }
}
