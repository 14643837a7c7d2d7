// The node's service proxy (kube-proxy's iptables mode) as the agent starts it: its own
// `system:kube-proxy` client and informers over the services and endpoint slices it handles.
import type { Service } from '../../api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import { SharedInformerFactory } from '../../client/informers/index.js';
import { ENDPOINT_SLICES, SERVICES } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import { Proxier } from './proxier.js';
import { PROXY_LABEL_SELECTOR } from './service-ports.js';

export { ProxyMetrics } from './metrics.js';
export { Proxier } from './proxier.js';

export interface NodeProxyOptions {
  /** Authenticated as system:kube-proxy (bound to system:node-proxier). */
  readonly client: Client;
  readonly nodeName: string;
  /** The whole pod network. */
  readonly clusterCIDR: string;
}

/** The proxier and the informers feeding it; `run` ends when the signal aborts. */
export function nodeProxy(options: NodeProxyOptions): {
  proxier: Proxier;
  run(signal: AbortSignal): Promise<void>;
} {
  const informers = new SharedInformerFactory(options.client);
  // As kube-proxy: services another proxy handles, and headless ones, are not even listed.
  const selected = { labelSelector: PROXY_LABEL_SELECTOR };
  const proxier = new Proxier({
    nodeName: options.nodeName,
    clusterCIDR: options.clusterCIDR,
    services: informers.informerFor<Service>(SERVICES, selected),
    endpointSlices: informers.informerFor<EndpointSlice>(ENDPOINT_SLICES, selected),
  });
  return {
    proxier,
    async run(signal) {
      informers.start(signal);
      await proxier.run(signal);
      await informers.stop();
    },
  };
}
