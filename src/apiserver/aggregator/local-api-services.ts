// kube-aggregator's autoregister controller as kube-apiserver feeds it: one Local APIService
// (no service) per group/version the server itself serves, with the priorities upstream gives
// them: the built-in ones made at start-up (`automanaged: onstart`), the ones of CRD groups kept
// in step with the CRDs (`automanaged: true`, removed when no CRD serves the version any more).
import type { KubeObject } from '../../api/object.js';
import type { APIService } from '../../api/types/apiregistration-v1.generated.js';
import type { ResourceTable } from '../discovery/table.js';
import { servedVersions } from '../discovery/table.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { StatusError } from '../status.js';

export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

/** The priorities kube-apiserver gives the groups it serves without listing them in its table. */
const OWN_PRIORITIES: Readonly<Record<string, { group: number; version: number }>> = {
  'v1.': { group: 18000, version: 1 },
  'v1.apiregistration.k8s.io': { group: 18000, version: 15 },
};

/** The Local APIServices the table asks for, by name. */
export function desiredLocalApiServices(table: ResourceTable): Map<string, APIService> {
  const desired = new Map<string, APIService>();
  const crdGroups = table.customResourceGroups ?? new Set<string>();
  for (const group of table.groups) {
    for (const version of servedVersions(table, group)) {
      const name = `${version}.${group.name}`;
      const priority = group.priorities?.[version] ?? OWN_PRIORITIES[name];
      if (!priority) continue;
      desired.set(name, {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: {
          name,
          labels: { [AUTOMANAGED_LABEL]: crdGroups.has(group.name) ? 'true' : 'onstart' },
        },
        spec: {
          group: group.name,
          version,
          groupPriorityMinimum: priority.group,
          versionPriority: priority.version,
        },
      });
    }
  }
  return desired;
}

function sameSpec(a: APIService, b: APIService): boolean {
  return JSON.stringify(a.spec) === JSON.stringify(b.spec);
}

/**
 * Creates the desired APIServices that are missing and corrects the ones automanaged here; a
 * CRD group's APIService (`automanaged: true`) no longer desired is deleted. Existing APIServices
 * nobody manages are left alone, as upstream leaves them, and so is one pointed at a service: an
 * aggregated server taking the group over, as installing metrics-server takes metrics.k8s.io from
 * the built-in one (upstream's kube-apiserver never registers that group, so nothing fights it).
 */
export async function reconcileLocalApiServices(
  apiServices: ResourceStore,
  desired: Map<string, APIService>,
  existing: readonly APIService[],
): Promise<void> {
  const byName = new Map(existing.map((item) => [item.metadata?.name ?? '', item]));
  for (const [name, want] of desired) {
    const have = byName.get(name);
    try {
      if (!have) {
        await apiServices.create('', want as KubeObject);
      } else if (have.metadata?.labels?.[AUTOMANAGED_LABEL] && !have.spec?.service && !sameSpec(have, want)) {
        await apiServices.guaranteedUpdate('', name, (current) => ({ ...current, spec: want.spec }));
      }
    } catch (error) {
      // Another writer got there first: the next change brings the two together.
      if (!(error instanceof StatusError && (error.code === 409 || error.code === 404))) throw error;
    }
  }
  for (const [name, have] of byName) {
    if (desired.has(name) || have.metadata?.labels?.[AUTOMANAGED_LABEL] !== 'true') continue;
    try {
      await apiServices.delete('', name);
    } catch (error) {
      if (!(error instanceof StatusError && error.code === 404)) throw error;
    }
  }
}
