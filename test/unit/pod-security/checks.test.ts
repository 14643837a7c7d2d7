import { describe, expect, it } from 'vitest';
import * as context from '../../../src/apiserver/admission/pod-security/baseline-context-checks.js';
import * as host from '../../../src/apiserver/admission/pod-security/baseline-host-checks.js';
import {
  checksFor,
  evaluatePod,
  formatViolations,
} from '../../../src/apiserver/admission/pod-security/checks.js';
import * as restricted from '../../../src/apiserver/admission/pod-security/restricted-checks.js';
import type {
  CheckPodFn,
  PodMetadataForPolicy,
  PodSpecForPolicy,
} from '../../../src/apiserver/admission/pod-security/types.js';

interface Case {
  name: string;
  check: CheckPodFn;
  spec?: PodSpecForPolicy;
  meta?: PodMetadataForPolicy;
  reason?: string;
  detail?: string;
}

const cases: Case[] = [
  {
    name: 'host namespaces',
    check: host.hostNamespaces,
    spec: { hostNetwork: true, hostPID: true, hostIPC: true },
    reason: 'host namespaces',
    detail: 'hostNetwork=true, hostPID=true, hostIPC=true',
  },
  { name: 'no host namespaces', check: host.hostNamespaces, spec: { hostNetwork: false } },
  {
    name: 'privileged containers',
    check: host.privileged,
    spec: {
      initContainers: [{ name: 'i', securityContext: { privileged: true } }],
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: { privileged: false } },
        { name: 'c', securityContext: { privileged: true } },
      ],
    },
    reason: 'privileged',
    detail: 'containers "i", "c" must not set securityContext.privileged=true',
  },
  {
    name: 'non-default capabilities',
    check: context.capabilitiesBaseline,
    spec: {
      containers: [
        { name: 'a', securityContext: { capabilities: { add: ['CHOWN', 'NET_RAW'] } } },
        { name: 'b', securityContext: { capabilities: { add: ['SYS_ADMIN', 'NET_RAW'] } } },
        { name: 'c', securityContext: { capabilities: { add: ['KILL'] } } },
      ],
    },
    reason: 'non-default capabilities',
    detail: 'containers "a", "b" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add',
  },
  {
    name: 'hostPath volumes',
    check: host.hostPathVolumes,
    spec: {
      volumes: [
        { name: 'a', hostPath: { path: '/' } },
        { name: 'b', emptyDir: {} },
      ],
    },
    reason: 'hostPath volumes',
    detail: 'volume "a"',
  },
  {
    name: 'host ports',
    check: host.hostPorts,
    spec: {
      containers: [
        { name: 'a', ports: [{ containerPort: 80, hostPort: 8080 }] },
        { name: 'b', ports: [{ containerPort: 80 }] },
        { name: 'c', ports: [{ hostPort: 443 }, { hostPort: 8080 }] },
      ],
    },
    reason: 'hostPort',
    detail: 'containers "a", "c" use hostPorts 443, 8080',
  },
  {
    name: 'one host port',
    check: host.hostPorts,
    spec: { containers: [{ name: 'a', ports: [{ hostPort: 53 }] }] },
    reason: 'hostPort',
    detail: 'container "a" uses hostPort 53',
  },
  {
    name: 'AppArmor unconfined pod',
    check: context.appArmorProfile,
    spec: { securityContext: { appArmorProfile: { type: 'Unconfined' } } },
    reason: 'forbidden AppArmor profile',
    detail: 'pod must not set AppArmor profile type to "Unconfined"',
  },
  {
    name: 'AppArmor annotations',
    check: context.appArmorProfile,
    meta: {
      annotations: {
        'container.apparmor.security.beta.kubernetes.io/': 'bogus',
        'container.apparmor.security.beta.kubernetes.io/a': '',
        'container.apparmor.security.beta.kubernetes.io/b': 'runtime/default',
        'container.apparmor.security.beta.kubernetes.io/d': 'localhost/foo',
        'container.apparmor.security.beta.kubernetes.io/f': 'unknown',
        'container.apparmor.security.beta.kubernetes.io/e': 'unconfined',
      },
    },
    reason: 'forbidden AppArmor profiles',
    detail:
      'annotations must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/="bogus"", ' +
      '"container.apparmor.security.beta.kubernetes.io/e="unconfined"", "container.apparmor.security.beta.kubernetes.io/f="unknown""',
  },
  {
    name: 'AppArmor localhost container is allowed',
    check: context.appArmorProfile,
    spec: {
      containers: [
        { name: 'a', securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'p' } } },
      ],
    },
  },
  {
    name: 'SELinux options',
    check: context.seLinuxOptions1_31,
    spec: {
      securityContext: { seLinuxOptions: { type: 'spc_t' } },
      containers: [
        { name: 'a', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } },
        {
          name: 'b',
          securityContext: { seLinuxOptions: { user: 'root', role: 'sysadm_r', type: 'unconfined_t' } },
        },
      ],
    },
    reason: 'seLinuxOptions',
    detail:
      'pod and container "b" set forbidden securityContext.seLinuxOptions: types "spc_t", "unconfined_t"; user may not be set; role may not be set',
  },
  {
    name: 'SELinux container_engine_t before v1.31',
    check: context.seLinuxOptions1_0,
    spec: {
      containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } }],
    },
    reason: 'seLinuxOptions',
    detail: 'container "a" set forbidden securityContext.seLinuxOptions: type "container_engine_t"',
  },
  {
    name: '/proc mount',
    check: context.procMount,
    spec: {
      containers: [
        { name: 'a', securityContext: { procMount: 'Default' } },
        { name: 'b', securityContext: { procMount: 'Unmasked' } },
      ],
    },
    reason: 'procMount',
    detail: 'container "b" must not set securityContext.procMount to "Unmasked"',
  },
  {
    name: 'seccomp baseline',
    check: context.seccompProfileBaseline1_19,
    spec: {
      securityContext: { seccompProfile: { type: 'Unconfined' } },
      containers: [
        { name: 'a', securityContext: { seccompProfile: { type: 'Unconfined' } } },
        { name: 'b', securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
      ],
    },
    reason: 'seccompProfile',
    detail: 'pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined"',
  },
  {
    name: 'seccomp annotations before v1.19',
    check: context.seccompProfileBaseline1_0,
    spec: { containers: [{ name: 'a' }] },
    meta: {
      annotations: {
        'seccomp.security.alpha.kubernetes.io/pod': 'unconfined',
        'container.seccomp.security.alpha.kubernetes.io/a': 'docker/default',
      },
    },
    reason: 'seccompProfile',
    detail: 'forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined"',
  },
  {
    name: 'sysctls',
    check: context.sysctls1_32,
    spec: {
      securityContext: {
        sysctls: [{ name: 'net.ipv4.tcp_rmem' }, { name: 'kernel.msgmax' }, { name: 'net.core.somaxconn' }],
      },
    },
    reason: 'forbidden sysctls',
    detail: 'kernel.msgmax, net.core.somaxconn',
  },
  {
    name: 'sysctls newer than the version',
    check: context.sysctls1_0,
    spec: { securityContext: { sysctls: [{ name: 'net.ipv4.ip_local_reserved_ports' }] } },
    reason: 'forbidden sysctls',
    detail: 'net.ipv4.ip_local_reserved_ports',
  },
  {
    name: 'Windows hostProcess',
    check: host.windowsHostProcess,
    spec: {
      securityContext: { windowsOptions: { hostProcess: true } },
      containers: [
        { name: 'd', securityContext: { windowsOptions: { hostProcess: false } } },
        { name: 'e', securityContext: { windowsOptions: { hostProcess: true } } },
        { name: 'f', securityContext: { windowsOptions: { hostProcess: true } } },
      ],
    },
    reason: 'hostProcess',
    detail: 'pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true',
  },
  {
    name: 'privilege escalation',
    check: restricted.allowPrivilegeEscalation1_25,
    spec: {
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'c', securityContext: { allowPrivilegeEscalation: true } },
        { name: 'd', securityContext: { allowPrivilegeEscalation: false } },
      ],
    },
    reason: 'allowPrivilegeEscalation != false',
    detail: 'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
  },
  {
    name: 'privilege escalation on Windows pods is not checked',
    check: restricted.allowPrivilegeEscalation1_25,
    spec: { os: { name: 'windows' }, containers: [{ name: 'a' }] },
  },
  {
    name: 'unrestricted capabilities',
    check: restricted.capabilitiesRestricted1_25,
    spec: {
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } } },
        { name: 'c', securityContext: { capabilities: { drop: ['NET_RAW'], add: ['SYS_TIME', 'CHOWN'] } } },
      ],
    },
    reason: 'unrestricted capabilities',
    detail:
      'containers "a", "c" must set securityContext.capabilities.drop=["ALL"]; container "c" must not include "CHOWN", "SYS_TIME" in securityContext.capabilities.add',
  },
  {
    name: 'restricted volume types',
    check: restricted.restrictedVolumes,
    spec: {
      volumes: [
        { name: 'cm', configMap: { name: 'x' } },
        { name: 'h', hostPath: { path: '/' } },
        { name: 'n', nfs: { server: 's', path: '/' } },
        { name: 'h2', hostPath: { path: '/tmp' } },
        { name: 'img', image: { reference: 'x' } },
      ],
    },
    reason: 'restricted volume types',
    detail: 'volumes "h", "n", "h2" use restricted volume types "hostPath", "nfs"',
  },
  {
    name: 'one restricted volume with no known source',
    check: restricted.restrictedVolumes,
    spec: { volumes: [{ name: 'x' }] },
    reason: 'restricted volume types',
    detail: 'volume "x" uses restricted volume type "unknown"',
  },
  {
    name: 'runAsNonRoot explicitly false',
    check: restricted.runAsNonRoot,
    spec: {
      securityContext: { runAsNonRoot: false },
      containers: [{ name: 'a', securityContext: { runAsNonRoot: false } }, { name: 'b' }],
    },
    reason: 'runAsNonRoot != true',
    detail: 'pod and container "a" must not set securityContext.runAsNonRoot=false',
  },
  {
    name: 'runAsNonRoot unset',
    check: restricted.runAsNonRoot,
    spec: {
      containers: [{ name: 'a' }, { name: 'b', securityContext: { runAsNonRoot: true } }, { name: 'c' }],
    },
    reason: 'runAsNonRoot != true',
    detail: 'pod or containers "a", "c" must set securityContext.runAsNonRoot=true',
  },
  {
    name: 'runAsNonRoot set on the pod',
    check: restricted.runAsNonRoot,
    spec: { securityContext: { runAsNonRoot: true }, containers: [{ name: 'a' }] },
  },
  {
    name: 'runAsUser=0',
    check: restricted.runAsUser1_23,
    spec: {
      securityContext: { runAsUser: 0 },
      containers: [
        { name: 'a', securityContext: { runAsUser: 0 } },
        { name: 'b', securityContext: { runAsUser: 1000 } },
      ],
    },
    reason: 'runAsUser=0',
    detail: 'pod and container "a" must not set runAsUser=0',
  },
  {
    name: 'seccomp restricted, explicit bad value',
    check: restricted.seccompProfileRestricted1_25,
    spec: {
      containers: [{ name: 'a', securityContext: { seccompProfile: { type: 'Unconfined' } } }, { name: 'b' }],
    },
    reason: 'seccompProfile',
    detail: 'container "a" must not set securityContext.seccompProfile.type to "Unconfined"',
  },
  {
    name: 'seccomp restricted, unset',
    check: restricted.seccompProfileRestricted1_25,
    spec: {
      containers: [{ name: 'a' }, { name: 'b', securityContext: { seccompProfile: { type: 'Localhost' } } }],
    },
    reason: 'seccompProfile',
    detail:
      'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
  },
];

describe('Pod Security checks', () => {
  it.each(cases)('$name', ({ check, spec, meta, reason, detail }) => {
    const result = check(meta ?? {}, spec ?? {});
    if (reason === undefined) expect(result).toBeUndefined();
    else expect(result).toEqual({ forbiddenReason: reason, forbiddenDetail: detail });
  });
});

const compliantRestrictedPod: PodSpecForPolicy = {
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [
    { name: 'c', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } },
  ],
};

describe('evaluatePod', () => {
  it('runs baseline checks sorted by ID, then restricted ones, with overridden baseline checks removed', () => {
    expect(checksFor('baseline').map((c) => c.id)).toEqual([
      'appArmorProfile',
      'capabilities_baseline',
      'hostNamespaces',
      'hostPathVolumes',
      'hostPorts',
      'privileged',
      'procMount',
      'seLinuxOptions',
      'seccompProfile_baseline',
      'sysctls',
      'windowsHostProcess',
    ]);
    expect(checksFor('restricted').map((c) => c.id)).toEqual([
      'appArmorProfile',
      'hostNamespaces',
      'hostPorts',
      'privileged',
      'procMount',
      'seLinuxOptions',
      'sysctls',
      'windowsHostProcess',
      'allowPrivilegeEscalation',
      'capabilities_restricted',
      'restrictedVolumes',
      'runAsNonRoot',
      'runAsUser',
      'seccompProfile_restricted',
    ]);
    expect(checksFor('privileged')).toEqual([]);
  });

  it('keeps the baseline checks a restricted check replaces only from that check’s version on', () => {
    const ids = checksFor('restricted', 18).map((c) => c.id);
    expect(ids).toContain('capabilities_baseline');
    expect(ids).toContain('seccompProfile_baseline');
    expect(ids).not.toContain('runAsUser');
    expect(checksFor('restricted', 7).map((c) => c.id)).not.toContain('allowPrivilegeEscalation');
  });

  it('treats versions beyond the newest check as latest', () => {
    const spec = { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_wmem' }] } };
    expect(evaluatePod('baseline', {}, spec, 99)).toEqual([]);
    expect(evaluatePod('baseline', {}, spec, 31)).toEqual([
      { forbiddenReason: 'forbidden sysctls', forbiddenDetail: 'net.ipv4.tcp_wmem' },
    ]);
  });

  it('baseline allows what only restricted denies', () => {
    const spec: PodSpecForPolicy = {
      containers: [{ name: 'c', image: 'nginx' }],
      volumes: [{ name: 'v', nfs: {} }],
    };
    expect(evaluatePod('baseline', {}, spec)).toEqual([]);
    expect(evaluatePod('restricted', {}, spec).map((v) => v.forbiddenReason)).toEqual([
      'allowPrivilegeEscalation != false',
      'unrestricted capabilities',
      'restricted volume types',
      'runAsNonRoot != true',
      'seccompProfile',
    ]);
  });

  it('passes a pod that follows the restricted profile, at every level', () => {
    for (const level of ['privileged', 'baseline', 'restricted'] as const) {
      expect(evaluatePod(level, {}, compliantRestrictedPod)).toEqual([]);
    }
  });

  it('reports a hostPath volume once at restricted, as a restricted volume type', () => {
    const spec = { ...compliantRestrictedPod, volumes: [{ name: 'h', hostPath: { path: '/' } }] };
    expect(evaluatePod('restricted', {}, spec)).toEqual([
      {
        forbiddenReason: 'restricted volume types',
        forbiddenDetail: 'volume "h" uses restricted volume type "hostPath"',
      },
    ]);
    expect(evaluatePod('baseline', {}, spec)).toEqual([
      { forbiddenReason: 'hostPath volumes', forbiddenDetail: 'volume "h"' },
    ]);
  });

  it('formats violations as "reason (detail)" joined by commas', () => {
    expect(
      formatViolations([
        { forbiddenReason: 'a', forbiddenDetail: 'x' },
        { forbiddenReason: '', forbiddenDetail: '' },
      ]),
    ).toBe('a (x), unknown forbidden reason');
  });
});
