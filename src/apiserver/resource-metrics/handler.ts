// metrics-server's REST storage for metrics.k8s.io/v1beta1 (pkg/api/node.go, pod.go): get and
// list of `nodes` (NodeMetrics) and `pods` (PodMetrics), read from the scraped usage and the node or
// pod objects. The API installer gives a storage that is only a Getter and Lister GET routes alone:
// another method gets go-restful's 405, a watch the list handler's MethodNotSupported; there are
// no subresources.
import type { KubeObject } from '../../api/object.js';
import { parseFieldSelector } from '../../api/selectors/fields.js';
import { parseLabelSelector } from '../../api/selectors/labels.js';
import { SelectorError } from '../../api/selectors/selector-error.js';
import { includeObjectParam, loadPrinters, renderList, renderObject } from '../handlers/render.js';
import { negotiate } from '../http/negotiate.js';
import { sendJson } from '../http/respond.js';
import type { RequestContext } from '../http/types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { ResourceRequestInfo } from '../request-info.js';
import { badRequest, methodNotAllowedByRoute, methodNotSupported, pathNotFound } from '../status.js';
import { METRICS_GROUP, METRICS_VERSION, NODE_METRICS_RESOURCE, POD_METRICS_RESOURCE } from './api-group.js';
import {
  getNodeMetrics,
  getPodMetrics,
  listNodeMetrics,
  listPodMetrics,
  type MetricsSelectors,
  type NodeMetrics,
  type PodMetrics,
} from './render.js';
import type { MetricsStorage } from './storage.js';
import { NODE_METRICS_PRINTER, POD_METRICS_PRINTER } from './table.js';

export interface ResourceMetricsDeps {
  readonly storage: MetricsStorage;
  readonly nodes: () => ResourceStore;
  readonly pods: () => ResourceStore;
}

const SELECTABLE_FIELDS = new Set(['metadata.name', 'metadata.namespace']);

function selectorsOf(query: URLSearchParams): MetricsSelectors {
  try {
    const fields = parseFieldSelector(query.get('fieldSelector') ?? '');
    for (const requirement of fields.requirements()) {
      if (!SELECTABLE_FIELDS.has(requirement.field)) {
        throw badRequest(`field label not supported: ${requirement.field}`);
      }
    }
    return { labels: parseLabelSelector(query.get('labelSelector') ?? ''), fields };
  } catch (error) {
    if (error instanceof SelectorError) throw badRequest(error.message);
    throw error;
  }
}

async function objectsOf(store: ResourceStore, namespace: string): Promise<KubeObject[]> {
  const { items } = await store.list(namespace);
  return items.map((text) => JSON.parse(text) as KubeObject);
}

/** Whether the request is for metrics.k8s.io/v1beta1 (then answered here; a failure throws its Status). */
export async function serveResourceMetrics(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  deps: ResourceMetricsDeps,
): Promise<boolean> {
  if (info.group !== METRICS_GROUP || info.version !== METRICS_VERSION) return false;
  if ((info.resource !== 'nodes' && info.resource !== 'pods') || info.subresource !== '') {
    throw pathNotFound();
  }
  // Nodes are cluster-scoped: a namespaced path names no route.
  if (info.resource === 'nodes' && info.namespace !== '') throw pathNotFound();
  if (info.verb === 'watch')
    throw methodNotSupported({ group: METRICS_GROUP, resource: info.resource }, 'watch');
  if (info.verb !== 'get' && info.verb !== 'list') throw methodNotAllowedByRoute();
  const list = info.verb === 'list';
  const rendering = negotiate(ctx.headers.accept, list);
  const { storage } = deps;
  let body: NodeMetrics | PodMetrics | { items: readonly (NodeMetrics | PodMetrics)[] };
  if (info.resource === 'nodes') {
    const nodes = deps.nodes();
    body = list
      ? listNodeMetrics(storage, await objectsOf(nodes, ''), selectorsOf(ctx.query))
      : getNodeMetrics(storage, info.name, await nodes.find('', info.name));
  } else {
    const pods = deps.pods();
    body = list
      ? listPodMetrics(storage, await objectsOf(pods, info.namespace), selectorsOf(ctx.query))
      : getPodMetrics(storage, info.name, await pods.find(info.namespace, info.name));
  }
  if (rendering === 'object') {
    sendJson(ctx.res, 200, body);
    return true;
  }
  // metrics-server's Table (and the generic PartialObjectMetadata renderings).
  await loadPrinters();
  const resource = info.resource === 'nodes' ? NODE_METRICS_RESOURCE : POD_METRICS_RESOURCE;
  const printer = info.resource === 'nodes' ? NODE_METRICS_PRINTER : POD_METRICS_PRINTER;
  const includeObject = includeObjectParam(ctx.query.get('includeObject'));
  const rendered =
    'items' in body
      ? renderList(
          rendering,
          resource,
          body.items.map((item) => JSON.stringify(item)),
          { resourceVersion: '' },
          includeObject,
          printer,
        )
      : renderObject(rendering, resource, body as unknown as KubeObject, includeObject, false, printer);
  sendJson(ctx.res, 200, rendered);
  return true;
}
