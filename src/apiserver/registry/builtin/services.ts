import { formatIpv4, parseIpv4 } from '../../../api/ipv4.js';
import type { KubeObject } from '../../../api/object.js';
import { type FieldError, fieldInvalid } from '../../../api/selectors/field-errors.js';
import type { Store } from '../../../storage/index.js';
import { internalError, invalid } from '../../status.js';
import type { Strategy } from '../strategy.js';
import {
  dropTypeDependentFields,
  needsClusterIP,
  needsHealthCheckNodePort,
  needsNodePort,
  nodePortsOf,
  normalizeClusterIPs,
  patchAllocatedValues,
  type ServiceSpecShape,
  shouldAllocateNodePorts,
} from './service-type-change.js';

/** The service network: 10.96.0.0/16; 10.96.0.1 is the `kubernetes` service. */
export const SERVICE_CIDR_BASE = parseIpv4('10.96.0.0')!;
export const SERVICE_CIDR_SIZE = 1 << 16;
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
export const NODE_PORT_RANGE = { first: 30000, last: 32767 } as const;

interface ServiceShape {
  spec?: ServiceSpecShape;
}

interface InUse {
  ips: Set<string>;
  ports: Set<number>;
}

/**
 * Hands out ClusterIPs and NodePorts. The store is the source of truth: each allocation
 * reads the services that exist, plus what was handed out moments ago and not yet stored.
 * Allocations run one at a time. A value is released by the write that drops it from its
 * Service (the allocator forgets its own recent record of it at once).
 */
export class ServiceAllocator {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly recentIps = new Map<string, number>();
  private readonly recentPorts = new Map<number, number>();

  constructor(private readonly store: Store) {}

  /** A new Service's ClusterIPs, node ports and health check node port (allocateCreate). */
  allocate(service: KubeObject): Promise<void> {
    return this.serialized(() => this.allocateCreate(service as ServiceShape, service.metadata?.name ?? ''));
  }

  /** What an update's type change needs allocated or released (allocateUpdate). */
  allocateUpdate(service: KubeObject, old: KubeObject): Promise<void> {
    return this.serialized(() =>
      this.allocateForUpdate(
        service as ServiceShape,
        (old as ServiceShape).spec ?? {},
        service.metadata?.name ?? '',
      ),
    );
  }

  private serialized(step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(step);
    this.queue = run.catch(() => {});
    return run;
  }

  private async inUse(): Promise<InUse> {
    const ips = new Set<string>();
    const ports = new Set<number>();
    const { items } = await this.store.list('/registry/services/');
    for (const kv of items) {
      const spec = (JSON.parse(kv.value) as ServiceShape).spec;
      for (const ip of spec?.clusterIPs ?? [spec?.clusterIP ?? '']) if (ip) ips.add(ip);
      for (const port of nodePortsOf(spec ?? {})) ports.add(port);
      if (spec?.healthCheckNodePort) ports.add(spec.healthCheckNodePort);
    }
    const horizon = Date.now() - 60_000;
    for (const [ip, at] of this.recentIps) if (at < horizon) this.recentIps.delete(ip);
    for (const [port, at] of this.recentPorts) if (at < horizon) this.recentPorts.delete(port);
    for (const ip of this.recentIps.keys()) ips.add(ip);
    for (const port of this.recentPorts.keys()) ports.add(port);
    return { ips, ports };
  }

  private async allocateCreate(service: ServiceShape, name: string): Promise<void> {
    service.spec ??= {};
    const spec = service.spec;
    normalizeClusterIPs(spec, undefined);
    const used = await this.inUse();
    const errors: FieldError[] = [];
    if (needsClusterIP(spec)) this.allocateClusterIPs(spec, used, errors);
    else if (spec.clusterIP === 'None') spec.clusterIPs = ['None'];
    if (needsNodePort(spec)) this.initNodePorts(spec, used, errors);
    if (errors.length > 0) throw invalid('', 'Service', name, errors);
    if (needsHealthCheckNodePort(spec)) this.allocateHealthCheckNodePort(spec, used);
  }

  private async allocateForUpdate(service: ServiceShape, old: ServiceSpecShape, name: string): Promise<void> {
    service.spec ??= {};
    const spec = service.spec;
    patchAllocatedValues(spec, old);
    normalizeClusterIPs(spec, old);
    if (needsClusterIP(spec)) {
      // Single-stack: the policy and family are the old ones, or settled now.
      spec.ipFamilyPolicy ??= old.ipFamilyPolicy ?? 'SingleStack';
      if ((spec.ipFamilies ?? []).length === 0) spec.ipFamilies = old.ipFamilies ?? ['IPv4'];
    }
    const used = await this.inUse();
    const errors: FieldError[] = [];
    if (!needsClusterIP(old) && needsClusterIP(spec)) {
      this.allocateClusterIPs(spec, used, errors);
    } else if (needsClusterIP(old) && !needsClusterIP(spec) && old.clusterIPs?.[0] !== 'None') {
      for (const ip of old.clusterIPs ?? []) this.recentIps.delete(ip);
    }
    if (needsNodePort(old) && !needsNodePort(spec)) {
      for (const port of nodePortsOf(old)) this.recentPorts.delete(port);
    }
    if (needsNodePort(spec)) this.updateNodePorts(spec, old, used, errors);
    if (errors.length > 0) throw invalid('', 'Service', name, errors);
    if (!needsHealthCheckNodePort(old) && needsHealthCheckNodePort(spec)) {
      this.allocateHealthCheckNodePort(spec, used);
    } else if (needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(spec) && old.healthCheckNodePort) {
      this.recentPorts.delete(old.healthCheckNodePort);
    }
  }

  /** The requested ClusterIP if it is free and in range, else a free one (allocClusterIPs). */
  private allocateClusterIPs(spec: ServiceSpecShape, used: InUse, errors: FieldError[]): void {
    if (spec.clusterIP === 'None') {
      spec.clusterIPs = ['None'];
      return;
    }
    const requested = spec.clusterIP || spec.clusterIPs?.[0];
    if (!requested) {
      const ip = this.freeIp(used.ips);
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
      this.recentIps.set(ip, Date.now());
      used.ips.add(ip);
      return;
    }
    const n = parseIpv4(requested);
    if (n === undefined || n <= SERVICE_CIDR_BASE || n >= SERVICE_CIDR_BASE + SERVICE_CIDR_SIZE - 1) {
      errors.push(
        fieldInvalid(
          'spec.clusterIPs',
          [requested],
          `failed to allocate IP ${requested}: the provided IP (${requested}) is not in the valid range. The range of valid IPs is 10.96.0.0/16`,
        ),
      );
    } else if (used.ips.has(requested)) {
      errors.push(
        fieldInvalid(
          'spec.clusterIPs',
          [requested],
          `failed to allocate IP ${requested}: provided IP is already allocated`,
        ),
      );
    } else {
      this.recentIps.set(requested, Date.now());
      used.ips.add(requested);
    }
  }

  /** Why a requested node port cannot be had, or undefined once it is reserved (PortAllocator.Allocate). */
  private reservePort(port: number, used: InUse): string | undefined {
    if (port < NODE_PORT_RANGE.first || port > NODE_PORT_RANGE.last) {
      return `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE.first}-${NODE_PORT_RANGE.last}`;
    }
    if (used.ports.has(port)) return 'provided port is already allocated';
    used.ports.add(port);
    this.recentPorts.set(port, Date.now());
    return undefined;
  }

  private nextPort(used: InUse): number {
    const port = this.freePort(used.ports);
    used.ports.add(port);
    this.recentPorts.set(port, Date.now());
    return port;
  }

  /** Node ports of a new Service: ports with the same number share one (initNodePorts). */
  private initNodePorts(spec: ServiceSpecShape, used: InUse, errors: FieldError[]): void {
    const byServicePort = new Map<number, number>();
    for (const [i, port] of (spec.ports ?? []).entries()) {
      if (!port.nodePort && !shouldAllocateNodePorts(spec)) continue;
      const servicePort = port.port ?? 0;
      const shared = byServicePort.get(servicePort);
      if (shared === undefined) {
        const requested = (spec.ports ?? []).find((p) => p.port === servicePort && p.nodePort)?.nodePort;
        if (requested) {
          const problem = this.reservePort(requested, used);
          if (problem !== undefined) {
            errors.push(fieldInvalid(`spec.ports[${i}].nodePort`, requested, problem));
            return;
          }
          port.nodePort = requested;
          byServicePort.set(servicePort, requested);
        } else {
          port.nodePort = this.nextPort(used);
          byServicePort.set(servicePort, port.nodePort);
        }
      } else if (port.nodePort !== shared) {
        if (!port.nodePort) {
          port.nodePort = shared;
        } else {
          const problem = this.reservePort(port.nodePort, used);
          if (problem !== undefined) {
            errors.push(fieldInvalid(`spec.ports[${i}].nodePort`, port.nodePort, problem));
            return;
          }
        }
      }
    }
  }

  /** Node ports of an updated Service: the old ones are kept, new ones reserved (updateNodePorts). */
  private updateNodePorts(
    spec: ServiceSpecShape,
    old: ServiceSpecShape,
    used: InUse,
    errors: FieldError[],
  ): void {
    const oldPorts = new Set(nodePortsOf(old));
    const reserved = new Set<number>();
    for (const [i, port] of (spec.ports ?? []).entries()) {
      if (!port.nodePort && !shouldAllocateNodePorts(spec)) continue;
      if (port.nodePort) {
        if (oldPorts.has(port.nodePort) || reserved.has(port.nodePort)) continue;
        const problem = this.reservePort(port.nodePort, used);
        if (problem !== undefined) {
          errors.push(fieldInvalid(`spec.ports[${i}].nodePort`, port.nodePort, problem));
          return;
        }
        reserved.add(port.nodePort);
      } else {
        port.nodePort = this.nextPort(used);
      }
    }
    const kept = new Set(nodePortsOf(spec));
    for (const port of oldPorts) if (!kept.has(port)) this.recentPorts.delete(port);
  }

  /** allocHealthCheckNodePort: a failure here is an internal error upstream, not a field error. */
  private allocateHealthCheckNodePort(spec: ServiceSpecShape, used: InUse): void {
    const requested = spec.healthCheckNodePort ?? 0;
    if (requested === 0) {
      spec.healthCheckNodePort = this.nextPort(used);
      return;
    }
    const problem = this.reservePort(requested, used);
    if (problem !== undefined) {
      throw internalError(`failed to allocate requested HealthCheck NodePort ${requested}: ${problem}`);
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
      const spec = (object as ServiceShape).spec;
      if (spec && spec.type !== 'ExternalName') {
        spec.ipFamilies ??= ['IPv4'];
        spec.ipFamilyPolicy ??= 'SingleStack';
      }
    },
    async prepareForUpdate(object: KubeObject, old: KubeObject) {
      // The REST storage's beginUpdate (allocations) first, then the strategy's PrepareForUpdate.
      await allocator.allocateUpdate(object, old);
      object.status = structuredClone(old.status);
      dropTypeDependentFields(
        (object as ServiceShape).spec ?? {},
        (old as ServiceShape).spec ?? {},
        object.status as { loadBalancer?: unknown },
      );
    },
  };
}
