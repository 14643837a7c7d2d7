// UDP has no connection to close: conntrack keeps sending a flow to the endpoint it first chose,
// even after that endpoint is gone. After each sync the proxy deletes the flows of removed UDP
// endpoints and of UDP services that were unreachable before (pkg/proxy/conntrack/cleanup.go),
// with the conntrack tool's own commands.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type EndpointInfo, servicePortKey } from './endpoints.js';
import type { ProxyState } from './rules.js';
import type { ServicePortInfo } from './service-ports.js';

const execFileAsync = promisify(execFile);

function udpPorts(state: ProxyState): Map<string, ServicePortInfo> {
  const ports = new Map<string, ServicePortInfo>();
  for (const port of state.servicePorts) {
    if (port.protocol === 'udp') ports.set(servicePortKey(port.nameString, port.protocol), port);
  }
  return ports;
}

function readyEndpoints(state: ProxyState, key: string): EndpointInfo[] {
  return (state.endpoints.get(key) ?? []).filter((ep) => ep.ready || (ep.serving && ep.terminating));
}

/** The `conntrack` argument lists that clear what changed from `before` to `after`. */
export function staleConntrackCommands(before: ProxyState, after: ProxyState): string[][] {
  const commands: string[][] = [];
  const seen = new Set<string>();
  const add = (args: string[]) => {
    const key = args.join(' ');
    if (seen.has(key)) return;
    seen.add(key);
    commands.push(args);
  };
  const forIP = (ip: string) => add(['-D', '--orig-dst', ip, '-p', 'udp']);
  const oldPorts = udpPorts(before);
  const newPorts = udpPorts(after);
  // Services gone: their flows lead nowhere.
  const liveIPs = new Set([...newPorts.values()].map((port) => port.clusterIP));
  for (const [key, port] of oldPorts)
    if (!newPorts.has(key) && !liveIPs.has(port.clusterIP)) forIP(port.clusterIP);
  for (const [key, port] of newPorts) {
    const oldReady = oldPorts.has(key) ? readyEndpoints(before, key) : [];
    const newReady = readyEndpoints(after, key);
    const addresses = [port.clusterIP, ...port.externalIPs, ...port.loadBalancerVIPs];
    if (oldReady.length === 0 && newReady.length > 0) {
      // Flows created while the service was rejected would keep failing.
      for (const ip of addresses) forIP(ip);
      if (port.nodePort) add(['-D', '-p', 'udp', '--dport', String(port.nodePort)]);
    }
    const current = new Set(newReady.map((ep) => ep.endpoint));
    for (const ep of oldReady) {
      if (current.has(ep.endpoint)) continue;
      if (port.nodePort) add(['-D', '-p', 'udp', '--dport', String(port.nodePort), '--dst-nat', ep.ip]);
      for (const ip of addresses) add(['-D', '--orig-dst', ip, '--dst-nat', ep.ip, '-p', 'udp']);
    }
  }
  return commands;
}

/** Runs one conntrack deletion; "0 flow entries" is success (nothing was there). */
export async function runConntrack(args: readonly string[]): Promise<void> {
  try {
    await execFileAsync('conntrack', [...args], { encoding: 'utf8' });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    if (stderr.includes('0 flow entries have been deleted')) return;
    throw new Error(`conntrack ${args.join(' ')} failed: ${stderr.trim() || String(error)}`);
  }
}
