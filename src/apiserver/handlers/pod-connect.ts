// pods/exec, pods/attach and pods/portforward: what kube-apiserver's ExecREST, AttachREST and
// PortForwardREST check before they proxy to the kubelet (pkg/registry/core/pod/strategy.go,
// streamLocation and PortForwardLocation): the pod, the container, its node and that node's
// kubelet address; then upstream's upgrade-aware handler refuses a request that is no upgrade
// ("Upgrade request required"), so a plain GET never answers with the Pod. Streaming itself is
// not built yet: an upgrade request is refused with a Status that says so.
import type { IncomingHttpHeaders } from 'node:http';
import type { KubeObject } from '../../api/object.js';
import type { Node, Pod } from '../../api/types/core-v1.generated.js';
import type { RequestContext } from '../http/types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { badRequest } from '../status.js';
import { kubeletAddress } from './kubelet-connection.js';

/** The subresources that connect to a stream in a container. */
export const POD_CONNECT_SUBRESOURCES = ['attach', 'exec', 'portforward'] as const;
export type PodConnectSubresource = (typeof POD_CONNECT_SUBRESOURCES)[number];

export function isPodConnectSubresource(name: string): name is PodConnectSubresource {
  return (POD_CONNECT_SUBRESOURCES as readonly string[]).includes(name);
}

export interface PodConnectDeps {
  readonly nodes: () => ResourceStore;
}

export type PodConnectHandler = (
  ctx: RequestContext,
  pods: ResourceStore,
  namespace: string,
  name: string,
  subresource: PodConnectSubresource,
) => Promise<void>;

/** streamLocation's container: the one named (any kind of container), or the only app container. */
export function streamContainerName(pod: Pod, requested: string): string {
  const name = pod.metadata?.name ?? '';
  const spec = pod.spec;
  const containers = spec?.containers ?? [];
  if (requested === '') {
    if (containers.length === 1) return containers[0]!.name;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    const init = (spec?.initContainers ?? []).map((c) => c.name);
    let message = `a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    throw badRequest(message);
  }
  const known = [...(spec?.initContainers ?? []), ...containers, ...(spec?.ephemeralContainers ?? [])];
  if (!known.some((c) => c.name === requested))
    throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/** httpstream.IsUpgradeRequest: a Connection header naming Upgrade. */
function isUpgradeRequest(headers: IncomingHttpHeaders): boolean {
  return String(headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .some((token) => token.trim() === 'upgrade');
}

export function podConnectHandler(deps: PodConnectDeps): PodConnectHandler {
  return async (ctx, pods, namespace, name, subresource) => {
    const pod = (await pods.get(namespace, name)) as KubeObject as Pod;
    // Port forwarding reaches the pod's network, not one container.
    if (subresource !== 'portforward') streamContainerName(pod, ctx.query.get('container') ?? '');
    const nodeName = pod.spec?.nodeName ?? '';
    if (nodeName === '') throw badRequest(`pod ${name} does not have a host assigned`);
    kubeletAddress((await deps.nodes().get('', nodeName)) as KubeObject as Node);
    if (!isUpgradeRequest(ctx.headers)) throw badRequest('Upgrade request required');
    throw badRequest(`upgrade requests to pods/${subresource} (streaming) are not supported yet`);
  };
}
