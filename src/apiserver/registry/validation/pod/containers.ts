// Containers, init containers and ephemeral containers of a pod spec.
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import { isSet, type JsonObject, numberOf, objectsOf, stringOf } from '../json.js';
import { isDns1123Label } from '../names.js';
import { fieldDuplicate, fieldNotFound } from '../object-meta.js';
import { validateContainerResources } from '../resources.js';
import {
  validateContainerPorts,
  validateContainerSecurityContext,
  validateEnv,
  validateEnvFrom,
  validateLifecycle,
  validateProbe,
  validateResizePolicy,
  validateVolumeDevices,
  validateVolumeMounts,
} from './container-parts.js';
import { type ValidVolumes, validatePullPolicy } from './volumes.js';

/** What every container check needs to know about the pod around it. */
export interface ContainerContext {
  volumes: ValidVolumes;
  podClaimNames: ReadonlySet<string>;
  gracePeriod: number | undefined;
  podRestartPolicy: string;
  hostUsers: boolean;
}

const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];

function mountMap(entries: unknown, pathKey: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of objectsOf(entries)) map.set(stringOf(entry.name), stringOf(entry[pathKey]));
  return map;
}

/** validateContainerCommon. */
export function validateContainerCommon(
  container: JsonObject,
  context: ContainerContext,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringOf(container.name);
  const namePath = childPath(path, 'name');
  if (name === '') errors.push(fieldRequired(namePath, ''));
  else for (const problem of isDns1123Label(name)) errors.push(fieldInvalid(namePath, name, problem));
  if (stringOf(container.image) === '') errors.push(fieldRequired(childPath(path, 'image'), ''));
  const policy = stringOf(container.terminationMessagePolicy);
  const policyPath = childPath(path, 'terminationMessagePolicy');
  if (policy === '') errors.push(fieldRequired(policyPath, ''));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(policy)) {
    errors.push(fieldNotSupported(policyPath, policy, TERMINATION_MESSAGE_POLICIES));
  }
  const mounts = mountMap(container.volumeMounts, 'mountPath');
  const devices = mountMap(container.volumeDevices, 'devicePath');
  errors.push(...validateContainerPorts(container.ports, childPath(path, 'ports')));
  errors.push(...validateEnv(container.env, childPath(path, 'env')));
  errors.push(...validateEnvFrom(container.envFrom, childPath(path, 'envFrom')));
  errors.push(
    ...validateVolumeMounts(
      container.volumeMounts,
      devices,
      context.volumes,
      container,
      childPath(path, 'volumeMounts'),
    ),
  );
  errors.push(
    ...validateVolumeDevices(
      container.volumeDevices,
      mounts,
      context.volumes,
      childPath(path, 'volumeDevices'),
    ),
  );
  errors.push(...validatePullPolicy(stringOf(container.imagePullPolicy), childPath(path, 'imagePullPolicy')));
  errors.push(
    ...validateContainerResources(container.resources, context.podClaimNames, childPath(path, 'resources')),
  );
  errors.push(
    ...validateResizePolicy(
      container.resizePolicy,
      childPath(path, 'resizePolicy'),
      context.podRestartPolicy,
    ),
  );
  errors.push(
    ...validateContainerSecurityContext(
      container.securityContext,
      childPath(path, 'securityContext'),
      context.hostUsers,
    ),
  );
  return errors;
}

/** checkHostPortConflicts: protocol/hostIP/hostPort must be unique across the given containers. */
function checkHostPortConflicts(
  containers: readonly { container: JsonObject; index: number }[],
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const { container, index } of containers) {
    objectsOf(container.ports).forEach((port, portIndex) => {
      const hostPort = numberOf(port.hostPort);
      if (hostPort === 0) return;
      const key = `${stringOf(port.protocol)}/${stringOf(port.hostIP)}/${hostPort}`;
      if (seen.has(key)) {
        errors.push(
          fieldDuplicate(
            childPath(indexPath(childPath(indexPath(path, index), 'ports'), portIndex), 'hostPort'),
            key,
          ),
        );
      } else {
        seen.add(key);
      }
    });
  }
  return errors;
}

/** validateContainers (the regular containers). */
export function validateContainers(
  containers: unknown,
  context: ContainerContext,
  path: string,
): FieldError[] {
  const list = objectsOf(containers);
  if (list.length === 0) return [fieldRequired(path, '')];
  const errors: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((container, index) => {
    const itemPath = indexPath(path, index);
    errors.push(...validateContainerCommon(container, context, itemPath));
    const name = stringOf(container.name);
    if (names.has(name)) errors.push(fieldDuplicate(childPath(itemPath, 'name'), name));
    else names.add(name);
    if (isSet(container.lifecycle)) {
      errors.push(
        ...validateLifecycle(container.lifecycle, context.gracePeriod, childPath(itemPath, 'lifecycle')),
      );
    }
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
      errors.push(...validateProbe(container[probe], probe, context.gracePeriod, childPath(itemPath, probe)));
    }
    if (isSet(container.restartPolicy)) {
      errors.push(
        fieldForbidden(childPath(itemPath, 'restartPolicy'), 'may not be set for non-init containers'),
      );
    }
  });
  errors.push(
    ...checkHostPortConflicts(
      list.map((container, index) => ({ container, index })),
      path,
    ),
  );
  return errors;
}

/** validateInitContainers (sidecars are init containers with restartPolicy Always). */
export function validateInitContainers(
  containers: unknown,
  regularContainers: unknown,
  context: ContainerContext,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set(objectsOf(regularContainers).map((container) => stringOf(container.name)));
  objectsOf(containers).forEach((container, index) => {
    const itemPath = indexPath(path, index);
    errors.push(...validateContainerCommon(container, context, itemPath));
    let restartAlways = false;
    if (isSet(container.restartPolicy)) {
      const policy = stringOf(container.restartPolicy);
      if (policy !== 'Always')
        errors.push(fieldNotSupported(childPath(itemPath, 'restartPolicy'), policy, ['Always']));
      restartAlways = policy === 'Always';
    }
    const name = stringOf(container.name);
    if (names.has(name)) errors.push(fieldDuplicate(childPath(itemPath, 'name'), name));
    else if (name !== '') names.add(name);
    errors.push(...checkHostPortConflicts([{ container, index }], path));
    if (restartAlways) {
      if (isSet(container.lifecycle)) {
        errors.push(
          ...validateLifecycle(container.lifecycle, context.gracePeriod, childPath(itemPath, 'lifecycle')),
        );
      }
      for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
        errors.push(
          ...validateProbe(container[probe], probe, context.gracePeriod, childPath(itemPath, probe)),
        );
      }
    } else {
      for (const key of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
        if (isSet(container[key])) {
          errors.push(
            fieldForbidden(
              childPath(itemPath, key),
              'may not be set for init containers without restartPolicy=Always',
            ),
          );
        }
      }
    }
  });
  return errors;
}

// The EphemeralContainerCommon fields an ephemeral container may not set, in declaration order.
const EPHEMERAL_FORBIDDEN_FIELDS = [
  'ports',
  'resources',
  'resizePolicy',
  'restartPolicy',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
];

function isZeroValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value).every(isZeroValue);
  return value === '' || value === 0 || value === false;
}

/** validateEphemeralContainers. */
export function validateEphemeralContainers(
  ephemeralContainers: unknown,
  containers: unknown,
  initContainers: unknown,
  context: ContainerContext,
  path: string,
): FieldError[] {
  const list = objectsOf(ephemeralContainers);
  if (list.length === 0) return [];
  const errors: FieldError[] = [];
  const others = new Set(
    [...objectsOf(containers), ...objectsOf(initContainers)].map((container) => stringOf(container.name)),
  );
  const all = new Set(others);
  list.forEach((container, index) => {
    const itemPath = indexPath(path, index);
    errors.push(...validateContainerCommon(container, context, itemPath));
    errors.push(...validateImageWhitespace(container, itemPath));
    const name = stringOf(container.name);
    if (all.has(name)) errors.push(fieldDuplicate(childPath(itemPath, 'name'), name));
    else all.add(name);
    const target = stringOf(container.targetContainerName);
    if (target !== '' && !others.has(target))
      errors.push(fieldNotFound(childPath(itemPath, 'targetContainerName'), target));
    for (const key of EPHEMERAL_FORBIDDEN_FIELDS) {
      if (!isZeroValue(container[key])) {
        errors.push(fieldForbidden(childPath(itemPath, key), 'cannot be set for an Ephemeral Container'));
      }
    }
    objectsOf(container.volumeMounts).forEach((mount, mountIndex) => {
      const mountPath = indexPath(childPath(itemPath, 'volumeMounts'), mountIndex);
      if (stringOf(mount.subPath) !== '') {
        errors.push(
          fieldForbidden(childPath(mountPath, 'subPath'), 'cannot be set for an Ephemeral Container'),
        );
      }
      if (stringOf(mount.subPathExpr) !== '') {
        errors.push(
          fieldForbidden(childPath(mountPath, 'subPathExpr'), 'cannot be set for an Ephemeral Container'),
        );
      }
    });
  });
  return errors;
}

/** validateContainerOnlyForPod: images of real pods may not be padded with whitespace. */
export function validateImageWhitespace(container: JsonObject, path: string): FieldError[] {
  const image = stringOf(container.image);
  return image.trim() !== image
    ? [fieldInvalid(childPath(path, 'image'), image, 'must not have leading or trailing whitespace')]
    : [];
}
