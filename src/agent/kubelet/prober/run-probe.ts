// One attempt of a probe of any handler type, addressed as the kubelet does: httpGet and
// tcpSocket at the probe's host or the pod IP, ports by number or by the container's port name,
// grpc at the pod IP.
import type { Container, Probe } from '../../../api/types/core-v1.generated.js';
import { type ExecSync, runExecProbe } from './exec-probe.js';
import { runGrpcProbe } from './grpc-probe.js';
import { runHttpProbe } from './http-probe.js';
import type { ProbeOutcome } from './outcome.js';
import { runTcpProbe } from './tcp-probe.js';

export interface ProbeTarget {
  readonly container: Container;
  readonly containerId: string;
  readonly podIP: string;
  readonly execSync: ExecSync;
}

/** The kubelet's ResolveContainerPort: a number, a port name of the container, or a number as text. */
export function resolveContainerPort(port: number | string, container: Container): number {
  let resolved: number;
  if (typeof port === 'number') {
    resolved = port;
  } else {
    const named = container.ports?.find((p) => p.name === port);
    if (named) resolved = named.containerPort;
    else if (/^[+-]?\d+$/.test(port)) resolved = Number(port);
    else throw new Error(`strconv.Atoi: parsing "${port}": invalid syntax`);
  }
  if (resolved > 0 && resolved < 65536) return resolved;
  throw new Error(`invalid port number: ${resolved}`);
}

/** The probe's URL: `scheme://host:port` and the path (which may carry a query). */
export function httpProbeUrl(scheme: string, host: string, port: number, path: string): URL {
  const base = `${scheme.toLowerCase()}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const relative = path === '' ? '' : path.startsWith('/') ? path : `/${path}`;
  return new URL(`${base}${relative}`);
}

/** Runs one attempt; throws when the probe cannot be run at all (the kubelet's "probe errored"). */
export function runProbe(probe: Probe, target: ProbeTarget): Promise<ProbeOutcome> {
  const timeoutSeconds = probe.timeoutSeconds ?? 1;
  const timeoutMs = timeoutSeconds * 1000;
  if (probe.exec) {
    return runExecProbe(target.execSync, target.containerId, probe.exec.command ?? [], timeoutSeconds);
  }
  if (probe.httpGet) {
    const action = probe.httpGet;
    const port = resolveContainerPort(action.port, target.container);
    const url = httpProbeUrl(action.scheme ?? 'HTTP', action.host || target.podIP, port, action.path ?? '');
    const headers = (action.httpHeaders ?? []).map((h) => [h.name, h.value] as const);
    return runHttpProbe({ url, headers, timeoutMs });
  }
  if (probe.tcpSocket) {
    const port = resolveContainerPort(probe.tcpSocket.port, target.container);
    return runTcpProbe(probe.tcpSocket.host || target.podIP, port, timeoutMs);
  }
  if (probe.grpc) {
    return runGrpcProbe(target.podIP, probe.grpc.port, probe.grpc.service ?? '', timeoutMs);
  }
  return Promise.reject(new Error('missing probe handler'));
}
