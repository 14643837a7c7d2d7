// The part of kube-apiserver's pods/exec, pods/attach and pods/portforward (ExecREST, AttachREST,
// PortForwardREST with the upgrade-aware handler's UpgradeRequired) that answers a request which
// is not an upgrade: these subresources stream or refuse, and never serve the Pod itself.
import type { RequestContext } from '../http/types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { badRequest } from '../status.js';

/** The pod subresources that exist only as upgraded streams. */
export const POD_CONNECT_SUBRESOURCES: ReadonlySet<string> = new Set(['exec', 'attach', 'portforward']);

/** httpstream.IsUpgradeRequest: a Connection header naming Upgrade. */
export function isUpgradeRequest(ctx: RequestContext): boolean {
  return String(ctx.headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .some((token) => token.trim() === 'upgrade');
}

/**
 * Looks the pod up (404 when it is absent, as upstream's location lookup does) and refuses a
 * request that does not ask to upgrade with upstream's 400 "Upgrade request required".
 */
export async function refuseUnupgradedConnect(
  ctx: RequestContext,
  pods: ResourceStore,
  namespace: string,
  name: string,
): Promise<void> {
  await pods.get(namespace, name);
  if (!isUpgradeRequest(ctx)) throw badRequest('Upgrade request required');
  throw badRequest('streaming connections to pods are not supported by this server');
}
