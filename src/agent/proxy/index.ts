// The node's service proxy (kube-proxy's iptables mode) as the agent starts it: its own
// `system:kube-proxy` client, informers over the services and endpoint slices it handles (and its
// own Node), and kube-proxy's /healthz on port 10256.
import type { Node, Service } from '../../api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import { SharedInformerFactory } from '../../client/informers/index.js';
import { ENDPOINT_SLICES, NODES, SERVICES } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import { Proxier } from './proxier.js';
import { startProxierHealthServer } from './proxier-health.js';
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
  // The node's own object: its zone label for zone hints, and whether it is being deleted (the
  // healthz's nodeEligible).
  const nodes = informers.informerFor<Node>(NODES, { fieldSelector: `metadata.name=${options.nodeName}` });
  const proxier = new Proxier({
    nodeName: options.nodeName,
    clusterCIDR: options.clusterCIDR,
    services: informers.informerFor<Service>(SERVICES, selected),
    endpointSlices: informers.informerFor<EndpointSlice>(ENDPOINT_SLICES, selected),
    node: nodes,
  });
  const nodeEligible = () => {
    const node = nodes.lister.list()[0];
    return !node?.metadata?.deletionTimestamp;
  };
  return {
    proxier,
    async run(signal) {
      informers.start(signal);
      const healthz = startProxierHealthServer({
        healthy: () => proxier.healthy(),
        lastUpdated: () => proxier.lastUpdated(),
        nodeEligible,
      });
      try {
        await proxier.run(signal);
      } finally {
        healthz.close();
        await informers.stop();
      }
    },
  };
}
