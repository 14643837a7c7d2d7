// The pod CIDRs of the cluster network, handed out one subnet per node: a bitmap over the
// subnets, searched round-robin from the last allocation as the range allocator's cidrset does.
import {
  formatIpv4Cidr,
  type Ipv4Cidr,
  ipv4CidrContains,
  ipv4Subnet,
  parseIpv4Cidr,
} from '../../api/ipv4.js';

export class CidrSet {
  private readonly used: Uint8Array;
  private next = 0;
  private readonly cluster: Ipv4Cidr;

  constructor(
    clusterCidr: string,
    private readonly subnetPrefixLength: number,
  ) {
    const parsed = parseIpv4Cidr(clusterCidr);
    if (!parsed) throw new Error(`invalid cluster CIDR ${JSON.stringify(clusterCidr)}`);
    if (subnetPrefixLength < parsed.prefixLength || subnetPrefixLength > 32) {
      throw new Error(`node CIDR mask size ${subnetPrefixLength} does not fit in ${clusterCidr}`);
    }
    this.cluster = parsed;
    this.used = new Uint8Array(2 ** (subnetPrefixLength - parsed.prefixLength));
  }

  get size(): number {
    return this.used.length;
  }

  /** The next free subnet, or undefined when all are taken. */
  allocate(): string | undefined {
    for (let step = 0; step < this.used.length; step++) {
      const index = (this.next + step) % this.used.length;
      if (this.used[index]) continue;
      this.used[index] = 1;
      this.next = (index + 1) % this.used.length;
      return formatIpv4Cidr(ipv4Subnet(this.cluster, this.subnetPrefixLength, index)!);
    }
    return undefined;
  }

  /** Marks a subnet a node already holds; false when it is not one of this set's subnets. */
  occupy(cidr: string): boolean {
    const index = this.indexOf(cidr);
    if (index === undefined) return false;
    this.used[index] = 1;
    return true;
  }

  release(cidr: string): void {
    const index = this.indexOf(cidr);
    if (index !== undefined) this.used[index] = 0;
  }

  private indexOf(cidr: string): number | undefined {
    const parsed = parseIpv4Cidr(cidr);
    if (
      !parsed ||
      parsed.prefixLength !== this.subnetPrefixLength ||
      !ipv4CidrContains(this.cluster, parsed)
    ) {
      return undefined;
    }
    return (parsed.base - this.cluster.base) / 2 ** (32 - this.subnetPrefixLength);
  }
}
