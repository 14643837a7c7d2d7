// Pieces of a container: ports, env, envFrom, volume mounts and devices, probes, lifecycle
// handlers, and the security context.

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
import { GoRendered } from '../go-rendered.js';
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
  isConfigMapKey,
  isHttpHeaderName,
  isRelaxedEnvVarName,
  isValidGroupId,
  isValidPortName,
  isValidPortNumber,
  isValidUserId,
  nameIsDnsSubdomain,
} from '../names.js';
import { fieldDuplicate, fieldNotFound, fieldTooLong, validateNonnegative } from '../object-meta.js';
import {
  ENV_FIELD_PATHS,
  validateObjectFieldSelector,
  validateResourceFieldSelector,
} from './field-selectors.js';
import { validateLocalDescendingPath, validatePathNoBacksteps } from './paths.js';
import type { ValidVolumes } from './volumes.js';

export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** validateContainerPorts. */
export function validateContainerPorts(ports: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  objectsOf(ports).forEach((port, index) => {
    const portPath = indexPath(path, index);
    const name = stringOf(port.name);
    if (name !== '') {
      const problems = isValidPortName(name);
      if (problems.length > 0) {
        for (const problem of problems) errors.push(fieldInvalid(childPath(portPath, 'name'), name, problem));
      } else if (names.has(name)) {
        errors.push(fieldDuplicate(childPath(portPath, 'name'), name));
      } else {
        names.add(name);
      }
    }
    const containerPort = numberOf(port.containerPort);
    if (containerPort === 0) errors.push(fieldRequired(childPath(portPath, 'containerPort'), ''));
    else {
      for (const problem of isValidPortNumber(containerPort)) {
        errors.push(fieldInvalid(childPath(portPath, 'containerPort'), containerPort, problem));
      }
    }
    const hostPort = numberOf(port.hostPort);
    if (hostPort !== 0) {
      for (const problem of isValidPortNumber(hostPort))
        errors.push(fieldInvalid(childPath(portPath, 'hostPort'), hostPort, problem));
    }
    const protocol = stringOf(port.protocol);
    if (protocol === '') errors.push(fieldRequired(childPath(portPath, 'protocol'), ''));
    else if (!PROTOCOLS.includes(protocol))
      errors.push(fieldNotSupported(childPath(portPath, 'protocol'), protocol, PROTOCOLS));
  });
  return errors;
}

function validateKeySelector(selector: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringOf(selector.name);
  for (const problem of nameIsDnsSubdomain(name, false))
    errors.push(fieldInvalid(childPath(path, 'name'), name, problem));
  const key = stringOf(selector.key);
  if (key === '') errors.push(fieldRequired(childPath(path, 'key'), ''));
  else
    for (const problem of isConfigMapKey(key))
      errors.push(fieldInvalid(childPath(path, 'key'), key, problem));
  return errors;
}

function validateEnvValueFrom(variable: JsonObject, path: string): FieldError[] {
  const from = objectOf(variable.valueFrom);
  if (from === undefined) return [];
  const errors: FieldError[] = [];
  let sources = 0;
  if (isSet(from.fieldRef)) {
    sources++;
    errors.push(...validateObjectFieldSelector(from.fieldRef, ENV_FIELD_PATHS, childPath(path, 'fieldRef')));
  }
  if (isSet(from.resourceFieldRef)) {
    sources++;
    errors.push(
      ...validateResourceFieldSelector(from.resourceFieldRef, childPath(path, 'resourceFieldRef'), false),
    );
  }
  if (isSet(from.configMapKeyRef)) {
    sources++;
    errors.push(...validateKeySelector(fieldsOf(from.configMapKeyRef), childPath(path, 'configMapKeyRef')));
  }
  if (isSet(from.secretKeyRef)) {
    sources++;
    errors.push(...validateKeySelector(fieldsOf(from.secretKeyRef), childPath(path, 'secretKeyRef')));
  }
  if (sources === 0) {
    errors.push(
      fieldInvalid(
        path,
        '',
        'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      ),
    );
  } else if (stringOf(variable.value) !== '') {
    errors.push(fieldInvalid(path, '', 'may not be specified when `value` is not empty'));
  } else if (sources > 1) {
    errors.push(fieldInvalid(path, '', 'may not have more than one field specified at a time'));
  }
  return errors;
}

/** ValidateEnv (the relaxed name rule is on by default in 1.33). */
export function validateEnv(env: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  objectsOf(env).forEach((variable, index) => {
    const itemPath = indexPath(path, index);
    const name = stringOf(variable.name);
    if (name === '') errors.push(fieldRequired(childPath(itemPath, 'name'), ''));
    else
      for (const problem of isRelaxedEnvVarName(name))
        errors.push(fieldInvalid(childPath(itemPath, 'name'), name, problem));
    errors.push(...validateEnvValueFrom(variable, childPath(itemPath, 'valueFrom')));
  });
  return errors;
}

/** ValidateEnvFrom. */
export function validateEnvFrom(sources: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  objectsOf(sources).forEach((source, index) => {
    const itemPath = indexPath(path, index);
    const prefix = stringOf(source.prefix);
    if (prefix !== '') {
      for (const problem of isRelaxedEnvVarName(prefix))
        errors.push(fieldInvalid(childPath(itemPath, 'prefix'), prefix, problem));
    }
    let count = 0;
    for (const kind of ['configMapRef', 'secretRef'] as const) {
      const reference = objectOf(source[kind]);
      if (reference === undefined) continue;
      count++;
      const name = stringOf(reference.name);
      const namePath = childPath(childPath(itemPath, kind), 'name');
      if (name === '') errors.push(fieldRequired(namePath, ''));
      else
        for (const problem of nameIsDnsSubdomain(name, true))
          errors.push(fieldInvalid(namePath, name, problem));
    }
    if (count === 0)
      errors.push(fieldInvalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (count > 1)
      errors.push(fieldInvalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errors;
}

const MOUNT_PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
const RECURSIVE_READ_ONLY = ['Disabled', 'Enabled', 'IfPossible'];

/** ValidateVolumeMounts (some paths are the list's, not the item's, exactly as in Kubernetes). */
export function validateVolumeMounts(
  mounts: unknown,
  devices: ReadonlyMap<string, string>,
  volumes: ValidVolumes,
  container: JsonObject,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const mountPoints = new Set<string>();
  const devicePaths = new Set(devices.values());
  objectsOf(mounts).forEach((mount, index) => {
    const itemPath = indexPath(path, index);
    const name = stringOf(mount.name);
    const mountPath = stringOf(mount.mountPath);
    if (name === '') errors.push(fieldRequired(childPath(itemPath, 'name'), ''));
    if (!volumes.has(name)) errors.push(fieldNotFound(childPath(itemPath, 'name'), name));
    if (mountPath === '') errors.push(fieldRequired(childPath(itemPath, 'mountPath'), ''));
    if (mountPoints.has(mountPath))
      errors.push(fieldInvalid(childPath(itemPath, 'mountPath'), mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    if (devices.has(name))
      errors.push(fieldInvalid(childPath(itemPath, 'name'), name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) {
      errors.push(
        fieldInvalid(
          childPath(itemPath, 'mountPath'),
          mountPath,
          'must not already exist as a path in volumeDevices',
        ),
      );
    }
    const subPath = stringOf(mount.subPath);
    const subPathExpr = stringOf(mount.subPathExpr);
    if (volumes.get(name)?.kind === 'image') {
      if (subPath !== '')
        errors.push(
          fieldInvalid(childPath(itemPath, 'subPath'), subPath, 'not allowed in image volume sources'),
        );
      if (subPathExpr !== '') {
        errors.push(
          fieldInvalid(
            childPath(itemPath, 'subPathExpr'),
            subPathExpr,
            'not allowed in image volume sources',
          ),
        );
      }
    }
    if (subPath !== '') errors.push(...validateLocalDescendingPath(subPath, childPath(path, 'subPath')));
    if (subPathExpr !== '') {
      if (subPath !== '') {
        errors.push(
          fieldInvalid(
            childPath(itemPath, 'subPathExpr'),
            subPathExpr,
            'subPathExpr and subPath are mutually exclusive',
          ),
        );
      }
      errors.push(...validateLocalDescendingPath(subPathExpr, childPath(path, 'subPathExpr')));
    }
    const propagation = optionalString(mount.mountPropagation);
    const propagationPath = childPath(path, 'mountPropagation');
    if (propagation !== undefined) {
      if (!MOUNT_PROPAGATIONS.includes(propagation))
        errors.push(fieldNotSupported(propagationPath, propagation, MOUNT_PROPAGATIONS));
      const privileged = fieldsOf(container.securityContext).privileged === true;
      if (propagation === 'Bidirectional' && !privileged) {
        errors.push(
          fieldForbidden(
            propagationPath,
            'Bidirectional mount propagation is available only to privileged containers',
          ),
        );
      }
    }
    const recursive = optionalString(mount.recursiveReadOnly);
    const recursivePath = childPath(path, 'recursiveReadOnly');
    if (recursive === 'Enabled' || recursive === 'IfPossible') {
      if (mount.readOnly !== true)
        errors.push(fieldForbidden(recursivePath, 'may only be specified when readOnly is true'));
      if (propagation !== undefined && propagation !== 'None') {
        errors.push(
          fieldForbidden(
            recursivePath,
            'may only be specified when mountPropagation is None or not specified',
          ),
        );
      }
    } else if (recursive !== undefined && recursive !== 'Disabled') {
      errors.push(fieldNotSupported(recursivePath, recursive, RECURSIVE_READ_ONLY));
    }
  });
  return errors;
}

/** ValidateVolumeDevices. */
export function validateVolumeDevices(
  devices: unknown,
  mounts: ReadonlyMap<string, string>,
  volumes: ValidVolumes,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const seenPaths = new Set<string>();
  const seenNames = new Set<string>();
  const mountPaths = new Set(mounts.values());
  objectsOf(devices).forEach((device, index) => {
    const itemPath = indexPath(path, index);
    const name = stringOf(device.name);
    const devicePath = stringOf(device.devicePath);
    const volume = volumes.get(name);
    const claimBacked =
      volume !== undefined && (volume.kind === 'persistentVolumeClaim' || volume.kind === 'ephemeral');
    if (name === '') errors.push(fieldRequired(childPath(itemPath, 'name'), ''));
    if (seenNames.has(name)) errors.push(fieldInvalid(childPath(itemPath, 'name'), name, 'must be unique'));
    if (volume !== undefined && !claimBacked) {
      errors.push(
        fieldInvalid(
          childPath(itemPath, 'name'),
          name,
          'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode',
        ),
      );
    }
    if (volume === undefined) errors.push(fieldNotFound(childPath(itemPath, 'name'), name));
    if (devicePath === '') errors.push(fieldRequired(childPath(itemPath, 'devicePath'), ''));
    if (seenPaths.has(devicePath))
      errors.push(fieldInvalid(childPath(itemPath, 'devicePath'), devicePath, 'must be unique'));
    if (devicePath !== '' && validatePathNoBacksteps(devicePath, path).length > 0) {
      errors.push(
        fieldInvalid(childPath(itemPath, 'devicePath'), devicePath, "can not contain backsteps ('..')"),
      );
    } else {
      seenPaths.add(devicePath);
    }
    if (mounts.has(name))
      errors.push(fieldInvalid(childPath(itemPath, 'name'), name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devicePath)) {
      errors.push(
        fieldInvalid(
          childPath(itemPath, 'devicePath'),
          devicePath,
          'must not already exist as a path in volumeMounts',
        ),
      );
    }
    if (name !== '') seenNames.add(name);
  });
  return errors;
}

/** ValidatePortNumOrName for an int-or-string port. */
export function validatePortNumberOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'string')
    return isValidPortName(port).map((problem) => fieldInvalid(path, port, problem));
  const number = numberOf(port);
  return isValidPortNumber(number).map((problem) => fieldInvalid(path, number, problem));
}

const HTTP_SCHEMES = ['HTTP', 'HTTPS'];

function validateHandlerAction(
  kind: string,
  action: JsonObject,
  path: string,
  gracePeriod: number | undefined,
): FieldError[] {
  switch (kind) {
    case 'exec':
      return arrayOf(action.command).length === 0 ? [fieldRequired(childPath(path, 'command'), '')] : [];
    case 'httpGet': {
      const errors: FieldError[] = [];
      if (stringOf(action.path) === '') errors.push(fieldRequired(childPath(path, 'path'), ''));
      errors.push(...validatePortNumberOrName(action.port, childPath(path, 'port')));
      const scheme = stringOf(action.scheme);
      if (!HTTP_SCHEMES.includes(scheme))
        errors.push(fieldNotSupported(childPath(path, 'scheme'), scheme, HTTP_SCHEMES));
      for (const header of objectsOf(action.httpHeaders)) {
        const name = stringOf(header.name);
        for (const problem of isHttpHeaderName(name))
          errors.push(fieldInvalid(childPath(path, 'httpHeaders'), name, problem));
      }
      return errors;
    }
    case 'tcpSocket':
      return validatePortNumberOrName(action.port, childPath(path, 'port'));
    case 'grpc':
      return validatePortNumberOrName(numberOf(action.port), childPath(path, 'port'));
    case 'sleep': {
      // PodLifecycleSleepActionAllowZero is on in 1.33: zero seconds is allowed.
      const seconds = numberOf(action.seconds);
      if (gracePeriod !== undefined && (seconds < 0 || seconds > gracePeriod)) {
        return [
          fieldInvalid(
            path,
            seconds,
            `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`,
          ),
        ];
      }
      return [];
    }
    default:
      return [];
  }
}

function validateHandler(
  handler: JsonObject,
  kinds: readonly string[],
  path: string,
  gracePeriod: number | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  for (const kind of kinds) {
    const action = objectOf(handler[kind]);
    if (action === undefined) continue;
    if (count > 0) {
      errors.push(fieldForbidden(childPath(path, kind), 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    errors.push(...validateHandlerAction(kind, action, childPath(path, kind), gracePeriod));
  }
  if (count === 0) errors.push(fieldRequired(path, 'must specify a handler type'));
  return errors;
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

export type ProbeKind = 'livenessProbe' | 'readinessProbe' | 'startupProbe';

/** validateLivenessProbe / validateReadinessProbe / validateStartupProbe. */
export function validateProbe(
  probe: unknown,
  kind: ProbeKind,
  gracePeriod: number | undefined,
  path: string,
): FieldError[] {
  const fields = objectOf(probe);
  if (fields === undefined) return [];
  const errors = validateHandler(fields, PROBE_HANDLERS, path, gracePeriod);
  for (const key of [
    'initialDelaySeconds',
    'timeoutSeconds',
    'periodSeconds',
    'successThreshold',
    'failureThreshold',
  ]) {
    errors.push(...validateNonnegative(numberOf(fields[key]), childPath(path, key)));
  }
  const grace = optionalNumber(fields.terminationGracePeriodSeconds);
  if (grace !== undefined && grace <= 0) {
    errors.push(
      fieldInvalid(childPath(path, 'terminationGracePeriodSeconds'), grace, 'must be greater than 0'),
    );
  }
  const success = numberOf(fields.successThreshold);
  if (kind !== 'readinessProbe' && success !== 1) {
    errors.push(fieldInvalid(childPath(path, 'successThreshold'), success, 'must be 1'));
  }
  if (kind === 'readinessProbe' && grace !== undefined) {
    errors.push(
      fieldInvalid(
        childPath(path, 'terminationGracePeriodSeconds'),
        grace,
        'must not be set for readinessProbes',
      ),
    );
  }
  return errors;
}

/** validateLifecycle. */
export function validateLifecycle(
  lifecycle: unknown,
  gracePeriod: number | undefined,
  path: string,
): FieldError[] {
  const fields = fieldsOf(lifecycle);
  const errors: FieldError[] = [];
  for (const hook of ['postStart', 'preStop'] as const) {
    const handler = objectOf(fields[hook]);
    if (handler !== undefined)
      errors.push(...validateHandler(handler, LIFECYCLE_HANDLERS, childPath(path, hook), gracePeriod));
  }
  return errors;
}

const RESIZE_RESOURCES = ['cpu', 'memory'];
const RESIZE_POLICIES = ['NotRequired', 'RestartContainer'];

/** validateResizePolicy. */
export function validateResizePolicy(
  policies: unknown,
  path: string,
  podRestartPolicy: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  objectsOf(policies).forEach((policy, index) => {
    const resource = stringOf(policy.resourceName);
    const restart = stringOf(policy.restartPolicy);
    if (seen.has(resource)) errors.push(fieldDuplicate(indexPath(path, index), resource));
    seen.add(resource);
    if (resource === '') errors.push(fieldRequired(path, ''));
    else if (!RESIZE_RESOURCES.includes(resource))
      errors.push(fieldNotSupported(path, resource, RESIZE_RESOURCES));
    if (restart === '') errors.push(fieldRequired(path, ''));
    else if (!RESIZE_POLICIES.includes(restart))
      errors.push(fieldNotSupported(path, restart, RESIZE_POLICIES));
    if (podRestartPolicy === 'Never' && restart !== 'NotRequired') {
      errors.push(fieldInvalid(path, restart, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
    }
  });
  return errors;
}

const SECCOMP_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];

/** validateSeccompProfileField. */
export function validateSeccompProfile(profile: unknown, path: string): FieldError[] {
  const fields = objectOf(profile);
  if (fields === undefined) return [];
  const errors: FieldError[] = [];
  const type = stringOf(fields.type);
  if (type === '')
    errors.push(fieldRequired(childPath(path, 'type'), 'type is required when seccompProfile is set'));
  else if (!SECCOMP_TYPES.includes(type))
    errors.push(fieldNotSupported(childPath(path, 'type'), type, SECCOMP_TYPES));
  const localhost = optionalString(fields.localhostProfile);
  if (type === 'Localhost') {
    if (localhost === undefined) {
      errors.push(
        fieldRequired(childPath(path, 'localhostProfile'), 'must be set when seccomp type is Localhost'),
      );
    } else {
      errors.push(...validateLocalDescendingPath(localhost, childPath(path, 'localhostProfile')));
    }
  } else if (localhost !== undefined) {
    errors.push(
      fieldInvalid(
        childPath(path, 'localhostProfile'),
        new GoRendered(`core.SeccompProfile{Type:"${type}", LocalhostProfile:(*string)(...)}`),
        'can only be set when seccomp type is Localhost',
      ),
    );
  }
  return errors;
}

const APPARMOR_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];

/** ValidateAppArmorProfileField. */
export function validateAppArmorProfile(profile: unknown, path: string): FieldError[] {
  const fields = objectOf(profile);
  if (fields === undefined) return [];
  const errors: FieldError[] = [];
  const type = stringOf(fields.type);
  const localhost = optionalString(fields.localhostProfile);
  const localhostPath = childPath(path, 'localhostProfile');
  switch (type) {
    case 'Localhost':
      if (localhost === undefined) {
        errors.push(fieldRequired(localhostPath, 'must be set when AppArmor type is Localhost'));
      } else {
        if (localhost.trim() !== localhost) {
          errors.push(fieldInvalid(localhostPath, localhost, 'must not be padded with whitespace'));
        } else if (localhost === '') {
          errors.push(fieldRequired(localhostPath, 'must be set when AppArmor type is Localhost'));
        }
        if (utf8Length(localhost) > 4095) errors.push(fieldTooLong(localhostPath, 4095));
      }
      break;
    case 'RuntimeDefault':
    case 'Unconfined':
      if (localhost !== undefined) {
        errors.push(
          fieldInvalid(localhostPath, localhost, 'can only be set when AppArmor type is Localhost'),
        );
      }
      break;
    case '':
      errors.push(fieldRequired(childPath(path, 'type'), 'type is required when appArmorProfile is set'));
      break;
    default:
      errors.push(fieldNotSupported(childPath(path, 'type'), type, APPARMOR_TYPES));
  }
  return errors;
}

/** validateWindowsSecurityContextOptions (the common cases). */
export function validateWindowsOptions(options: unknown, path: string): FieldError[] {
  const fields = objectOf(options);
  if (fields === undefined) return [];
  const errors: FieldError[] = [];
  const specName = optionalString(fields.gmsaCredentialSpecName);
  if (specName !== undefined) {
    for (const problem of nameIsDnsSubdomain(specName, false)) {
      errors.push(fieldInvalid(childPath(path, 'gmsaCredentialSpecName'), specName, problem));
    }
  }
  const spec = optionalString(fields.gmsaCredentialSpec);
  if (spec !== undefined) {
    if (spec === '')
      errors.push(
        fieldInvalid(
          childPath(path, 'gmsaCredentialSpec'),
          spec,
          'gmsaCredentialSpec cannot be an empty string',
        ),
      );
    else if (utf8Length(spec) > 64 * 1024) {
      errors.push(
        fieldInvalid(
          childPath(path, 'gmsaCredentialSpec'),
          spec,
          'gmsaCredentialSpec size must be under 64 KiB',
        ),
      );
    }
  }
  const user = optionalString(fields.runAsUserName);
  if (user !== undefined && user === '') {
    errors.push(
      fieldInvalid(childPath(path, 'runAsUserName'), user, 'runAsUserName cannot be an empty string'),
    );
  }
  return errors;
}

const PROC_MOUNTS = ['Default', 'Unmasked'];

/** ValidateSecurityContext (a container's). Privileged containers are allowed, as with --allow-privileged. */
export function validateContainerSecurityContext(
  context: unknown,
  path: string,
  hostUsers: boolean,
): FieldError[] {
  const fields = objectOf(context);
  if (fields === undefined) return [];
  const errors: FieldError[] = [];
  const runAsUser = optionalNumber(fields.runAsUser);
  if (runAsUser !== undefined) {
    for (const problem of isValidUserId(runAsUser))
      errors.push(fieldInvalid(childPath(path, 'runAsUser'), runAsUser, problem));
  }
  const runAsGroup = optionalNumber(fields.runAsGroup);
  if (runAsGroup !== undefined) {
    for (const problem of isValidGroupId(runAsGroup))
      errors.push(fieldInvalid(childPath(path, 'runAsGroup'), runAsGroup, problem));
  }
  const procMount = optionalString(fields.procMount);
  if (procMount !== undefined) {
    if (!PROC_MOUNTS.includes(procMount))
      errors.push(fieldNotSupported(childPath(path, 'procMount'), procMount, PROC_MOUNTS));
    if (hostUsers && procMount === 'Unmasked') {
      errors.push(
        fieldInvalid(childPath(path, 'procMount'), procMount, '`hostUsers` must be false to use `Unmasked`'),
      );
    }
  }
  errors.push(...validateSeccompProfile(fields.seccompProfile, childPath(path, 'seccompProfile')));
  if (optionalBoolean(fields.allowPrivilegeEscalation) === false) {
    const rendered = new GoRendered('&core.SecurityContext{...}');
    if (fields.privileged === true) {
      errors.push(
        fieldInvalid(
          path,
          rendered,
          'cannot set `allowPrivilegeEscalation` to false and `privileged` to true',
        ),
      );
    }
    for (const capability of stringsOf(fieldsOf(fields.capabilities).add)) {
      if (capability === 'CAP_SYS_ADMIN') {
        errors.push(
          fieldInvalid(
            path,
            rendered,
            'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN',
          ),
        );
      }
    }
  }
  errors.push(...validateWindowsOptions(fields.windowsOptions, childPath(path, 'windowsOptions')));
  errors.push(...validateAppArmorProfile(fields.appArmorProfile, childPath(path, 'appArmorProfile')));
  return errors;
}

/** True when `value` holds a non-empty object (a Go pointer to a struct that is set). */
export function isPresent(value: unknown): boolean {
  return isJsonObject(value);
}
