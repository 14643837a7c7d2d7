// Where LoadBalancer services' addresses come from (MetalLB's layer-2 address pool): the top of
// the cluster's /24 node network, above every node address (.10 up to .209) and the gateway.
import { formatIpv4, parseIpv4Cidr } from '../../api/ipv4.js';

const FIRST_HOST = 224;
const LAST_HOST = 254;

/** `172.30.1.0/24` → `172.30.1.224-172.30.1.254`. */
export function loadBalancerRange(nodeSubnet: string): string {
  const cidr = parseIpv4Cidr(nodeSubnet);
  if (!cidr) throw new Error(`invalid node network ${JSON.stringify(nodeSubnet)}`);
  return `${formatIpv4(cidr.base + FIRST_HOST)}-${formatIpv4(cidr.base + LAST_HOST)}`;
}
