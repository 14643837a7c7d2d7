/** Baseline checks on host access: namespaces, hostPath volumes, host ports, privileged, hostProcess. */

import {
  allContainers,
  containerName,
  containersPhrase,
  joinQuote,
  pluralize,
  sortedUnique,
} from './text.js';
import type { CheckPodFn } from './types.js';

export const hostNamespaces: CheckPodFn = (_meta, spec) => {
  const shared: string[] = [];
  if (spec.hostNetwork) shared.push('hostNetwork=true');
  if (spec.hostPID) shared.push('hostPID=true');
  if (spec.hostIPC) shared.push('hostIPC=true');
  if (shared.length === 0) return undefined;
  return { forbiddenReason: 'host namespaces', forbiddenDetail: shared.join(', ') };
};

export const hostPathVolumes: CheckPodFn = (_meta, spec) => {
  const names = (spec.volumes ?? []).filter((v) => v.hostPath != null).map((v) => v.name ?? '');
  if (names.length === 0) return undefined;
  return {
    forbiddenReason: 'hostPath volumes',
    forbiddenDetail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}`,
  };
};

export const hostPorts: CheckPodFn = (_meta, spec) => {
  const badContainers: string[] = [];
  const ports: string[] = [];
  for (const container of allContainers(spec)) {
    const used = (container.ports ?? []).map((p) => p.hostPort ?? 0).filter((port) => port !== 0);
    if (used.length === 0) continue;
    badContainers.push(containerName(container));
    ports.push(...used.map(String));
  }
  if (badContainers.length === 0) return undefined;
  const uniquePorts = sortedUnique(ports);
  return {
    forbiddenReason: 'hostPort',
    forbiddenDetail: [
      containersPhrase(badContainers),
      pluralize('uses', 'use', badContainers.length),
      pluralize('hostPort', 'hostPorts', uniquePorts.length),
      uniquePorts.join(', '),
    ].join(' '),
  };
};

export const privileged: CheckPodFn = (_meta, spec) => {
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.privileged === true)
    .map(containerName);
  if (bad.length === 0) return undefined;
  return {
    forbiddenReason: 'privileged',
    forbiddenDetail: `${containersPhrase(bad)} must not set securityContext.privileged=true`,
  };
};

export const windowsHostProcess: CheckPodFn = (_meta, spec) => {
  const setters: string[] = [];
  if (spec.securityContext?.windowsOptions?.hostProcess === true) setters.push('pod');
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.windowsOptions?.hostProcess === true)
    .map(containerName);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return undefined;
  return {
    forbiddenReason: 'hostProcess',
    forbiddenDetail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`,
  };
};
