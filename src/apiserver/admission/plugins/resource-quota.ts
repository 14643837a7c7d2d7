import type { KubeObject } from '../../../api/object.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { forbidden } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import { checkQuotas, type ResourceQuota } from '../quota/index.js';
import { displayName } from './lookup.js';

/**
 * ResourceQuota: a write that would push a quota's usage past its hard limits is refused
 * with Kubernetes' "exceeded quota" text; an admitted one is charged to the quota's
 * status.used at once (the quota controller recalculates usage from the objects later).
 */
/**
 * The namespaces that have quotas: most writes happen where there are none, and skipping
 * the quota read there keeps admission cheap. Filled from the store at start and by quota
 * writes (which pass admission); a namespace whose quotas are gone only costs a read.
 */
export class QuotaNamespaces {
  private readonly namespaces = new Set<string>();
  add(namespace: string): void {
    this.namespaces.add(namespace);
  }
  has(namespace: string): boolean {
    return this.namespaces.has(namespace);
  }
}

export function resourceQuotaAdmission(quotas: ResourceStore, withQuotas: QuotaNamespaces): AdmissionPlugin {
  return {
    name: 'ResourceQuota',
    async validate(attributes: AdmissionAttributes) {
      if (attributes.namespace === '' || attributes.operation === 'DELETE') return;
      if (attributes.resource.resource === 'resourcequotas') {
        withQuotas.add(attributes.namespace);
        return;
      }
      if (!withQuotas.has(attributes.namespace)) return;
      const { items } = await quotas.list(attributes.namespace);
      if (items.length === 0) return;
      const result = checkQuotas(
        items.map((text) => JSON.parse(text) as ResourceQuota),
        { group: attributes.resource.group, resource: attributes.resource.resource },
        attributes.object,
        attributes.oldObject,
        { operation: attributes.operation, subresource: attributes.subresource },
      );
      if (!result.ok) throw forbidden(attributes.resource, displayName(attributes.object), result.message);
      if (attributes.dryRun) return;
      for (const update of result.updates) {
        await quotas.guaranteedUpdate(
          attributes.namespace,
          update.quotaName,
          (quota: KubeObject) => ({
            ...quota,
            status: { ...(quota.status as object), used: update.newUsed },
          }),
          { subresource: 'status' },
        );
      }
    },
  };
}
