// The node's side of a layer-2 load balancer address (MetalLB's speaker in layer-2 mode): the
// address added to the node's network interface as a /32, so the kernel answers ARP for it, and
// an announcement that makes the host's bridge and neighbour table learn the new holder at once.
// The node image has no arping: a datagram from the address to an address nobody holds makes the
// kernel broadcast ARP requests (three, a second apart) with the new address as sender, and Linux
// updates its existing neighbour entry for a sender from any ARP packet it sees — the host then
// sends to the new holder, just as after a gratuitous ARP. (Asking for the gateway instead loses
// to the agent's own traffic to the gateway, which re-resolves it from the node's address.)
import { createSocket } from 'node:dgram';
import { formatIpv4, type Ipv4Cidr, ipv4CidrContains, parseIpv4, parseIpv4Cidr } from '../../api/ipv4.js';
import type { RunCommand } from '../network/host-commands.js';

const UNHELD_HOST = 9;

export interface NodeLink {
  /** The interface the node's address is on (`eth0`). */
  readonly device: string;
  /** The node network, e.g. 172.30.1.0/24: only addresses in it can be announced on it. */
  readonly network: Ipv4Cidr;
  /** An address of the node network that nothing holds (below the first node's), to ARP for. */
  readonly unheld: string;
}

/** The interface holding `nodeIP` and its network, from iproute2. */
export async function readNodeLink(run: RunCommand, nodeIP: string): Promise<NodeLink> {
  const addresses = await run('ip', ['-4', '-o', 'addr', 'show']);
  const line = addresses.split('\n').find((entry) => entry.includes(` inet ${nodeIP}/`));
  const match = line && /^\d+:\s+(\S+)\s+inet\s+(\S+)/.exec(line);
  const network = match ? parseIpv4Cidr(match[2]!) : undefined;
  if (!match || !network) throw new Error(`no interface holds the node address ${nodeIP}`);
  // up places nodes from the tenth address on; the ones between the gateway and them stay free.
  return { device: match[1]!.replace(/@.*$/, ''), network, unheld: formatIpv4(network.base + UNHELD_HOST) };
}

export function onLink(link: NodeLink, ip: string): boolean {
  const value = parseIpv4(ip);
  return value !== undefined && ipv4CidrContains(link.network, value);
}

export async function addAddress(run: RunCommand, link: NodeLink, ip: string): Promise<void> {
  try {
    await run('ip', ['addr', 'add', `${ip}/32`, 'dev', link.device]);
  } catch (error) {
    if (!String(error).includes('File exists')) throw error;
  }
}

export async function removeAddress(run: RunCommand, link: NodeLink, ip: string): Promise<void> {
  try {
    await run('ip', ['addr', 'del', `${ip}/32`, 'dev', link.device]);
  } catch (error) {
    if (!/Cannot assign requested address|not found/i.test(String(error))) throw error;
  }
}

/** The /32 addresses on the interface besides the node's own: what an earlier agent left. */
export async function heldAddresses(run: RunCommand, link: NodeLink): Promise<string[]> {
  const output = await run('ip', ['-4', '-o', 'addr', 'show', 'dev', link.device]);
  return [...output.matchAll(/\binet (\d+\.\d+\.\d+\.\d+)\/32\b/g)].map((match) => match[1]!);
}

/** Makes the host learn that `ip` is here now (see the file comment). */
export async function announceAddress(run: RunCommand, link: NodeLink, ip: string): Promise<void> {
  // A neighbour entry left from an earlier announcement would stop the kernel from asking again.
  await run('ip', ['neigh', 'flush', 'to', link.unheld, 'dev', link.device]).catch(() => '');
  await new Promise<void>((resolve) => {
    const socket = createSocket('udp4');
    const done = (): void => {
      socket.close();
      resolve();
    };
    socket.once('error', done);
    socket.bind({ address: ip, port: 0 }, () => {
      // The discard port: nothing answers, the ARP exchange before it is the point.
      socket.send(Buffer.alloc(1), 9, link.unheld, done);
    });
  });
}
