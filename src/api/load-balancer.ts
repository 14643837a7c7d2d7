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

/** Whether host:port is a TCP port of the service's LoadBalancer address (what a host port may forward to). */
export function isLoadBalancerTarget(service: Service, host: string, port: number): boolean {
  return (
    service.spec?.type === 'LoadBalancer' &&
    service.status?.loadBalancer?.ingress?.some((ingress) => ingress.ip === host) === true &&
    service.spec.ports?.some((p) => p.port === port && (p.protocol ?? 'TCP') === 'TCP') === true
  );
}
