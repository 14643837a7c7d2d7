// Host ports in use on a node (the scheduler framework's HostPortInfo): ip → "protocol/port".
// 0.0.0.0 (the default) conflicts with every address. Shared by the scheduler's NodePorts plugin
// and the kubelet's admission of pods bound to its node.
import type { ContainerPort, Pod } from './types/core-v1.generated.js';

const ANY_IP = '0.0.0.0';

function sanitize(ip: string | undefined, protocol: string | undefined): [string, string] {
  return [
    ip === undefined || ip === '' ? ANY_IP : ip,
    protocol === undefined || protocol === '' ? 'TCP' : protocol,
  ];
}

export class HostPortInfo {
  private readonly byIp = new Map<string, Set<string>>();

  add(ip: string | undefined, protocol: string | undefined, port: number): void {
    if (port <= 0) return;
    const [address, proto] = sanitize(ip, protocol);
    let ports = this.byIp.get(address);
    if (ports === undefined) {
      ports = new Set();
      this.byIp.set(address, ports);
    }
    ports.add(`${proto}/${port}`);
  }

  remove(ip: string | undefined, protocol: string | undefined, port: number): void {
    if (port <= 0) return;
    const [address, proto] = sanitize(ip, protocol);
    const ports = this.byIp.get(address);
    if (ports === undefined) return;
    ports.delete(`${proto}/${port}`);
    if (ports.size === 0) this.byIp.delete(address);
  }

  /** True when the port is taken on that address, on 0.0.0.0, or anywhere when asking for 0.0.0.0. */
  checkConflict(ip: string | undefined, protocol: string | undefined, port: number): boolean {
    if (port <= 0) return false;
    const [address, proto] = sanitize(ip, protocol);
    const key = `${proto}/${port}`;
    if (address === ANY_IP) {
      for (const ports of this.byIp.values()) if (ports.has(key)) return true;
      return false;
    }
    return (this.byIp.get(address)?.has(key) ?? false) || (this.byIp.get(ANY_IP)?.has(key) ?? false);
  }

  get size(): number {
    let count = 0;
    for (const ports of this.byIp.values()) count += ports.size;
    return count;
  }

  clone(): HostPortInfo {
    const copy = new HostPortInfo();
    for (const [ip, ports] of this.byIp) copy.byIp.set(ip, new Set(ports));
    return copy;
  }
}

/** The host ports a pod's containers and restartable init containers (sidecars) ask for. */
export function hostPortsOf(pod: Pod): ContainerPort[] {
  const ports: ContainerPort[] = [];
  for (const container of pod.spec?.initContainers ?? []) {
    if (container.restartPolicy !== 'Always') continue;
    for (const port of container.ports ?? []) if ((port.hostPort ?? 0) > 0) ports.push(port);
  }
  for (const container of pod.spec?.containers ?? []) {
    for (const port of container.ports ?? []) if ((port.hostPort ?? 0) > 0) ports.push(port);
  }
  return ports;
}
