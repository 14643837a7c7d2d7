// nodes/{name}/proxy/{path}: kube-apiserver forwards the request to the node, by default to its
// kubelet (`kubectl get --raw /api/v1/nodes/<node>/proxy/metrics`; node-proxy-location.ts decides
// where), through the upgrade-aware proxy (proxy-forward.ts).
import { badRequest } from '../status.js';
import type { KubeletClientCredentials, KubeletRequest } from './kubelet-connection.js';
import { nodeProxyLocation } from './node-proxy-location.js';
import { forwardProxyRequest, type ProxyHandler } from './proxy-forward.js';

export interface NodeProxyDeps {
  readonly credentials: () => Promise<KubeletClientCredentials>;
  /** How the node is reached (directly or through its tunnel). */
  readonly dial?: KubeletRequest['dial'];
}

export function nodeProxyHandler(deps: NodeProxyDeps): ProxyHandler {
  return async (ctx, nodes, request) => {
    if (ctx.query.has('dryRun')) throw badRequest('dryRun is not supported');
    const location = await nodeProxyLocation(nodes, request.name);
    const credentials = location.kubelet ? await deps.credentials() : undefined;
    await forwardProxyRequest(ctx, request, { origin: location.origin, credentials, dial: deps.dial });
  };
}
