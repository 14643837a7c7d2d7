// pods/{name}/proxy/{path}: as kube-apiserver's pod ResourceLocation, the name may carry a port and
// a scheme (`web:8080`, `https:web:8443`); without a port, the first declared container port.
// The pod's first IP must be a global unicast address. The request then goes through the
// upgrade-aware proxy (proxy-forward.ts), dialed through the pod's node's tunnel where needed.
import type { KubeObject } from '../../api/object.js';
import { goQuote } from '../../api/selectors/go-text.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { isGlobalUnicastIp, parseIpSloppy } from '../registry/validation/ip.js';
import { badRequest } from '../status.js';
import type { KubeletRequest } from './kubelet-connection.js';
import { splitSchemeNamePort } from './node-proxy-location.js';
import { forwardProxyRequest, type ProxyHandler } from './proxy-forward.js';

/** How the pod and service proxies reach pods (through their node's tunnel where needed). */
export interface PodDialDeps {
  readonly dial?: KubeletRequest['dial'];
}

/** `scheme://host[:port]` the way upstream builds the URL (IPv6 hosts bracketed). */
export function proxyOrigin(scheme: string, ip: string, port: string): string {
  const host = ip.includes(':') ? `[${ip}]` : ip;
  return `${scheme || 'http'}://${host}${port ? `:${port}` : ''}`;
}

/** The pod's address as upstream's getPodIP reads it: the first of status.podIPs, else podIP. */
export function podIP(pod: Pod): string {
  return pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP ?? '';
}

/** The origin pods/{id}/proxy forwards to; throws the Status upstream answers when there is none. */
export async function podProxyLocation(pods: ResourceStore, namespace: string, id: string): Promise<string> {
  const target = splitSchemeNamePort(id);
  if (!target) throw badRequest(`invalid pod request ${goQuote(id)}`);
  const pod = (await pods.get(namespace, target.name)) as KubeObject as Pod;
  let port = target.port;
  if (port === '') {
    const declared = pod.spec?.containers?.find((container) => (container.ports?.length ?? 0) > 0);
    if (declared) port = String(declared.ports![0]!.containerPort);
  }
  const ip = podIP(pod);
  const parsed = parseIpSloppy(ip);
  if (parsed === undefined || !isGlobalUnicastIp(parsed)) throw badRequest('address not allowed');
  return proxyOrigin(target.scheme, ip, port);
}

export function podProxyHandler(deps: PodDialDeps): ProxyHandler {
  return async (ctx, pods, request) => {
    if (ctx.query.has('dryRun')) throw badRequest('dryRun is not supported');
    const origin = await podProxyLocation(pods, request.namespace, request.name);
    await forwardProxyRequest(ctx, request, { origin, dial: deps.dial });
  };
}
