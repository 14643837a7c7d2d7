// Upstream: pkg/registry/core/service/storage/storage.go (patchAllocatedValues,
// normalizeClusterIPs) and pkg/registry/core/service/strategy.go (dropTypeDependentFields).
// How a Service update settles its allocated fields when the client omits them or the type changes.

/** The Service fields these rules read and write. */
export interface ServiceSpecShape {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  ports?: ServicePortShape[];
  healthCheckNodePort?: number;
  externalTrafficPolicy?: string;
  allocateLoadBalancerNodePorts?: boolean;
  loadBalancerClass?: string;
}

export interface ServicePortShape {
  name?: string;
  port?: number;
  nodePort?: number;
  protocol?: string;
}

export function needsClusterIP(spec: ServiceSpecShape): boolean {
  return spec.type !== 'ExternalName';
}

export function needsNodePort(spec: ServiceSpecShape): boolean {
  return spec.type === 'NodePort' || spec.type === 'LoadBalancer';
}

/** A LoadBalancer with externalTrafficPolicy Local gets a health check node port. */
export function needsHealthCheckNodePort(spec: ServiceSpecShape): boolean {
  return spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

/** Whether node ports are allocated for ports that ask for none (NodePort, or a LoadBalancer that allows it). */
export function shouldAllocateNodePorts(spec: ServiceSpecShape): boolean {
  if (spec.type === 'NodePort') return true;
  return spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false;
}

export function nodePortsOf(spec: ServiceSpecShape): number[] {
  return (spec.ports ?? []).map((port) => port.nodePort ?? 0).filter((port) => port !== 0);
}

function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((value, i) => value === y[i]);
}

/** Values the client left out of an update are taken from the old object (idempotent PUTs). */
export function patchAllocatedValues(spec: ServiceSpecShape, old: ServiceSpecShape): void {
  if (needsClusterIP(old) && needsClusterIP(spec)) {
    if (!spec.clusterIP && old.clusterIP) spec.clusterIP = old.clusterIP;
    if ((spec.clusterIPs ?? []).length === 0 && (old.clusterIPs ?? []).length > 0)
      spec.clusterIPs = old.clusterIPs;
  }
  if (needsNodePort(old) && needsNodePort(spec)) {
    // Node ports kept in the new object cannot be given to another port.
    const kept = new Set(nodePortsOf(spec));
    const used = new Set(nodePortsOf(old).filter((port) => kept.has(port)));
    // Matched by port name: the client may have changed anything else about the port.
    const byName = new Map<string, number>();
    for (const port of old.ports ?? []) byName.set(port.name ?? '', port.nodePort ?? 0);
    for (const port of spec.ports ?? []) {
      if (port.nodePort) continue;
      const previous = byName.get(port.name ?? '') ?? 0;
      if (previous !== 0 && !used.has(previous)) port.nodePort = previous;
    }
  }
  if (needsHealthCheckNodePort(old) && needsHealthCheckNodePort(spec) && !spec.healthCheckNodePort) {
    if (old.healthCheckNodePort) spec.healthCheckNodePort = old.healthCheckNodePort;
  }
}

/** Keeps clusterIP and clusterIPs in step, for clients that set only the singular field. */
export function normalizeClusterIPs(spec: ServiceSpecShape, old: ServiceSpecShape | undefined): void {
  const ips = spec.clusterIPs ?? [];
  if (old === undefined) {
    if (spec.clusterIP && ips.length === 0) spec.clusterIPs = [spec.clusterIP];
    return;
  }
  const oldIps = old.clusterIPs ?? [];
  // An old client patching something else sends the singular field only.
  if (oldIps.length > 0 && ips.length === 0 && (old.clusterIP ?? '') === (spec.clusterIP ?? '')) {
    spec.clusterIPs = oldIps;
  }
  if ((old.clusterIP ?? '') !== (spec.clusterIP ?? '')) {
    const samePlural = sameStrings(old.clusterIPs, spec.clusterIPs);
    if (old.clusterIP && !spec.clusterIP) {
      // Clearing the singular field clears the plural one with it.
      if (samePlural) delete spec.clusterIPs;
    } else if (samePlural && spec.clusterIP) {
      spec.clusterIPs = [spec.clusterIP];
    }
  }
}

/**
 * Clears what the new type no longer uses, when the client left it as it was (the allocator
 * releases it), and the load balancer status of a Service that is no longer a LoadBalancer.
 */
export function dropTypeDependentFields(
  spec: ServiceSpecShape,
  old: ServiceSpecShape,
  status: { loadBalancer?: unknown } | undefined,
): void {
  if (needsClusterIP(old) && !needsClusterIP(spec)) {
    if ((old.clusterIP ?? '') === (spec.clusterIP ?? '') && sameStrings(old.clusterIPs, spec.clusterIPs)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (sameStrings(old.ipFamilies, spec.ipFamilies)) delete spec.ipFamilies;
    if ((old.ipFamilyPolicy ?? '') === (spec.ipFamilyPolicy ?? '')) delete spec.ipFamilyPolicy;
  }
  if (needsNodePort(old) && !needsNodePort(spec)) {
    const oldPorts = new Set(nodePortsOf(old));
    if (nodePortsOf(spec).every((port) => oldPorts.has(port))) {
      for (const port of spec.ports ?? []) delete port.nodePort;
    }
  }
  if (
    needsHealthCheckNodePort(old) &&
    !needsHealthCheckNodePort(spec) &&
    (old.healthCheckNodePort ?? 0) === (spec.healthCheckNodePort ?? 0)
  ) {
    delete spec.healthCheckNodePort;
  }
  if (old.type === 'LoadBalancer' && spec.type !== 'LoadBalancer') {
    if (
      spec.allocateLoadBalancerNodePorts !== undefined &&
      old.allocateLoadBalancerNodePorts !== undefined &&
      spec.allocateLoadBalancerNodePorts === old.allocateLoadBalancerNodePorts
    ) {
      delete spec.allocateLoadBalancerNodePorts;
    }
    if (spec.loadBalancerClass !== undefined && spec.loadBalancerClass === old.loadBalancerClass) {
      delete spec.loadBalancerClass;
    }
  }
  if (
    needsNodePort(old) &&
    !needsNodePort(spec) &&
    (old.externalTrafficPolicy ?? '') === (spec.externalTrafficPolicy ?? '')
  ) {
    delete spec.externalTrafficPolicy;
  }
  if (spec.type !== 'LoadBalancer' && status !== undefined) status.loadBalancer = {};
}
