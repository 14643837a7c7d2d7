// metrics-server's API group as the aggregator sees it (sigs.k8s.io/metrics-server pkg/api
// install.go and its APIService manifest): metrics.k8s.io/v1beta1 with `nodes` (NodeMetrics,
// cluster-scoped) and `pods` (PodMetrics, namespaced), get and list only, at the APIService
// priorities metrics-server registers (group 100, version 100). Served in-process, it extends the
// discovery and routing table the way CRD groups do, never the built-in (GA) table.
import type { GroupInfo, ResourceInfo } from '../../api/resources/types.js';
import type { ResourceTable } from '../discovery/table.js';
import { METRICS_GROUP } from './render.js';

export { METRICS_GROUP };
export const METRICS_VERSION = 'v1beta1';

const GET_LIST = Object.freeze(['get', 'list'] as const);

function metricsResource(resource: string, singularName: string, kind: string, namespaced: boolean) {
  return Object.freeze({
    group: METRICS_GROUP,
    version: METRICS_VERSION,
    resource,
    singularName,
    kind,
    namespaced,
    verbs: GET_LIST,
    shortNames: [],
    categories: [],
    subresources: [],
  } satisfies ResourceInfo);
}

export const NODE_METRICS_RESOURCE = metricsResource('nodes', 'node', 'NodeMetrics', false);
export const POD_METRICS_RESOURCE = metricsResource('pods', 'pod', 'PodMetrics', true);

const METRICS_GROUP_INFO: GroupInfo = Object.freeze({
  name: METRICS_GROUP,
  versions: [METRICS_VERSION],
  priorities: { [METRICS_VERSION]: { group: 100, version: 100 } },
});

const extended = new WeakMap<ResourceTable, ResourceTable>();

/**
 * `base` (built-ins and CRD groups) with metrics.k8s.io added, one object per base table so that
 * the discovery and OpenAPI caches keyed by table stay valid. A CRD that claims the group first
 * keeps it.
 */
export function withResourceMetrics(base: ResourceTable): ResourceTable {
  const cached = extended.get(base);
  if (cached) return cached;
  const claimed = base.groups.some((group) => group.name === METRICS_GROUP);
  const table: ResourceTable = claimed
    ? base
    : {
        ...base,
        groups: [...base.groups, METRICS_GROUP_INFO],
        resources: [...base.resources, NODE_METRICS_RESOURCE, POD_METRICS_RESOURCE],
      };
  extended.set(base, table);
  return table;
}
