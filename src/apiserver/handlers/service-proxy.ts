// services/{name}/proxy/{path}: as kube-apiserver's service ResourceLocation, the name may carry a
// port (by number, turned into the declared port's name, or by name) and a scheme; the backend is
// a ready address of the service's Endpoints serving that port, picked at random, whose target
// pod still has that IP. Then the upgrade-aware proxy (proxy-forward.ts), dialed through the
// pod's node's tunnel where needed.
import type { KubeObject } from '../../api/object.js';
import { goQuote } from '../../api/selectors/go-text.js';
import type { EndpointAddress, Endpoints, Pod, Service } from '../../api/types/core-v1.generated.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { badRequest, StatusError } from '../status.js';
import { splitSchemeNamePort } from './node-proxy-location.js';
import { type PodDialDeps, proxyOrigin } from './pod-proxy.js';
import { forwardProxyRequest, type ProxyHandler } from './proxy-forward.js';

export interface ServiceStores {
  readonly services: ResourceStore;
  readonly endpoints: ResourceStore;
  readonly pods: ResourceStore;
}

function serviceUnavailable(message: string): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message);
}

/** Upstream's isValidAddress: the address names a pod of this namespace that has this IP. */
async function isValidAddress(
  address: EndpointAddress,
  namespace: string,
  pods: ResourceStore,
): Promise<boolean> {
  const ref = address.targetRef;
  if (!ref || ref.namespace !== namespace || !ref.name) return false;
  const pod = (await pods.find(namespace, ref.name)) as KubeObject as Pod | undefined;
  return pod?.status?.podIPs?.some((podIP) => podIP.ip === address.ip) ?? false;
}

/** The origin services/{id}/proxy forwards to; throws the Status upstream answers when there is none. */
export async function serviceProxyLocation(
  stores: ServiceStores,
  namespace: string,
  id: string,
): Promise<string> {
  const target = splitSchemeNamePort(id);
  if (!target) throw badRequest(`invalid service request ${goQuote(id)}`);
  let portName = target.port;
  if (/^[+-]?\d+$/.test(portName)) {
    const number = Number(portName);
    const service = (await stores.services.get(namespace, target.name)) as KubeObject as Service;
    const declared = service.spec?.ports?.find((port) => port.port === number);
    if (!declared) {
      throw serviceUnavailable(`no service port ${number} found for service ${goQuote(target.name)}`);
    }
    portName = declared.name ?? '';
  }
  const endpoints = (await stores.endpoints.get(namespace, target.name)) as KubeObject as Endpoints;
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) {
    throw serviceUnavailable(`no endpoints available for service ${goQuote(target.name)}`);
  }
  const subsetSeed = Math.floor(Math.random() * subsets.length);
  for (let s = 0; s < subsets.length; s++) {
    const subset = subsets[(subsetSeed + s) % subsets.length]!;
    const addresses = subset.addresses ?? [];
    if (addresses.length === 0) continue;
    for (const port of subset.ports ?? []) {
      if ((port.name ?? '') !== portName) continue;
      const addressSeed = Math.floor(Math.random() * addresses.length);
      for (let a = 0; a < addresses.length; a++) {
        const address = addresses[(addressSeed + a) % addresses.length]!;
        if (!(await isValidAddress(address, namespace, stores.pods))) continue;
        return proxyOrigin(target.scheme, address.ip, String(port.port));
      }
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${goQuote(id)}`);
}

export function serviceProxyHandler(deps: PodDialDeps & { stores: () => ServiceStores }): ProxyHandler {
  return async (ctx, _services, request) => {
    if (ctx.query.has('dryRun')) throw badRequest('dryRun is not supported');
    const origin = await serviceProxyLocation(deps.stores(), request.namespace, request.name);
    await forwardProxyRequest(ctx, request, { origin, dial: deps.dial });
  };
}
