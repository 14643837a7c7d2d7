// Which LoadBalancer services tkube's own load balancer serves (upstream's wantsLoadBalancer):
// those without a `loadBalancerClass`, or with tkube's. Shared by the control plane's service
// controller, which assigns their addresses, and the agents, which announce them.
import type { Service } from './types/core-v1.generated.js';

/** The `loadBalancerClass` that names tkube's own load balancer, besides none at all. */
export const TKUBE_LOAD_BALANCER_CLASS = 'tkube.dev/layer2';

export function wantsLoadBalancer(service: Service): boolean {
  const loadBalancerClass = service.spec?.loadBalancerClass;
  return (
    service.spec?.type === 'LoadBalancer' &&
    (loadBalancerClass === undefined || loadBalancerClass === TKUBE_LOAD_BALANCER_CLASS)
  );
}
