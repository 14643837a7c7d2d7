// Pod status writes (pods/status), as kube-apiserver's ValidatePodStatusUpdate checks them: the
// metadata update, the conditions, the node fields, the QoS class and the container state
// transitions a restart policy forbids. The spec cannot change through this subresource (the
// registry keeps the stored one), so it is not validated again.
import type { KubeObject } from '../../../../api/object.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  indexPath,
} from '../../../../api/selectors/index.js';
import { isQualifiedName } from '../../../../api/selectors/name-validation.js';
import { fieldsOf, type JsonObject, objectsOf, optionalString, stringOf } from '../json.js';
import { nameIsDnsSubdomain } from '../names.js';
import { fieldDuplicate, validateImmutable, validateObjectMetaUpdate } from '../object-meta.js';
import { validatePodSpecificAnnotationUpdates } from './pod.js';

/** Conditions the system owns; any other type must be a qualified name. */
const SYSTEM_CONDITIONS = new Set(['PodScheduled', 'Ready', 'Initialized']);

export function validatePodStatusUpdate(next: KubeObject, previous: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(next.metadata, previous.metadata);
  errors.push(...validatePodSpecificAnnotationUpdates(next, previous, 'metadata.annotations'));
  const status = fieldsOf(next.status);
  const oldStatus = fieldsOf(previous.status);
  const spec = fieldsOf(next.spec);
  const oldSpec = fieldsOf(previous.spec);
  // Under metadata, as kube-apiserver reports them.
  errors.push(...validatePodConditions(status.conditions, 'metadata.conditions'));
  if (stringOf(spec.nodeName) !== stringOf(oldSpec.nodeName)) {
    errors.push(fieldForbidden('status.nodeName', 'may not be changed directly'));
  }
  const nominated = stringOf(status.nominatedNodeName);
  if (nominated !== '' && nominated !== stringOf(oldStatus.nominatedNodeName)) {
    for (const problem of nameIsDnsSubdomain(nominated, false))
      errors.push(fieldInvalid('status.nominatedNodeName', nominated, problem));
  }
  errors.push(...validateImmutable(status.qosClass ?? '', oldStatus.qosClass ?? '', 'status.qosClass'));
  const restartPolicy = stringOf(oldSpec.restartPolicy);
  errors.push(
    ...validateStateTransitions(
      status.containerStatuses,
      oldStatus.containerStatuses,
      'status.containerStatuses',
      restartPolicy,
    ),
    ...validateStateTransitions(
      status.initContainerStatuses,
      oldStatus.initContainerStatuses,
      'status.initContainerStatuses',
      restartPolicy,
      restartableInitContainers(oldSpec),
    ),
    // The kubelet never restarts ephemeral containers: as if their policy were Never.
    ...validateStateTransitions(
      status.ephemeralContainerStatuses,
      oldStatus.ephemeralContainerStatuses,
      'status.ephemeralContainerStatuses',
      'Never',
    ),
    ...validateResourceClaimStatuses(status.resourceClaimStatuses, spec.resourceClaims),
  );
  return errors;
}

function validatePodConditions(conditions: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  objectsOf(conditions).forEach((condition, index) => {
    const type = stringOf(condition.type);
    if (SYSTEM_CONDITIONS.has(type)) return;
    for (const problem of isQualifiedName(type))
      errors.push(fieldInvalid(childPath(indexPath(path, index), 'Type'), type, problem));
  });
  return errors;
}

/** Names of init containers with restartPolicy Always (sidecars), which may leave the terminated state. */
function restartableInitContainers(spec: JsonObject): Set<string> {
  return new Set(
    objectsOf(spec.initContainers)
      .filter((container) => container.restartPolicy === 'Always')
      .map((container) => stringOf(container.name)),
  );
}

/**
 * Unless the policy restarts it, a container that terminated (successfully, under OnFailure)
 * may not be reported running or waiting again.
 */
function validateStateTransitions(
  statuses: unknown,
  oldStatuses: unknown,
  path: string,
  restartPolicy: string,
  restartable: ReadonlySet<string> = new Set(),
): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errors: FieldError[] = [];
  const next = objectsOf(statuses);
  objectsOf(oldStatuses).forEach((old, index) => {
    const terminated = fieldsOf(old.state).terminated;
    if (terminated === undefined || terminated === null) return;
    if (Number(fieldsOf(terminated).exitCode ?? 0) !== 0 && restartPolicy === 'OnFailure') return;
    const name = stringOf(old.name);
    if (restartable.has(name)) return;
    for (const status of next) {
      const stillTerminated = fieldsOf(status.state).terminated;
      if (stringOf(status.name) === name && (stillTerminated === undefined || stillTerminated === null)) {
        errors.push(
          fieldForbidden(
            childPath(indexPath(path, index), 'state'),
            'may not be transitioned to non-terminated state',
          ),
        );
      }
    }
  });
  return errors;
}

function validateResourceClaimStatuses(statuses: unknown, podClaims: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const claimNames = new Set(objectsOf(podClaims).map((claim) => stringOf(claim.name)));
  const seen = new Set<string>();
  objectsOf(statuses).forEach((status, index) => {
    const itemPath = indexPath('status.resourceClaimStatuses', index);
    const name = stringOf(status.name);
    if (!claimNames.has(name)) {
      errors.push(
        fieldInvalid(
          childPath(itemPath, 'name'),
          name,
          'must match the name of an entry in `spec.resourceClaims`',
        ),
      );
    }
    if (seen.has(name)) errors.push(fieldDuplicate(childPath(itemPath, 'name'), name));
    else seen.add(name);
    const claimName = optionalString(status.resourceClaimName);
    if (claimName !== undefined) {
      for (const problem of nameIsDnsSubdomain(claimName, false))
        errors.push(fieldInvalid(childPath(itemPath, 'name'), claimName, problem));
    }
  });
  return errors;
}
