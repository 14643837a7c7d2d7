// IPv4 addresses and CIDRs as 32-bit numbers: what the service allocator, node IPAM, node
// networks and pod routes compute with.

export interface Ipv4Cidr {
  /** The network address (host bits cleared). */
  readonly base: number;
  readonly prefixLength: number;
}

/** `10.244.1.7` → its 32-bit value; undefined unless four decimal octets 0–255. */
export function parseIpv4(text: string): number | undefined {
  const octets = text.split('.');
  if (octets.length !== 4) return undefined;
  let value = 0;
  for (const octet of octets) {
    if (!/^\d{1,3}$/.test(octet) || Number(octet) > 255) return undefined;
    value = value * 256 + Number(octet);
  }
  return value;
}

export function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

export function prefixMask(prefixLength: number): number {
  return prefixLength === 0 ? 0 : (~0 << (32 - prefixLength)) >>> 0;
}

/** `10.244.0.0/16` → base and prefix length; host bits are cleared. */
export function parseIpv4Cidr(text: string): Ipv4Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = parseIpv4(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (address === undefined || !/^\d{1,2}$/.test(bits) || Number(bits) > 32) return undefined;
  const prefixLength = Number(bits);
  return { base: (address & prefixMask(prefixLength)) >>> 0, prefixLength };
}

export function formatIpv4Cidr(cidr: Ipv4Cidr): string {
  return `${formatIpv4(cidr.base)}/${cidr.prefixLength}`;
}

/** Whether `inner` (an address or a CIDR) lies inside `outer`. */
export function ipv4CidrContains(outer: Ipv4Cidr, inner: Ipv4Cidr | number): boolean {
  const innerCidr = typeof inner === 'number' ? { base: inner, prefixLength: 32 } : inner;
  if (innerCidr.prefixLength < outer.prefixLength) return false;
  return (innerCidr.base & prefixMask(outer.prefixLength)) >>> 0 === outer.base;
}

/** The `index`-th subnet of `prefixLength` bits inside `cidr` (10.244.0.0/16, 24, 3 → 10.244.3.0/24). */
export function ipv4Subnet(cidr: Ipv4Cidr, prefixLength: number, index: number): Ipv4Cidr | undefined {
  if (prefixLength < cidr.prefixLength || prefixLength > 32) return undefined;
  const count = 2 ** (prefixLength - cidr.prefixLength);
  if (!Number.isInteger(index) || index < 0 || index >= count) return undefined;
  return { base: (cidr.base + index * 2 ** (32 - prefixLength)) >>> 0, prefixLength };
}
