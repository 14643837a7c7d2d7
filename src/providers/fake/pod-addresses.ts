// Pod IPs of one fake node, handed out from its pod CIDR as the bridge CNI's host-local IPAM
// does: the network address, the bridge's gateway (.1) and the broadcast address are never
// given out; addresses go round-robin, so a released one is not reused at once.
import { formatIpv4, parseIpv4Cidr } from '../../api/ipv4.js';
import { CidrSet } from '../../controllers/node-ipam/cidr-set.js';

/** Addresses of a CIDR no pod gets: network, gateway, broadcast. */
const RESERVED_ADDRESSES = 3;

export class PodAddresses {
  /** One /32 per address of the node's CIDR. */
  private readonly free: CidrSet;
  private readonly byPod = new Map<string, string>();
  private readonly held = new Set<string>();
  private readonly reserved: ReadonlySet<string>;

  constructor(readonly podCidr: string) {
    const cidr = parseIpv4Cidr(podCidr);
    if (!cidr || cidr.prefixLength > 30) throw new Error(`pod CIDR ${podCidr} has no room for pods`);
    this.free = new CidrSet(podCidr, 32);
    const broadcast = cidr.base + 2 ** (32 - cidr.prefixLength) - 1;
    this.reserved = new Set([cidr.base, cidr.base + 1, broadcast].map(formatIpv4));
    for (const address of this.reserved) this.free.occupy(`${address}/32`);
  }

  /** How many pods can have an address at once. */
  get capacity(): number {
    return this.free.size - RESERVED_ADDRESSES;
  }

  /** The pod's address: the one it holds, else the next free one (undefined when none is left). */
  allocate(podUid: string): string | undefined {
    const held = this.byPod.get(podUid);
    if (held) return held;
    const cidr = this.free.allocate();
    if (!cidr) return undefined;
    const address = cidr.slice(0, cidr.indexOf('/'));
    this.byPod.set(podUid, address);
    this.held.add(address);
    return address;
  }

  /**
   * Records an address a pod already reports (after a restart of the control plane). False when
   * it is outside the CIDR, reserved, or held by another pod.
   */
  claim(podUid: string, address: string): boolean {
    const mine = this.byPod.get(podUid);
    if (mine) return mine === address;
    if (this.held.has(address) || this.reserved.has(address)) return false;
    if (!this.free.occupy(`${address}/32`)) return false;
    this.byPod.set(podUid, address);
    this.held.add(address);
    return true;
  }

  release(podUid: string): void {
    const address = this.byPod.get(podUid);
    if (address === undefined) return;
    this.byPod.delete(podUid);
    this.held.delete(address);
    this.free.release(`${address}/32`);
  }
}
