import { formatIpv4, parseIpv4 } from '../../../api/ipv4.js';
import type { KubeObject } from '../../../api/object.js';
import { type FieldError, fieldInvalid } from '../../../api/selectors/field-errors.js';
import type { Store } from '../../../storage/index.js';
import { invalid } from '../../status.js';
import type { Strategy } from '../strategy.js';

/** The service network: 10.96.0.0/16; 10.96.0.1 is the `kubernetes` service. */
export const SERVICE_CIDR_BASE = parseIpv4('10.96.0.0')!;
export const SERVICE_CIDR_SIZE = 1 << 16;
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
export const NODE_PORT_RANGE = { first: 30000, last: 32767 } as const;

interface ServicePort {
  port?: number;
  nodePort?: number;
  protocol?: string;
}

interface ServiceShape {
  spec?: {
    type?: string;
    clusterIP?: string;
    clusterIPs?: string[];
    ports?: ServicePort[];
  };
}

/**
 * Hands out ClusterIPs and NodePorts. The store is the source of truth: each allocation
 * reads the services that exist, plus what was handed out moments ago and not yet stored.
 * Allocations run one at a time.
 */
export class ServiceAllocator {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly recentIps = new Map<string, number>();
  private readonly recentPorts = new Map<number, number>();

  constructor(private readonly store: Store) {}

  allocate(service: KubeObject): Promise<void> {
    const run = this.queue.then(() => this.allocateNow(service as ServiceShape));
    this.queue = run.catch(() => {});
    return run;
  }

  private async inUse(): Promise<{ ips: Set<string>; ports: Set<number> }> {
    const ips = new Set<string>();
    const ports = new Set<number>();
    const { items } = await this.store.list('/registry/services/');
    for (const kv of items) {
      const service = JSON.parse(kv.value) as ServiceShape;
      for (const ip of service.spec?.clusterIPs ?? [service.spec?.clusterIP ?? '']) if (ip) ips.add(ip);
      for (const port of service.spec?.ports ?? []) if (port.nodePort) ports.add(port.nodePort);
    }
    const horizon = Date.now() - 60_000;
    for (const [ip, at] of this.recentIps) if (at < horizon) this.recentIps.delete(ip);
    for (const [port, at] of this.recentPorts) if (at < horizon) this.recentPorts.delete(port);
    for (const ip of this.recentIps.keys()) ips.add(ip);
    for (const port of this.recentPorts.keys()) ports.add(port);
    return { ips, ports };
  }

  private async allocateNow(service: ServiceShape): Promise<void> {
    service.spec ??= {};
    const spec = service.spec;
    const type = spec.type ?? 'ClusterIP';
    const { ips, ports } = await this.inUse();
    const errors: FieldError[] = [];
    if (type !== 'ExternalName' && spec.clusterIP !== 'None') {
      const requested = spec.clusterIP || spec.clusterIPs?.[0];
      if (requested) {
        const n = parseIpv4(requested);
        if (n === undefined || n <= SERVICE_CIDR_BASE || n >= SERVICE_CIDR_BASE + SERVICE_CIDR_SIZE - 1) {
          errors.push(
            fieldInvalid(
              'spec.clusterIPs',
              [requested],
              `failed to allocate IP ${requested}: the provided IP (${requested}) is not in the valid range. The range of valid IPs is 10.96.0.0/16`,
            ),
          );
        } else if (ips.has(requested)) {
          errors.push(
            fieldInvalid(
              'spec.clusterIPs',
              [requested],
              `failed to allocate IP ${requested}: provided IP is already allocated`,
            ),
          );
        } else {
          this.recentIps.set(requested, Date.now());
        }
      } else {
        const ip = this.freeIp(ips);
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
        this.recentIps.set(ip, Date.now());
      }
    } else if (spec.clusterIP === 'None') {
      spec.clusterIPs = ['None'];
    }
    if (type === 'NodePort' || type === 'LoadBalancer') {
      for (const [i, port] of (spec.ports ?? []).entries()) {
        if (port.nodePort) {
          if (ports.has(port.nodePort)) {
            errors.push(
              fieldInvalid(`spec.ports[${i}].nodePort`, port.nodePort, 'provided port is already allocated'),
            );
          }
          this.recentPorts.set(port.nodePort, Date.now());
          continue;
        }
        const free = this.freePort(ports);
        port.nodePort = free;
        ports.add(free);
        this.recentPorts.set(free, Date.now());
      }
    }
    if (errors.length > 0) {
      throw invalid('', 'Service', (service as KubeObject).metadata?.name ?? '', errors);
    }
  }

  private freeIp(used: Set<string>): string {
    // Random probing like kube-apiserver's allocator; the low /28 is kept for static IPs.
    for (let i = 0; i < 64; i++) {
      const offset = 16 + Math.floor(Math.random() * (SERVICE_CIDR_SIZE - 18));
      const ip = formatIpv4(SERVICE_CIDR_BASE + offset);
      if (!used.has(ip)) return ip;
    }
    for (let offset = 2; offset < SERVICE_CIDR_SIZE - 1; offset++) {
      const ip = formatIpv4(SERVICE_CIDR_BASE + offset);
      if (!used.has(ip)) return ip;
    }
    throw new Error('range is full');
  }

  private freePort(used: Set<number>): number {
    const span = NODE_PORT_RANGE.last - NODE_PORT_RANGE.first + 1;
    const start = Math.floor(Math.random() * span);
    for (let i = 0; i < span; i++) {
      const port = NODE_PORT_RANGE.first + ((start + i) % span);
      if (!used.has(port)) return port;
    }
    throw new Error('range is full');
  }
}

export function serviceStrategy(allocator: ServiceAllocator): Partial<Strategy> {
  return {
    async prepareForCreate(object: KubeObject) {
      object.status = { loadBalancer: {} };
      await allocator.allocate(object);
      // Single-stack IPv4 cluster: the IP family fields the allocator settles on create.
      const spec = (object as ServiceShape & { spec?: { ipFamilies?: string[]; ipFamilyPolicy?: string } })
        .spec;
      if (spec && spec.type !== 'ExternalName') {
        spec.ipFamilies ??= ['IPv4'];
        spec.ipFamilyPolicy ??= 'SingleStack';
      }
    },
    prepareForUpdate(object: KubeObject, old: KubeObject) {
      object.status = old.status;
      // Omitted allocations are kept, as kube-apiserver does for `kubectl apply`.
      const service = object as ServiceShape;
      service.spec ??= {};
      const spec = service.spec;
      const oldSpec = (old as ServiceShape).spec ?? {};
      if (!spec.clusterIP && oldSpec.clusterIP) spec.clusterIP = oldSpec.clusterIP;
      if (!spec.clusterIPs && oldSpec.clusterIPs) spec.clusterIPs = oldSpec.clusterIPs;
      for (const port of spec.ports ?? []) {
        if (port.nodePort) continue;
        const same = oldSpec.ports?.find(
          (p) => p.port === port.port && (p.protocol ?? 'TCP') === (port.protocol ?? 'TCP'),
        );
        if (same?.nodePort && (spec.type === 'NodePort' || spec.type === 'LoadBalancer'))
          port.nodePort = same.nodePort;
      }
    },
  };
}
