/** Restricted-level checks: privilege escalation, capabilities, volume types, non-root, seccomp. */

import { validSeccompType } from './baseline-context-checks.js';
import {
  allContainers,
  containerName,
  containersPhrase,
  isWindowsPod,
  joinQuote,
  pluralize,
  sortedUnique,
} from './text.js';
import type { CheckPodFn } from './types.js';

/** From v1.25 on, Windows pods skip the Linux-only checks: validation forbids those fields for them. */
function skipWindows(check: CheckPodFn): CheckPodFn {
  return (meta, spec) => (isWindowsPod(spec) ? undefined : check(meta, spec));
}

export const allowPrivilegeEscalation1_8: CheckPodFn = (_meta, spec) => {
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.allowPrivilegeEscalation !== false)
    .map(containerName);
  if (bad.length === 0) return undefined;
  return {
    forbiddenReason: 'allowPrivilegeEscalation != false',
    forbiddenDetail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`,
  };
};
export const allowPrivilegeEscalation1_25 = skipWindows(allowPrivilegeEscalation1_8);

export const capabilitiesRestricted1_22: CheckPodFn = (_meta, spec) => {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbidden: string[] = [];
  for (const container of allContainers(spec)) {
    const capabilities = container.securityContext?.capabilities;
    if (!capabilities) {
      missingDropAll.push(containerName(container));
      continue;
    }
    if (!(capabilities.drop ?? []).includes('ALL')) missingDropAll.push(containerName(container));
    const extra = (capabilities.add ?? []).filter((c) => c !== 'NET_BIND_SERVICE');
    if (extra.length > 0) {
      addingForbidden.push(containerName(container));
      forbidden.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) {
    details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  }
  if (addingForbidden.length > 0) {
    details.push(
      `${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedUnique(forbidden))} in securityContext.capabilities.add`,
    );
  }
  if (details.length === 0) return undefined;
  return { forbiddenReason: 'unrestricted capabilities', forbiddenDetail: details.join('; ') };
};
export const capabilitiesRestricted1_25 = skipWindows(capabilitiesRestricted1_22);

const ALLOWED_VOLUME_SOURCES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
];
/** Named in messages in this order of precedence when a volume somehow sets several. */
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];

export const restrictedVolumes: CheckPodFn = (_meta, spec) => {
  const badVolumes: string[] = [];
  const badTypes: string[] = [];
  for (const volume of spec.volumes ?? []) {
    if (ALLOWED_VOLUME_SOURCES.some((source) => volume[source] != null)) continue;
    badVolumes.push(volume.name ?? '');
    badTypes.push(RESTRICTED_VOLUME_SOURCES.find((source) => volume[source] != null) ?? 'unknown');
  }
  if (badVolumes.length === 0) return undefined;
  const types = sortedUnique(badTypes);
  return {
    forbiddenReason: 'restricted volume types',
    forbiddenDetail: [
      pluralize('volume', 'volumes', badVolumes.length),
      joinQuote(badVolumes),
      pluralize('uses', 'use', badVolumes.length),
      pluralize('restricted volume type', 'restricted volume types', types.length),
      joinQuote(types),
    ].join(' '),
  };
};

export const runAsNonRoot: CheckPodFn = (_meta, spec) => {
  const setters: string[] = [];
  const podValue = spec.securityContext?.runAsNonRoot;
  if (podValue === false) setters.push('pod');
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const container of allContainers(spec)) {
    const value = container.securityContext?.runAsNonRoot;
    if (value === false) explicitlyBad.push(containerName(container));
    else if (value == null && podValue !== true) implicitlyBad.push(containerName(container));
  }
  if (explicitlyBad.length > 0) setters.push(containersPhrase(explicitlyBad));
  if (setters.length > 0) {
    return {
      forbiddenReason: 'runAsNonRoot != true',
      forbiddenDetail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`,
    };
  }
  if (implicitlyBad.length === 0) return undefined;
  return {
    forbiddenReason: 'runAsNonRoot != true',
    forbiddenDetail: `pod or ${containersPhrase(implicitlyBad)} must set securityContext.runAsNonRoot=true`,
  };
};

export const runAsUser1_23: CheckPodFn = (_meta, spec) => {
  const setters: string[] = [];
  if (spec.securityContext?.runAsUser === 0) setters.push('pod');
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.runAsUser === 0)
    .map(containerName);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return undefined;
  return {
    forbiddenReason: 'runAsUser=0',
    forbiddenDetail: `${setters.join(' and ')} must not set runAsUser=0`,
  };
};

export const seccompProfileRestricted1_19: CheckPodFn = (_meta, spec) => {
  const setters: string[] = [];
  const badValues: string[] = [];
  const podProfile = spec.securityContext?.seccompProfile;
  let podValid = false;
  if (podProfile) {
    if (validSeccompType(podProfile.type)) podValid = true;
    else {
      setters.push('pod');
      badValues.push(podProfile.type ?? '');
    }
  }
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const container of allContainers(spec)) {
    const profile = container.securityContext?.seccompProfile;
    if (profile) {
      if (!validSeccompType(profile.type)) {
        explicitlyBad.push(containerName(container));
        badValues.push(profile.type ?? '');
      }
    } else if (!podValid) {
      implicitlyBad.push(containerName(container));
    }
  }
  if (explicitlyBad.length > 0) setters.push(containersPhrase(explicitlyBad));
  if (setters.length > 0) {
    return {
      forbiddenReason: 'seccompProfile',
      forbiddenDetail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(badValues))}`,
    };
  }
  if (implicitlyBad.length === 0) return undefined;
  return {
    forbiddenReason: 'seccompProfile',
    forbiddenDetail: `pod or ${containersPhrase(implicitlyBad)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
  };
};
export const seccompProfileRestricted1_25 = skipWindows(seccompProfileRestricted1_19);
