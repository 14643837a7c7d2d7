// The CRI PodSandboxConfig of a pod (generatePodSandboxConfig): metadata with the attempt,
// hostname (none on the host network: the runtime refuses one there), DNS, log directory, host
// port mappings, labels and annotations, cgroup parent and sandbox security.
import type { Pod } from '../../../api/types/core-v1.generated.js';
import type { PodSandboxConfig, PortMapping, Protocol } from '../cri/types.js';
import { sandboxLabels } from '../runtime/labels.js';
import type { DnsSettings } from './dns.js';
import { podDnsConfig } from './dns.js';
import { kernelHostname, podHostname } from './hostname.js';
import { podCgroupParent } from './resources.js';
import { sandboxSecurityContext } from './security.js';

export const POD_LOGS_ROOT = '/var/log/pods';

/** `/var/log/pods/<namespace>_<name>_<uid>` */
export function podLogDirectory(pod: Pod, root = POD_LOGS_ROOT): string {
  const meta = pod.metadata ?? {};
  return `${root}/${meta.namespace ?? ''}_${meta.name ?? ''}_${meta.uid ?? ''}`;
}

function portMappings(pod: Pod): PortMapping[] {
  const mappings: PortMapping[] = [];
  for (const container of pod.spec?.containers ?? []) {
    for (const port of container.ports ?? []) {
      mappings.push({
        protocol: (port.protocol ?? 'TCP') as Protocol,
        containerPort: port.containerPort,
        hostPort: port.hostPort ?? 0,
        hostIp: port.hostIP ?? '',
      });
    }
  }
  return mappings;
}

export interface SandboxConfigResult {
  readonly config: PodSandboxConfig;
  /** DNSConfigForming warnings for events. */
  readonly dnsWarnings: readonly string[];
}

export function podSandboxConfig(
  pod: Pod,
  attempt: number,
  dns: DnsSettings,
  logRoot = POD_LOGS_ROOT,
): SandboxConfigResult {
  const meta = pod.metadata ?? {};
  const { config: dnsConfig, warnings } = podDnsConfig(pod, dns);
  const hostNetwork = pod.spec?.hostNetwork === true;
  const sysctls: Record<string, string> = {};
  for (const sysctl of pod.spec?.securityContext?.sysctls ?? []) sysctls[sysctl.name] = sysctl.value;
  const mappings = portMappings(pod);
  const config: PodSandboxConfig = {
    metadata: { name: meta.name ?? '', uid: meta.uid ?? '', namespace: meta.namespace ?? '', attempt },
    hostname: hostNetwork ? '' : kernelHostname(pod, podHostname(pod, dns.clusterDomain)),
    logDirectory: podLogDirectory(pod, logRoot),
    dnsConfig,
    labels: sandboxLabels(pod),
    annotations: { ...(meta.annotations ?? {}) },
    linux: {
      cgroupParent: podCgroupParent(pod),
      securityContext: sandboxSecurityContext(pod),
      sysctls,
    },
    ...(mappings.length > 0 ? { portMappings: mappings } : {}),
  };
  return { config, dnsWarnings: warnings };
}
