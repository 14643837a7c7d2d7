// tkube's load-balancer address pool (what a cloud provider's EnsureLoadBalancer does for the
// service controller, done MetalLB's layer-2 way): a range of the cluster's Docker network, from
// which each LoadBalancer service gets one address, its requested `spec.loadBalancerIP` when that
// is free and in range.
import { formatIpv4, parseIpv4 } from '../../api/ipv4.js';

export interface AddressRange {
  readonly first: number;
  readonly last: number;
}

/** `172.30.1.224-172.30.1.254`; undefined when malformed or empty. */
export function parseAddressRange(text: string): AddressRange | undefined {
  const [from, to, ...rest] = text.split('-');
  if (from === undefined || to === undefined || rest.length > 0) return undefined;
  const first = parseIpv4(from.trim());
  const last = parseIpv4(to.trim());
  if (first === undefined || last === undefined || last < first) return undefined;
  return { first, last };
}

export function formatAddressRange(range: AddressRange): string {
  return `${formatIpv4(range.first)}-${formatIpv4(range.last)}`;
}

export function rangeContains(range: AddressRange, ip: string): boolean {
  const value = parseIpv4(ip);
  return value !== undefined && value >= range.first && value <= range.last;
}

export type AddressChoice = { readonly ip: string } | { readonly error: string };

/**
 * The address a service should hold: the requested one (or an error saying why it cannot have
 * it), else the one it holds already, else the lowest free one. `inUse` holds every address
 * other services hold.
 */
export function chooseAddress(
  range: AddressRange,
  inUse: ReadonlySet<string>,
  current: string | undefined,
  requested: string | undefined,
): AddressChoice {
  if (requested) {
    if (!rangeContains(range, requested)) {
      return {
        error: `requested IP ${requested} is not in the load balancer address range ${formatAddressRange(range)}`,
      };
    }
    const normalized = formatIpv4(parseIpv4(requested)!);
    if (inUse.has(normalized)) return { error: `requested IP ${normalized} is already allocated` };
    return { ip: normalized };
  }
  if (current && rangeContains(range, current) && !inUse.has(current)) return { ip: current };
  for (let value = range.first; value <= range.last; value++) {
    const ip = formatIpv4(value);
    if (!inUse.has(ip)) return { ip };
  }
  return { error: `no free address in the load balancer address range ${formatAddressRange(range)}` };
}
