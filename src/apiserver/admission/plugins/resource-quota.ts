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
  // One admission at a time per namespace: check and charge must not interleave, or concurrent
  // writes would each see the same usage and together pass the limit. (kube-apiserver batches a
  // namespace's waiting requests into one check for the same reason.)
  const turns = new Map<string, Promise<void>>();
  const inTurn = async (namespace: string, task: () => Promise<void>): Promise<void> => {
    const previous = turns.get(namespace) ?? Promise.resolve();
    const mine = previous.then(task);
    const settled = mine.catch(() => undefined);
    turns.set(namespace, settled);
    try {
      await mine;
    } finally {
      if (turns.get(namespace) === settled) turns.delete(namespace);
    }
  };
  return {
    name: 'ResourceQuota',
    validate(attributes: AdmissionAttributes) {
      if (attributes.namespace === '' || attributes.operation === 'DELETE') return;
      if (attributes.resource.resource === 'resourcequotas') {
        withQuotas.add(attributes.namespace);
        return;
      }
      if (!withQuotas.has(attributes.namespace)) return;
      return inTurn(attributes.namespace, () => admit(quotas, attributes));
    },
  };
}

async function admit(quotas: ResourceStore, attributes: AdmissionAttributes): Promise<void> {
  // Deletes never reach here (they free usage; the quota controller accounts for them).
  const operation = attributes.operation === 'UPDATE' ? 'UPDATE' : 'CREATE';
  const check = (items: readonly ResourceQuota[]) =>
    checkQuotas(
      items,
      { group: attributes.resource.group, resource: attributes.resource.resource },
      attributes.object,
      attributes.oldObject,
      { operation, subresource: attributes.subresource },
    );
  const refuse = (message: string) => forbidden(attributes.resource, displayName(attributes.object), message);
  const { items } = await quotas.list(attributes.namespace);
  if (items.length === 0) return;
  const result = check(items.map((text) => JSON.parse(text) as ResourceQuota));
  if (!result.ok) throw refuse(result.message);
  if (attributes.dryRun) return;
  for (const update of result.updates) {
    await quotas.guaranteedUpdate(
      attributes.namespace,
      update.quotaName,
      (quota: KubeObject) => {
        // Checked again against the quota as it is now: the quota controller may have
        // recalculated its usage since the list.
        const fresh = check([quota as ResourceQuota]);
        if (!fresh.ok) throw refuse(fresh.message);
        const used = fresh.updates[0]?.newUsed ?? update.newUsed;
        return { ...quota, status: { ...(quota.status as object), used } };
      },
      { subresource: 'status' },
    );
  }
}
