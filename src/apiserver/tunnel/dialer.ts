// How the apiserver opens a TCP connection into the cluster (kube-apiserver's egress selector with
// a konnectivity "cluster" egress): a pod IP belongs to the node whose podCIDR holds it and is
// reached through that node's tunnel, since the host routes only to the nodes' own network; a
// node address is dialed directly, through the tunnel when that fails to route. Mode `always`
// (TKUBE_APISERVER_TUNNEL=always) sends everything bound for a node through its tunnel.
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { ipv4CidrContains, parseIpv4, parseIpv4Cidr } from '../../api/ipv4.js';
import type { KubeObject } from '../../api/object.js';
import type { Node } from '../../api/types/core-v1.generated.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { NodeTunnels } from './node-tunnels.js';

export type TunnelMode = 'always' | 'auto';

export const TUNNEL_MODE_ENV = 'TKUBE_APISERVER_TUNNEL';

/** The mode an environment asks for: `auto` unless set; an unknown value is refused. */
export function tunnelModeFrom(env: NodeJS.ProcessEnv): TunnelMode {
  const value = env[TUNNEL_MODE_ENV] ?? '';
  if (value === '' || value === 'auto') return 'auto';
  if (value === 'always') return 'always';
  throw new Error(`${TUNNEL_MODE_ENV}=${JSON.stringify(value)}: must be "always" or "auto"`);
}

/** Opens a connection to host:port; rejects with the socket error (code ECONNREFUSED …). */
export type Dial = (host: string, port: number) => Promise<Duplex>;

const DIRECT_TIMEOUT_MS = 30_000;
/** With a tunnel to fall back on, a direct dial that does not connect soon is given up. */
const DIRECT_TIMEOUT_WITH_TUNNEL_MS = 3_000;
/** Errors that mean the host cannot route there; a refusal means it could. */
const UNROUTED = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EADDRNOTAVAIL']);

export function dialDirect(host: string, port: number, timeoutMs = DIRECT_TIMEOUT_MS): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, allowHalfOpen: true });
    const timer = setTimeout(
      () => socket.destroy(Object.assign(new Error('i/o timeout'), { code: 'ETIMEDOUT' })),
      timeoutMs,
    );
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

interface NodeOfAddress {
  readonly node: string;
  /** In the node's pod CIDR rather than one of its own addresses. */
  readonly pod: boolean;
}

export class ApiServerDialer {
  constructor(
    private readonly tunnels: NodeTunnels,
    private readonly nodes: () => ResourceStore,
    readonly mode: TunnelMode,
  ) {}

  readonly dial: Dial = async (host, port) => {
    const owner = await this.nodeOf(host);
    const viaTunnel = () => this.tunnels.open(owner!.node, { host, port });
    const tunnel = owner !== undefined && this.tunnels.has(owner.node);
    if (owner && (this.mode === 'always' || (owner.pod && tunnel))) return viaTunnel();
    try {
      return await dialDirect(host, port, tunnel ? DIRECT_TIMEOUT_WITH_TUNNEL_MS : DIRECT_TIMEOUT_MS);
    } catch (error) {
      if (tunnel && UNROUTED.has((error as NodeJS.ErrnoException).code ?? '')) return viaTunnel();
      throw error;
    }
  };

  /**
   * Whether this host routes to the nodes' own addresses: a node's kubelet port answers or
   * refuses (false where only the tunnels reach the nodes, as on Docker Desktop); undefined
   * while no node with a tunnel has an address to try.
   */
  async hostReachesNodes(): Promise<boolean | undefined> {
    for (const node of await this.listNodes()) {
      const address = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
      // Only a node with an agent's tunnel says anything (simulated nodes have made-up addresses).
      if (!address || !this.tunnels.has(node.metadata?.name ?? '')) continue;
      try {
        (
          await dialDirect(
            address,
            node.status?.daemonEndpoints?.kubeletEndpoint?.Port || 10250,
            DIRECT_TIMEOUT_WITH_TUNNEL_MS,
          )
        ).destroy();
        return true;
      } catch (error) {
        return !UNROUTED.has((error as NodeJS.ErrnoException).code ?? '');
      }
    }
    return undefined;
  }

  /** A connection opened from inside the nodes' network: through the first node tunnel that opens it. */
  readonly dialFromNodes: Dial = async (host, port) => {
    let failure: unknown = new Error('no node tunnel is connected');
    const names = (await this.listNodes()).map((node) => node.metadata?.name ?? '').sort();
    for (const name of names) {
      if (!this.tunnels.has(name)) continue;
      try {
        return await this.tunnels.open(name, { host, port });
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  };

  private async listNodes(): Promise<Node[]> {
    const { items } = await this.nodes().list('');
    return items.map((text) => JSON.parse(text) as KubeObject as Node);
  }

  /** The node an address belongs to: one of its addresses, or in its pod CIDR(s). */
  private async nodeOf(host: string): Promise<NodeOfAddress | undefined> {
    const ip = parseIpv4(host);
    let podOwner: NodeOfAddress | undefined;
    for (const node of await this.listNodes()) {
      const name = node.metadata?.name ?? '';
      if (node.status?.addresses?.some((address) => address.address === host))
        return { node: name, pod: false };
      if (ip === undefined || podOwner) continue;
      const cidrs = node.spec?.podCIDRs ?? (node.spec?.podCIDR ? [node.spec.podCIDR] : []);
      for (const text of cidrs) {
        const cidr = parseIpv4Cidr(text);
        if (cidr && ipv4CidrContains(cidr, ip)) podOwner = { node: name, pod: true };
      }
    }
    return podOwner;
  }
}
