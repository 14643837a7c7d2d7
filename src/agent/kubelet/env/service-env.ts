// Service environment variables (pkg/kubelet/envvars): for every service of the pod's namespace
// (with enableServiceLinks) and the `kubernetes` service of `default`, `<NAME>_SERVICE_HOST`,
// `<NAME>_SERVICE_PORT[_<PORT NAME>]` and the Docker-link style `<NAME>_PORT...` variables.
import type { Service } from '../../../api/types/core-v1.generated.js';

const MASTER_SERVICES = new Set(['kubernetes']);

function envName(name: string): string {
  return name.replaceAll('-', '_').toUpperCase();
}

function hasClusterIP(service: Service): boolean {
  const ip = service.spec?.clusterIP;
  return ip !== undefined && ip !== '' && ip !== 'None';
}

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** The variables of one service, in the kubelet's order. */
export function serviceEnvVars(service: Service): [string, string][] {
  const prefix = envName(service.metadata?.name ?? '');
  const ip = service.spec?.clusterIP ?? '';
  const ports = service.spec?.ports ?? [];
  if (ports.length === 0) return [];
  const vars: [string, string][] = [
    [`${prefix}_SERVICE_HOST`, ip],
    [`${prefix}_SERVICE_PORT`, String(ports[0]!.port)],
  ];
  for (const port of ports) {
    if (port.name) vars.push([`${prefix}_SERVICE_PORT_${envName(port.name)}`, String(port.port)]);
  }
  ports.forEach((port, index) => {
    const protocol = (port.protocol ?? 'TCP').toLowerCase();
    const url = `${protocol}://${hostPort(ip, port.port)}`;
    if (index === 0) vars.push([`${prefix}_PORT`, url]);
    const portPrefix = `${prefix}_PORT_${port.port}_${protocol.toUpperCase()}`;
    vars.push(
      [portPrefix, url],
      [`${portPrefix}_PROTO`, protocol],
      [`${portPrefix}_PORT`, String(port.port)],
      [`${portPrefix}_ADDR`, ip],
    );
  });
  return vars;
}

/** The service variables a pod in `namespace` sees (getServiceEnvVarMap). */
export function serviceEnvironment(
  services: readonly Service[],
  namespace: string,
  enableServiceLinks: boolean,
): Map<string, string> {
  const chosen = new Map<string, Service>();
  for (const service of services) {
    if (!hasClusterIP(service)) continue;
    const name = service.metadata?.name ?? '';
    if (service.metadata?.namespace === 'default' && MASTER_SERVICES.has(name)) {
      if (!chosen.has(name)) chosen.set(name, service);
    } else if (service.metadata?.namespace === namespace && enableServiceLinks) {
      chosen.set(name, service);
    }
  }
  const env = new Map<string, string>();
  for (const service of chosen.values())
    for (const [key, value] of serviceEnvVars(service)) env.set(key, value);
  return env;
}
