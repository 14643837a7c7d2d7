// The Service and Endpoints printers: cluster and external IPs, `80:30080/TCP` port lists, endpoints.
import type { KubeObject } from '../../api/object.js';
import { at, int, list, str } from './access.js';
import { AGE, fieldColumn, NAME, wideFieldColumn } from './columns.js';
import { formatLabels, joinHostPort, sortedSet } from './format.js';
import { ageOf, nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

/** The distinct load-balancer ingress points, IPs before hostnames per entry, sorted. */
export function loadBalancerIngress(ingress: unknown[]): string {
  const points = ingress.map((entry) => str(entry, 'ip') || str(entry, 'hostname')).filter((p) => p !== '');
  // Kubernetes would clip this to 16 characters, but the server always prints the wide form.
  return sortedSet(points).join(',');
}

function serviceExternalIP(service: KubeObject): string {
  const externalIPs = list(service, 'spec', 'externalIPs').map((ip) => (typeof ip === 'string' ? ip : ''));
  switch (str(service, 'spec', 'type')) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const balancer = loadBalancerIngress(list(service, 'status', 'loadBalancer', 'ingress'));
      if (externalIPs.length > 0) return [...(balancer ? balancer.split(',') : []), ...externalIPs].join(',');
      return balancer || '<pending>';
    }
    case 'ExternalName':
      return str(service, 'spec', 'externalName');
    default:
      return '<unknown>';
  }
}

function servicePorts(service: KubeObject): string {
  const pieces = list(service, 'spec', 'ports').map((port) => {
    const nodePort = int(port, 'nodePort');
    const target = nodePort > 0 ? `${int(port, 'port')}:${nodePort}` : `${int(port, 'port')}`;
    return `${target}/${str(port, 'protocol')}`;
  });
  return pieces.length > 0 ? pieces.join(',') : '<none>';
}

function serviceClusterIP(service: KubeObject): string {
  // spec.clusterIP alone is defaulted into spec.clusterIPs when Kubernetes decodes a Service.
  const first = list(service, 'spec', 'clusterIPs')[0];
  if (first !== undefined) return typeof first === 'string' ? first : '';
  return str(service, 'spec', 'clusterIP') || '<none>';
}

export const services: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Type', 'string', 'core/v1.ServiceSpec.type'),
    fieldColumn('Cluster-IP', 'string', 'core/v1.ServiceSpec.clusterIP'),
    fieldColumn('External-IP', 'string', 'core/v1.ServiceSpec.externalIPs'),
    fieldColumn('Port(s)', 'string', 'core/v1.ServiceSpec.ports'),
    AGE,
    wideFieldColumn('Selector', 'string', 'core/v1.ServiceSpec.selector'),
  ],
  row(service, now) {
    return [
      nameOf(service),
      str(service, 'spec', 'type'),
      serviceClusterIP(service),
      serviceExternalIP(service),
      servicePorts(service),
      ageOf(service, now),
      formatLabels(at(service, 'spec', 'selector')),
    ];
  },
};

/** formatEndpoints: up to three `ip:port` pairs, then `+ N more...`; `<none>` without subsets. */
function formatEndpoints(endpoints: KubeObject): string {
  const subsets = list(endpoints, 'subsets');
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const shown: string[] = [];
  let more = false;
  let count = 0;
  for (const subset of subsets) {
    const addresses = list(subset, 'addresses');
    const ports = list(subset, 'ports');
    // Headless services may have no ports: list the bare addresses.
    const portNumbers = ports.length === 0 ? [undefined] : ports.map((port) => int(port, 'port'));
    for (const port of portNumbers) {
      count += addresses.length;
      for (const address of addresses) {
        if (shown.length === max) {
          more = true;
          break;
        }
        const ip = str(address, 'ip');
        shown.push(port === undefined ? ip : joinHostPort(ip, port));
      }
    }
  }
  const text = shown.join(',');
  return more ? `${text} + ${count - max} more...` : text;
}

export const endpoints: KindPrinter = {
  columns: [NAME, fieldColumn('Endpoints', 'string', 'core/v1.Endpoints.subsets'), AGE],
  row(ep, now) {
    return [nameOf(ep), formatEndpoints(ep), ageOf(ep, now)];
  },
};
