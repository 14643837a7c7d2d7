/** Baseline checks on security contexts: AppArmor, capabilities, /proc mount, SELinux, seccomp, sysctls. */

import {
  allContainers,
  containerName,
  containersPhrase,
  goQuote,
  joinQuote,
  pluralize,
  sortedUnique,
} from './text.js';
import type { CheckPodFn, SELinuxOptions } from './types.js';

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
const ALLOWED_APPARMOR_TYPES = new Set(['RuntimeDefault', 'Localhost']);

function allowedAppArmorAnnotation(value: string): boolean {
  return value === '' || value === 'runtime/default' || value.startsWith('localhost/');
}

export const appArmorProfile: CheckPodFn = (meta, spec) => {
  const setters: string[] = [];
  const badValues: string[] = [];
  const podType = spec.securityContext?.appArmorProfile?.type;
  if (spec.securityContext?.appArmorProfile && !ALLOWED_APPARMOR_TYPES.has(podType ?? '')) {
    setters.push('pod');
    badValues.push(podType ?? '');
  }
  const badContainers: string[] = [];
  for (const container of allContainers(spec)) {
    const profile = container.securityContext?.appArmorProfile;
    if (profile && !ALLOWED_APPARMOR_TYPES.has(profile.type ?? '')) {
      badContainers.push(containerName(container));
      badValues.push(profile.type ?? '');
    }
  }
  if (badContainers.length > 0) setters.push(containersPhrase(badContainers));

  const annotations = Object.entries(meta.annotations ?? {})
    .filter(([key, value]) => key.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAppArmorAnnotation(value))
    .map(([key, value]) => `${key}=${goQuote(value)}`)
    .sort();
  const values = [...sortedUnique(badValues), ...annotations];
  if (annotations.length > 0) setters.push(pluralize('annotation', 'annotations', annotations.length));
  if (setters.length === 0) return undefined;
  return {
    forbiddenReason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    forbiddenDetail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  };
};

/** The container runtime's default capability set, which baseline lets containers add back. */
const DEFAULT_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

export const capabilitiesBaseline: CheckPodFn = (_meta, spec) => {
  const badContainers: string[] = [];
  const added: string[] = [];
  for (const container of allContainers(spec)) {
    const extra = (container.securityContext?.capabilities?.add ?? []).filter(
      (c) => !DEFAULT_CAPABILITIES.has(c),
    );
    if (extra.length === 0) continue;
    badContainers.push(containerName(container));
    added.push(...extra);
  }
  if (badContainers.length === 0) return undefined;
  return {
    forbiddenReason: 'non-default capabilities',
    forbiddenDetail: `${containersPhrase(badContainers)} must not include ${joinQuote(sortedUnique(added))} in securityContext.capabilities.add`,
  };
};

export const procMount: CheckPodFn = (_meta, spec) => {
  const badContainers: string[] = [];
  const types: string[] = [];
  for (const container of allContainers(spec)) {
    const mount = container.securityContext?.procMount;
    if (mount === undefined || mount === null || mount === 'Default') continue;
    badContainers.push(containerName(container));
    types.push(mount);
  }
  if (badContainers.length === 0) return undefined;
  return {
    forbiddenReason: 'procMount',
    forbiddenDetail: `${containersPhrase(badContainers)} must not set securityContext.procMount to ${joinQuote(sortedUnique(types))}`,
  };
};

const SELINUX_TYPES_1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t'];
const SELINUX_TYPES_1_31 = [...SELINUX_TYPES_1_0, 'container_engine_t'];

function seLinuxOptionsCheck(allowedTypes: readonly string[]): CheckPodFn {
  return (_meta, spec) => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (options: SELinuxOptions): boolean => {
      let ok = true;
      const type = options.type ?? '';
      if (!allowedTypes.includes(type)) {
        ok = false;
        badTypes.push(type);
      }
      if (options.user) {
        ok = false;
        setUser = true;
      }
      if (options.role) {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const setters: string[] = [];
    const podOptions = spec.securityContext?.seLinuxOptions;
    if (podOptions && !valid(podOptions)) setters.push('pod');
    const badContainers = allContainers(spec)
      .filter((c) => c.securityContext?.seLinuxOptions && !valid(c.securityContext.seLinuxOptions))
      .map(containerName);
    if (badContainers.length > 0) setters.push(containersPhrase(badContainers));
    if (setters.length === 0) return undefined;

    const problems: string[] = [];
    const types = sortedUnique(badTypes);
    if (types.length > 0) problems.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) problems.push('user may not be set');
    if (setRole) problems.push('role may not be set');
    return {
      forbiddenReason: 'seLinuxOptions',
      forbiddenDetail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${problems.join('; ')}`,
    };
  };
}

export const seLinuxOptions1_0 = seLinuxOptionsCheck(SELINUX_TYPES_1_0);
export const seLinuxOptions1_31 = seLinuxOptionsCheck(SELINUX_TYPES_1_31);

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

export function validSeccompType(type: string | undefined): boolean {
  return type === 'RuntimeDefault' || type === 'Localhost';
}

function validSeccompAnnotation(value: string): boolean {
  return value === 'runtime/default' || value === 'docker/default' || value.startsWith('localhost/');
}

/** Before v1.19 seccomp was only set through the alpha annotations. */
export const seccompProfileBaseline1_0: CheckPodFn = (meta, spec) => {
  const annotations = meta.annotations ?? {};
  const keys = [
    SECCOMP_POD_ANNOTATION,
    ...allContainers(spec).map((c) => SECCOMP_CONTAINER_ANNOTATION_PREFIX + containerName(c)),
  ];
  const forbidden = sortedUnique(
    keys
      .filter((key) => key in annotations && !validSeccompAnnotation(annotations[key]!))
      .map((key) => `${key}=${goQuote(annotations[key]!)}`),
  );
  if (forbidden.length === 0) return undefined;
  return {
    forbiddenReason: 'seccompProfile',
    forbiddenDetail: `forbidden ${pluralize('annotation', 'annotations', forbidden.length)} ${forbidden.join(', ')}`,
  };
};

export const seccompProfileBaseline1_19: CheckPodFn = (_meta, spec) => {
  const setters: string[] = [];
  const badValues: string[] = [];
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile && !validSeccompType(podProfile.type)) {
    setters.push('pod');
    badValues.push(podProfile.type ?? '');
  }
  const badContainers: string[] = [];
  for (const container of allContainers(spec)) {
    const profile = container.securityContext?.seccompProfile;
    if (profile && !validSeccompType(profile.type)) {
      badContainers.push(containerName(container));
      badValues.push(profile.type ?? '');
    }
  }
  if (badContainers.length > 0) setters.push(containersPhrase(badContainers));
  if (setters.length === 0) return undefined;
  return {
    forbiddenReason: 'seccompProfile',
    forbiddenDetail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(badValues))}`,
  };
};

const SYSCTLS_1_0 = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [
  ...SYSCTLS_1_27,
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

function sysctlsCheck(allowed: readonly string[]): CheckPodFn {
  const safe = new Set(allowed);
  return (_meta, spec) => {
    const forbidden = (spec.securityContext?.sysctls ?? [])
      .map((s) => s.name)
      .filter((name) => !safe.has(name));
    if (forbidden.length === 0) return undefined;
    return { forbiddenReason: 'forbidden sysctls', forbiddenDetail: forbidden.join(', ') };
  };
}

export const sysctls1_0 = sysctlsCheck(SYSCTLS_1_0);
export const sysctls1_27 = sysctlsCheck(SYSCTLS_1_27);
export const sysctls1_29 = sysctlsCheck(SYSCTLS_1_29);
export const sysctls1_32 = sysctlsCheck(SYSCTLS_1_32);
