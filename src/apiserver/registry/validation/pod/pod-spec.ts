// ValidatePodSpec: a pod's spec, whether in a Pod or in a template of a workload.

import { utf8Length } from '../../../../api/selectors/go-text.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import { validateIp } from '../ip.js';
import {
  arrayOf,
  fieldsOf,
  isJsonObject,
  isSet,
  type JsonObject,
  numberOf,
  objectOf,
  objectsOf,
  optionalBoolean,
  optionalNumber,
  optionalString,
  stringOf,
  stringsOf,
} from '../json.js';
import {
  inclusiveRangeMessage,
  isDns1123Label,
  isQualifiedName,
  isValidGroupId,
  isValidUserId,
  nameIsDnsSubdomain,
} from '../names.js';
import { fieldDuplicate, validateLabels } from '../object-meta.js';
import { validateContainerResources } from '../resources.js';
import {
  validateAppArmorProfile,
  validateSeccompProfile,
  validateWindowsOptions,
} from './container-parts.js';
import {
  type ContainerContext,
  validateContainers,
  validateEphemeralContainers,
  validateInitContainers,
} from './containers.js';
import { validateAffinity, validateTolerations, validateTopologySpreadConstraints } from './scheduling.js';
import { validateVolumes } from './volumes.js';

export interface PodSpecValidationOptions {
  /** A Pod, not a template: host ports must equal container ports with hostNetwork, image volumes need a reference. */
  resourceIsPod: boolean;
  /** The pod's name, for generic ephemeral volume claim names (pods only). */
  podName?: string;
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];
const MAX_INT32 = 2147483647;

function validateEnum(value: string, allowed: readonly string[], path: string): FieldError[] {
  if (allowed.includes(value)) return [];
  if (value === '') return [fieldRequired(path, '')];
  return [fieldNotSupported(path, value, allowed)];
}

function validateResourceClaims(claims: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  objectsOf(claims).forEach((claim, index) => {
    const itemPath = indexPath(path, index);
    const name = stringOf(claim.name);
    if (name === '') errors.push(fieldRequired(childPath(itemPath, 'name'), ''));
    else if (names.has(name)) errors.push(fieldDuplicate(childPath(itemPath, 'name'), name));
    else {
      for (const problem of isDns1123Label(name))
        errors.push(fieldInvalid(childPath(itemPath, 'name'), name, problem));
      names.add(name);
    }
    const claimName = optionalString(claim.resourceClaimName);
    const templateName = optionalString(claim.resourceClaimTemplateName);
    if (claimName !== undefined && templateName !== undefined) {
      errors.push(
        fieldInvalid(
          itemPath,
          claim,
          'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified',
        ),
      );
    }
    if (claimName === undefined && templateName === undefined) {
      errors.push(
        fieldInvalid(
          itemPath,
          claim,
          'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
        ),
      );
    }
    if (claimName !== undefined) {
      for (const problem of nameIsDnsSubdomain(claimName, false)) {
        errors.push(fieldInvalid(childPath(itemPath, 'resourceClaimName'), claimName, problem));
      }
    }
    if (templateName !== undefined) {
      for (const problem of nameIsDnsSubdomain(templateName, false)) {
        errors.push(fieldInvalid(childPath(itemPath, 'resourceClaimTemplateName'), templateName, problem));
      }
    }
  });
  return errors;
}

const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_NAME = new RegExp(`^(${SYSCTL_SEGMENT}[\\./])*${SYSCTL_SEGMENT}$`);
// Sysctls that belong to the network or IPC namespace (utilsysctl.GetNamespace).
const NET_SYSCTL_PREFIXES = ['net.'];
const IPC_SYSCTLS = [
  'kernel.shmall',
  'kernel.shmmax',
  'kernel.shmmni',
  'kernel.shm_rmid_forced',
  'kernel.msgmax',
  'kernel.msgmnb',
  'kernel.msgmni',
  'kernel.sem',
];

function sysctlNamespace(name: string): 'net' | 'ipc' | undefined {
  const normalized = name.replaceAll('/', '.');
  if (NET_SYSCTL_PREFIXES.some((prefix) => normalized.startsWith(prefix))) return 'net';
  if (IPC_SYSCTLS.includes(normalized) || normalized.startsWith('fs.mqueue.')) return 'ipc';
  return undefined;
}

function validatePodSecurityContext(spec: JsonObject, path: string): FieldError[] {
  const context = objectOf(spec.securityContext);
  if (context === undefined) return [];
  const errors: FieldError[] = [];
  const fsGroup = optionalNumber(context.fsGroup);
  if (fsGroup !== undefined)
    for (const problem of isValidGroupId(fsGroup))
      errors.push(fieldInvalid(childPath(path, 'fsGroup'), fsGroup, problem));
  const runAsUser = optionalNumber(context.runAsUser);
  if (runAsUser !== undefined) {
    for (const problem of isValidUserId(runAsUser))
      errors.push(fieldInvalid(childPath(path, 'runAsUser'), runAsUser, problem));
  }
  const runAsGroup = optionalNumber(context.runAsGroup);
  if (runAsGroup !== undefined) {
    for (const problem of isValidGroupId(runAsGroup))
      errors.push(fieldInvalid(childPath(path, 'runAsGroup'), runAsGroup, problem));
  }
  arrayOf(context.supplementalGroups).forEach((group, index) => {
    const id = numberOf(group);
    for (const problem of isValidGroupId(id))
      errors.push(fieldInvalid(indexPath(childPath(path, 'supplementalGroups'), index), id, problem));
  });
  if (spec.hostPID === true && context.shareProcessNamespace === true) {
    errors.push(
      fieldInvalid(
        childPath(path, 'shareProcessNamespace'),
        true,
        'ShareProcessNamespace and HostPID cannot both be enabled',
      ),
    );
  }
  const sysctlsPath = childPath(path, 'sysctls');
  const sysctlNames = new Set<string>();
  objectsOf(context.sysctls).forEach((sysctl, index) => {
    const namePath = childPath(indexPath(sysctlsPath, index), 'name');
    const name = stringOf(sysctl.name);
    if (name === '') errors.push(fieldRequired(namePath, ''));
    else if (utf8Length(name) > 253 || !SYSCTL_NAME.test(name)) {
      errors.push(
        fieldInvalid(
          namePath,
          name,
          `must have at most 253 characters and match regex ${SYSCTL_NAME.source}`,
        ),
      );
    } else if (sysctlNames.has(name)) errors.push(fieldDuplicate(namePath, name));
    const namespace = sysctlNamespace(name);
    if (spec.hostNetwork === true && namespace === 'net') {
      errors.push(fieldInvalid(namePath, name, "may not be specified when 'hostNetwork' is true"));
    } else if (spec.hostIPC === true && namespace === 'ipc') {
      errors.push(fieldInvalid(namePath, name, "may not be specified when 'hostIPC' is true"));
    }
    sysctlNames.add(name);
  });
  const fsGroupChangePolicy = optionalString(context.fsGroupChangePolicy);
  if (fsGroupChangePolicy !== undefined && !['Always', 'OnRootMismatch'].includes(fsGroupChangePolicy)) {
    errors.push(
      fieldNotSupported(childPath(path, 'fsGroupChangePolicy'), fsGroupChangePolicy, [
        'Always',
        'OnRootMismatch',
      ]),
    );
  }
  errors.push(...validateSeccompProfile(context.seccompProfile, childPath(path, 'seccompProfile')));
  errors.push(...validateWindowsOptions(context.windowsOptions, childPath(path, 'windowsOptions')));
  errors.push(...validateAppArmorProfile(context.appArmorProfile, childPath(path, 'appArmorProfile')));
  const supplementalPolicy = optionalString(context.supplementalGroupsPolicy);
  if (supplementalPolicy !== undefined && !['Merge', 'Strict'].includes(supplementalPolicy)) {
    errors.push(
      fieldNotSupported(childPath(path, 'supplementalGroupsPolicy'), supplementalPolicy, ['Merge', 'Strict']),
    );
  }
  const changePolicy = optionalString(context.seLinuxChangePolicy);
  if (changePolicy !== undefined && !['MountOption', 'Recursive'].includes(changePolicy)) {
    errors.push(
      fieldNotSupported(childPath(path, 'seLinuxChangePolicy'), changePolicy, ['MountOption', 'Recursive']),
    );
  }
  return errors;
}

function validateDnsConfig(spec: JsonObject, path: string): FieldError[] {
  const config = objectOf(spec.dnsConfig);
  if (stringOf(spec.dnsPolicy) === 'None') {
    if (config === undefined)
      return [fieldRequired(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (arrayOf(config.nameservers).length === 0) {
      return [
        fieldRequired(
          childPath(path, 'nameservers'),
          'must provide at least one DNS nameserver when `dnsPolicy` is None',
        ),
      ];
    }
  }
  if (config === undefined) return [];
  const errors: FieldError[] = [];
  const nameservers = stringsOf(config.nameservers);
  if (nameservers.length > 3) {
    errors.push(
      fieldInvalid(childPath(path, 'nameservers'), nameservers, 'must not have more than 3 nameservers'),
    );
  }
  nameservers.forEach((server, index) => {
    errors.push(...validateIp(indexPath(childPath(path, 'nameservers'), index), server));
  });
  const searches = stringsOf(config.searches);
  if (searches.length > 32)
    errors.push(
      fieldInvalid(childPath(path, 'searches'), searches, 'must not have more than 32 search paths'),
    );
  if (utf8Length(searches.join(' ')) > 2048) {
    errors.push(
      fieldInvalid(
        childPath(path, 'searches'),
        searches,
        'must not have more than 2048 characters (including spaces) in the search list',
      ),
    );
  }
  // RelaxedDNSSearchValidation is on in 1.33: '.' alone and underscores are allowed.
  searches.forEach((search, index) => {
    if (search === '.') return;
    const trimmed = search.endsWith('.') ? search.slice(0, -1) : search;
    for (const problem of subdomainWithUnderscoreProblems(trimmed)) {
      errors.push(fieldInvalid(indexPath(childPath(path, 'searches'), index), trimmed, problem));
    }
  });
  objectsOf(config.options).forEach((option, index) => {
    if (stringOf(option.name) === '')
      errors.push(fieldRequired(indexPath(childPath(path, 'options'), index), 'must not be empty'));
  });
  return errors;
}

const UNDERSCORE_LABEL = '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const UNDERSCORE_SUBDOMAIN = new RegExp(`^${UNDERSCORE_LABEL}(\\.${UNDERSCORE_LABEL})*$`);

function subdomainWithUnderscoreProblems(value: string): string[] {
  const problems: string[] = [];
  if (utf8Length(value) > 253) problems.push('must be no more than 253 characters');
  if (!UNDERSCORE_SUBDOMAIN.test(value)) {
    problems.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return problems;
}

function validateHostNetworkPorts(spec: JsonObject, path: string, resourceIsPod: boolean): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errors: FieldError[] = [];
  objectsOf(spec.containers).forEach((container, index) => {
    objectsOf(container.ports).forEach((port, portIndex) => {
      const hostPort = numberOf(port.hostPort);
      if ((resourceIsPod || hostPort !== 0) && hostPort !== numberOf(port.containerPort)) {
        const portPath = indexPath(
          childPath(indexPath(childPath(path, 'containers'), index), 'ports'),
          portIndex,
        );
        errors.push(
          fieldInvalid(
            childPath(portPath, 'hostPort'),
            hostPort,
            'must match `containerPort` when `hostNetwork` is true',
          ),
        );
      }
    });
  });
  return errors;
}

function allContainers(spec: JsonObject, path: string): Array<{ container: JsonObject; path: string }> {
  const result: Array<{ container: JsonObject; path: string }> = [];
  for (const key of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
    objectsOf(spec[key]).forEach((container, index) => {
      result.push({ container, path: indexPath(childPath(path, key), index) });
    });
  }
  return result;
}

function validateOs(spec: JsonObject, path: string): FieldError[] {
  const os = objectOf(spec.os);
  if (os === undefined) return [];
  const osPath = childPath(path, 'os');
  const name = stringOf(os.name);
  if (name === '') return [fieldRequired(childPath(osPath, 'name'), 'cannot be empty')];
  if (name !== 'linux' && name !== 'windows') return [fieldNotSupported(osPath, name, ['linux', 'windows'])];
  const errors: FieldError[] = [];
  const podContext = fieldsOf(spec.securityContext);
  if (name === 'linux') {
    if (isSet(podContext.windowsOptions)) {
      errors.push(
        fieldForbidden(
          childPath(childPath(path, 'securityContext'), 'windowsOptions'),
          'windows options cannot be set for a linux pod',
        ),
      );
    }
    for (const { container, path: containerPath } of allContainers(spec, path)) {
      if (isSet(fieldsOf(container.securityContext).windowsOptions)) {
        errors.push(
          fieldForbidden(
            childPath(childPath(containerPath, 'securityContext'), 'windowsOptions'),
            'windows options cannot be set for a linux pod',
          ),
        );
      }
    }
    return errors;
  }
  const windowsMessage = 'cannot be set for a windows pod';
  const contextPath = childPath(path, 'securityContext');
  const podChecks: Array<[string, boolean, string]> = [
    ['appArmorProfile', isSet(podContext.appArmorProfile), childPath(contextPath, 'appArmorProfile')],
    ['seLinuxOptions', isSet(podContext.seLinuxOptions), childPath(contextPath, 'seLinuxOptions')],
    ['hostUsers', isSet(spec.hostUsers), childPath(path, 'hostUsers')],
    ['hostPID', spec.hostPID === true, childPath(path, 'hostPID')],
    ['hostIPC', spec.hostIPC === true, childPath(path, 'hostIPC')],
    ['seccompProfile', isSet(podContext.seccompProfile), childPath(contextPath, 'seccompProfile')],
    ['fsGroup', isSet(podContext.fsGroup), childPath(contextPath, 'fsGroup')],
    [
      'fsGroupChangePolicy',
      isSet(podContext.fsGroupChangePolicy),
      childPath(contextPath, 'fsGroupChangePolicy'),
    ],
    ['sysctls', arrayOf(podContext.sysctls).length > 0, childPath(contextPath, 'sysctls')],
    ['shareProcessNamespace', isSet(spec.shareProcessNamespace), childPath(path, 'shareProcessNamespace')],
    ['runAsUser', isSet(podContext.runAsUser), childPath(contextPath, 'runAsUser')],
    ['runAsGroup', isSet(podContext.runAsGroup), childPath(contextPath, 'runAsGroup')],
    [
      'supplementalGroups',
      isSet(podContext.supplementalGroups),
      childPath(contextPath, 'supplementalGroups'),
    ],
    [
      'supplementalGroupsPolicy',
      isSet(podContext.supplementalGroupsPolicy),
      childPath(contextPath, 'supplementalGroupsPolicy'),
    ],
    [
      'seLinuxChangePolicy',
      isSet(podContext.seLinuxChangePolicy),
      childPath(contextPath, 'seLinuxChangePolicy'),
    ],
  ];
  for (const [, set, fieldPath] of podChecks) if (set) errors.push(fieldForbidden(fieldPath, windowsMessage));
  const containerFields = [
    'appArmorProfile',
    'seLinuxOptions',
    'seccompProfile',
    'capabilities',
    'readOnlyRootFilesystem',
    'privileged',
    'allowPrivilegeEscalation',
    'procMount',
    'runAsUser',
    'runAsGroup',
  ];
  for (const { container, path: containerPath } of allContainers(spec, path)) {
    const context = objectOf(container.securityContext);
    if (context === undefined) continue;
    for (const key of containerFields) {
      if (isSet(context[key]))
        errors.push(
          fieldForbidden(childPath(childPath(containerPath, 'securityContext'), key), windowsMessage),
        );
    }
  }
  return errors;
}

function validateHostUsers(spec: JsonObject, path: string): FieldError[] {
  if (optionalBoolean(spec.hostUsers) !== false) return [];
  const errors: FieldError[] = [];
  const message = 'when `pod.Spec.HostUsers` is false';
  if (spec.hostNetwork === true) errors.push(fieldForbidden(childPath(path, 'hostNetwork'), message));
  if (spec.hostPID === true) errors.push(fieldForbidden(childPath(path, 'HostPID'), message));
  if (spec.hostIPC === true) errors.push(fieldForbidden(childPath(path, 'HostIPC'), message));
  return errors;
}

/** ValidatePodSpec. */
export function validatePodSpec(
  spec: unknown,
  path: string,
  options: PodSpecValidationOptions,
): FieldError[] {
  const fields = fieldsOf(spec);
  const errors: FieldError[] = [];
  const gracePeriod = optionalNumber(fields.terminationGracePeriodSeconds);
  if (gracePeriod === undefined)
    errors.push(fieldRequired(childPath(path, 'terminationGracePeriodSeconds'), ''));
  const hostUsers = optionalBoolean(fields.hostUsers) !== false;
  const volumes = validateVolumes(fields.volumes, options.podName, childPath(path, 'volumes'), {
    resourceIsPod: options.resourceIsPod,
  });
  errors.push(...volumes.errors);
  const podClaimNames = new Set(
    objectsOf(fields.resourceClaims)
      .map((claim) => stringOf(claim.name))
      .filter((name) => name !== ''),
  );
  errors.push(...validateResourceClaims(fields.resourceClaims, childPath(path, 'resourceClaims')));
  const context: ContainerContext = {
    volumes: volumes.volumes,
    podClaimNames,
    gracePeriod,
    podRestartPolicy: stringOf(fields.restartPolicy),
    hostUsers,
  };
  errors.push(...validateContainers(fields.containers, context, childPath(path, 'containers')));
  errors.push(
    ...validateInitContainers(
      fields.initContainers,
      fields.containers,
      context,
      childPath(path, 'initContainers'),
    ),
  );
  errors.push(
    ...validateEphemeralContainers(
      fields.ephemeralContainers,
      fields.containers,
      fields.initContainers,
      context,
      childPath(path, 'ephemeralContainers'),
    ),
  );
  errors.push(...validateHostNetworkPorts(fields, path, options.resourceIsPod));
  errors.push(
    ...validateEnum(stringOf(fields.restartPolicy), RESTART_POLICIES, childPath(path, 'restartPolicy')),
  );
  errors.push(...validateEnum(stringOf(fields.dnsPolicy), DNS_POLICIES, childPath(path, 'dnsPolicy')));
  errors.push(...validateLabels(fields.nodeSelector, childPath(path, 'nodeSelector')));
  errors.push(...validatePodSecurityContext(fields, childPath(path, 'securityContext')));
  errors.push(...validateAffinity(fields.affinity, childPath(path, 'affinity')));
  errors.push(...validateDnsConfig(fields, childPath(path, 'dnsConfig')));
  objectsOf(fields.readinessGates).forEach((gate, index) => {
    const gatePath = childPath(indexPath(childPath(path, 'readinessGates'), index), 'conditionType');
    const type = stringOf(gate.conditionType);
    for (const problem of isQualifiedName(type)) errors.push(fieldInvalid(gatePath, type, problem));
  });
  const gateNames = new Set<string>();
  objectsOf(fields.schedulingGates).forEach((gate, index) => {
    const gatePath = indexPath(childPath(path, 'schedulingGates'), index);
    const name = stringOf(gate.name);
    for (const problem of isQualifiedName(name)) errors.push(fieldInvalid(gatePath, name, problem));
    if (gateNames.has(name)) errors.push(fieldDuplicate(gatePath, name));
    gateNames.add(name);
  });
  errors.push(
    ...validateTopologySpreadConstraints(
      fields.topologySpreadConstraints,
      childPath(path, 'topologySpreadConstraints'),
    ),
  );
  errors.push(...validateHostUsers(fields, path));
  const checkName = (key: string) => {
    const value = stringOf(fields[key]);
    if (value === '') return;
    for (const problem of nameIsDnsSubdomain(value, false))
      errors.push(fieldInvalid(childPath(path, key), value, problem));
  };
  checkName('serviceAccountName');
  checkName('nodeName');
  const deadline = optionalNumber(fields.activeDeadlineSeconds);
  if (deadline !== undefined && (deadline < 1 || deadline > MAX_INT32)) {
    errors.push(
      fieldInvalid(childPath(path, 'activeDeadlineSeconds'), deadline, inclusiveRangeMessage(1, MAX_INT32)),
    );
  }
  for (const key of ['hostname', 'subdomain'] as const) {
    const value = stringOf(fields[key]);
    if (value !== '')
      for (const problem of isDns1123Label(value))
        errors.push(fieldInvalid(childPath(path, key), value, problem));
  }
  errors.push(...validateTolerations(fields.tolerations, childPath(path, 'tolerations')));
  objectsOf(fields.hostAliases).forEach((alias, index) => {
    const aliasPath = indexPath(childPath(path, 'hostAliases'), index);
    errors.push(...validateIp(childPath(aliasPath, 'ip'), stringOf(alias.ip)));
    stringsOf(alias.hostnames).forEach((hostname, hostIndex) => {
      for (const problem of nameIsDnsSubdomain(hostname, false)) {
        errors.push(fieldInvalid(indexPath(childPath(aliasPath, 'hostnames'), hostIndex), hostname, problem));
      }
    });
  });
  checkName('priorityClassName');
  const runtimeClass = optionalString(fields.runtimeClassName);
  if (runtimeClass !== undefined) {
    for (const problem of nameIsDnsSubdomain(runtimeClass, false)) {
      errors.push(fieldInvalid(childPath(path, 'runtimeClassName'), runtimeClass, problem));
    }
  }
  const preemption = optionalString(fields.preemptionPolicy);
  if (preemption !== undefined)
    errors.push(...validateEnum(preemption, PREEMPTION_POLICIES, childPath(path, 'preemptionPolicy')));
  if (isJsonObject(fields.overhead)) {
    errors.push(
      ...validateContainerResources({ limits: fields.overhead }, new Set(), childPath(path, 'overhead')),
    );
  }
  errors.push(...validateOs(fields, path));
  return errors;
}
