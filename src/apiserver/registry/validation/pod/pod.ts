// Pods (create and update) and pod templates embedded in other kinds.

import { MIRROR_POD_ANNOTATION } from '../../../../api/mirror-pods.js';
import type { KubeObject } from '../../../../api/object.js';
import { goQuote } from '../../../../api/selectors/go-text.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  indexPath,
} from '../../../../api/selectors/index.js';
import {
  cloneJson,
  fieldsOf,
  isSet,
  type JsonObject,
  objectOf,
  objectsOf,
  optionalNumber,
  optionalString,
  semanticEqual,
  stringMapOf,
  stringOf,
} from '../json.js';
import { inclusiveRangeMessage, nameIsDnsSubdomain } from '../names.js';
import {
  validateAnnotations,
  validateLabels,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';
import { validateImageWhitespace } from './containers.js';
import { validateLocalDescendingPath } from './paths.js';
import { validatePodSpec } from './pod-spec.js';
import { validateTolerations } from './scheduling.js';

const TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerations';
const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const APPARMOR_CONTAINER_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
const MAX_INT32 = 2147483647;

function isValidDeletionCost(value: string): boolean {
  const validFirst =
    value.length > 0 && (value[0] === '-' || value === '0' || (value[0]! >= '1' && value[0]! <= '9'));
  if (!validFirst || !/^-?[0-9]+$/.test(value)) return false;
  const parsed = Number(value);
  return parsed >= -2147483648 && parsed <= MAX_INT32;
}

function validateSeccompAnnotationValue(profile: string, path: string): FieldError[] {
  if (['runtime/default', 'docker/default', 'unconfined'].includes(profile)) return [];
  if (profile.startsWith('localhost/'))
    return validateLocalDescendingPath(profile.slice('localhost/'.length), path);
  return [fieldInvalid(path, profile, 'must be a valid seccomp profile')];
}

function visitContainers(
  spec: JsonObject,
  path: string,
  visit: (container: JsonObject, path: string) => void,
): void {
  for (const key of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
    objectsOf(spec[key]).forEach((container, index) => {
      visit(container, indexPath(childPath(path, key), index));
    });
  }
}

/** ValidatePodSpecificAnnotations. */
function validatePodSpecificAnnotations(annotations: unknown, spec: JsonObject, path: string): FieldError[] {
  const entries = stringMapOf(annotations);
  const errors: FieldError[] = [];
  if (Object.hasOwn(entries, MIRROR_POD_ANNOTATION) && stringOf(spec.nodeName) === '') {
    errors.push(
      fieldInvalid(
        indexPath(path, MIRROR_POD_ANNOTATION),
        entries[MIRROR_POD_ANNOTATION],
        'must set spec.nodeName if mirror pod annotation is set',
      ),
    );
  }
  const tolerations = entries[TOLERATIONS_ANNOTATION] ?? '';
  if (tolerations !== '') {
    try {
      const parsed: unknown = JSON.parse(tolerations);
      if (Array.isArray(parsed) && parsed.length > 0) {
        errors.push(...validateTolerations(parsed, childPath(path, TOLERATIONS_ANNOTATION)));
      }
    } catch (error) {
      errors.push(
        fieldInvalid(path, TOLERATIONS_ANNOTATION, error instanceof Error ? error.message : String(error)),
      );
    }
  }
  if (
    Object.hasOwn(entries, POD_DELETION_COST_ANNOTATION) &&
    !isValidDeletionCost(entries[POD_DELETION_COST_ANNOTATION]!)
  ) {
    errors.push(
      fieldInvalid(
        indexPath(path, POD_DELETION_COST_ANNOTATION),
        entries[POD_DELETION_COST_ANNOTATION],
        'must be a 32bit integer',
      ),
    );
  }
  if (Object.hasOwn(entries, SECCOMP_POD_ANNOTATION)) {
    errors.push(
      ...validateSeccompAnnotationValue(
        entries[SECCOMP_POD_ANNOTATION]!,
        childPath(path, SECCOMP_POD_ANNOTATION),
      ),
    );
  }
  for (const [key, value] of Object.entries(entries)) {
    if (key.startsWith(SECCOMP_CONTAINER_PREFIX))
      errors.push(...validateSeccompAnnotationValue(value, childPath(path, key)));
  }
  const containerNames = new Set<string>();
  visitContainers(spec, 'spec', (container) => containerNames.add(stringOf(container.name)));
  for (const [key, value] of Object.entries(entries)) {
    if (!key.startsWith(APPARMOR_CONTAINER_PREFIX)) continue;
    const containerName = key.slice(APPARMOR_CONTAINER_PREFIX.length);
    if (!containerNames.has(containerName))
      errors.push(fieldInvalid(indexPath(path, key), containerName, 'container not found'));
    if (
      value !== '' &&
      value !== 'runtime/default' &&
      value !== 'unconfined' &&
      !value.startsWith('localhost/')
    ) {
      errors.push(
        fieldInvalid(indexPath(path, key), value, `invalid AppArmor profile name: ${goQuote(value)}`),
      );
    }
  }
  return errors;
}

function seccompMismatch(annotation: string, profile: JsonObject, path: string): FieldError | undefined {
  const type = stringOf(profile.type);
  const typeMismatch = fieldForbidden(
    childPath(path, 'type'),
    'seccomp type in annotation and field must match',
  );
  switch (type) {
    case 'Unconfined':
      return annotation === 'unconfined' ? undefined : typeMismatch;
    case 'RuntimeDefault':
      return annotation === 'runtime/default' || annotation === 'docker/default' ? undefined : typeMismatch;
    case 'Localhost':
      if (!annotation.startsWith('localhost/')) return typeMismatch;
      if (optionalString(profile.localhostProfile) !== annotation.slice('localhost/'.length)) {
        return fieldForbidden(
          childPath(path, 'localhostProfile'),
          'seccomp profile in annotation and field must match',
        );
      }
      return undefined;
    default:
      return undefined;
  }
}

/** validateSeccompAnnotationsAndFields and validateAppArmorAnnotationsAndFieldsMatchOnCreate. */
function validateAnnotationsMatchFields(
  annotations: unknown,
  spec: JsonObject,
  specPath: string,
): FieldError[] {
  const entries = stringMapOf(annotations);
  const errors: FieldError[] = [];
  const podContext = fieldsOf(spec.securityContext);
  const podSeccomp = objectOf(podContext.seccompProfile);
  if (podSeccomp !== undefined && Object.hasOwn(entries, SECCOMP_POD_ANNOTATION)) {
    const error = seccompMismatch(
      entries[SECCOMP_POD_ANNOTATION]!,
      podSeccomp,
      childPath(childPath(specPath, 'securityContext'), 'seccompProfile'),
    );
    if (error !== undefined) errors.push(error);
  }
  visitContainers(spec, specPath, (container, containerPath) => {
    const profile = objectOf(fieldsOf(container.securityContext).seccompProfile);
    const key = `${SECCOMP_CONTAINER_PREFIX}${stringOf(container.name)}`;
    if (profile !== undefined && Object.hasOwn(entries, key)) {
      const error = seccompMismatch(
        entries[key]!,
        profile,
        childPath(childPath(containerPath, 'securityContext'), 'seccompProfile'),
      );
      if (error !== undefined) errors.push(error);
    }
  });
  if (stringOf(fieldsOf(spec.os).name) === 'windows') return errors;
  const podAppArmor = objectOf(podContext.appArmorProfile);
  visitContainers(spec, specPath, (container, containerPath) => {
    const profile = objectOf(fieldsOf(container.securityContext).appArmorProfile) ?? podAppArmor;
    const key = `${APPARMOR_CONTAINER_PREFIX}${stringOf(container.name)}`;
    if (profile === undefined || !Object.hasOwn(entries, key)) return;
    const annotation = entries[key]!;
    const apparmorPath = childPath(childPath(containerPath, 'securityContext'), 'appArmorProfile');
    const typeMismatch = fieldForbidden(
      childPath(apparmorPath, 'type'),
      'apparmor type in annotation and field must match',
    );
    switch (stringOf(profile.type)) {
      case 'Unconfined':
        if (annotation !== 'unconfined') errors.push(typeMismatch);
        break;
      case 'RuntimeDefault':
        if (annotation !== 'runtime/default') errors.push(typeMismatch);
        break;
      case 'Localhost':
        if (!annotation.startsWith('localhost/')) errors.push(typeMismatch);
        else if (optionalString(profile.localhostProfile) !== annotation.slice('localhost/'.length)) {
          errors.push(
            fieldForbidden(
              childPath(apparmorPath, 'localhostProfile'),
              'apparmor profile in annotation and field must match',
            ),
          );
        }
        break;
    }
  });
  return errors;
}

/** validatePodMetadataAndSpec. */
function validatePodMetadataAndSpec(pod: KubeObject): FieldError[] {
  const meta = fieldsOf(pod.metadata);
  const spec = fieldsOf(pod.spec);
  const errors = validateObjectMeta(pod.metadata, { namespaced: true, name: nameIsDnsSubdomain });
  errors.push(...validatePodSpecificAnnotations(meta.annotations, spec, 'metadata.annotations'));
  errors.push(...validatePodSpec(spec, 'spec', { resourceIsPod: true, podName: stringOf(meta.name) }));
  if (stringOf(spec.serviceAccountName) === '') {
    objectsOf(spec.volumes).forEach((volume, volumeIndex) => {
      const projected = objectOf(volume.projected);
      if (projected === undefined) return;
      objectsOf(projected.sources).forEach((source, sourceIndex) => {
        if (!isSet(source.serviceAccountToken)) return;
        const sourcePath = indexPath(
          childPath(childPath(indexPath('spec.volumes', volumeIndex), 'projected'), 'sources'),
          sourceIndex,
        );
        errors.push(
          fieldForbidden(
            childPath(sourcePath, 'serviceAccountToken'),
            'must not be specified when serviceAccountName is not set',
          ),
        );
      });
    });
  }
  for (const key of ['containers', 'initContainers'] as const) {
    objectsOf(spec[key]).forEach((container, index) => {
      errors.push(...validateImageWhitespace(container, indexPath(childPath('spec', key), index)));
    });
  }
  return errors;
}

/** ValidatePodCreate. */
export function validatePodCreate(pod: KubeObject): FieldError[] {
  const errors = validatePodMetadataAndSpec(pod);
  const spec = fieldsOf(pod.spec);
  if (objectsOf(spec.ephemeralContainers).length > 0) {
    errors.push(fieldForbidden('spec.ephemeralContainers', 'cannot be set on create'));
  }
  if (stringOf(spec.nodeName) !== '' && objectsOf(spec.schedulingGates).length > 0) {
    errors.push(fieldForbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  errors.push(...validateAnnotationsMatchFields(fieldsOf(pod.metadata).annotations, spec, 'spec'));
  return errors;
}

const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

export function validatePodSpecificAnnotationUpdates(
  next: KubeObject,
  previous: KubeObject,
  path: string,
): FieldError[] {
  const newAnnotations = stringMapOf(fieldsOf(next.metadata).annotations);
  const oldAnnotations = stringMapOf(fieldsOf(previous.metadata).annotations);
  const errors: FieldError[] = [];
  for (const [key, oldValue] of Object.entries(oldAnnotations)) {
    if (Object.hasOwn(newAnnotations, key) && newAnnotations[key] === oldValue) continue;
    if (key.startsWith(APPARMOR_CONTAINER_PREFIX)) {
      errors.push(fieldForbidden(indexPath(path, key), 'may not remove or update AppArmor annotations'));
    }
    if (key === MIRROR_POD_ANNOTATION)
      errors.push(fieldForbidden(indexPath(path, key), 'may not remove or update mirror pod annotation'));
  }
  for (const key of Object.keys(newAnnotations)) {
    if (Object.hasOwn(oldAnnotations, key)) continue;
    if (key.startsWith(APPARMOR_CONTAINER_PREFIX))
      errors.push(fieldForbidden(indexPath(path, key), 'may not add AppArmor annotations'));
    if (key === MIRROR_POD_ANNOTATION)
      errors.push(fieldForbidden(indexPath(path, key), 'may not add mirror pod annotation'));
  }
  errors.push(...validatePodSpecificAnnotations(newAnnotations, fieldsOf(next.spec), path));
  return errors;
}

function validateContainerUpdates(
  next: unknown,
  previous: unknown,
  path: string,
): { errors: FieldError[]; stop: boolean } {
  const newList = objectsOf(next);
  if (newList.length !== objectsOf(previous).length) {
    return { errors: [fieldForbidden(path, 'pod updates may not add or remove containers')], stop: true };
  }
  const errors: FieldError[] = [];
  newList.forEach((container, index) => {
    const image = stringOf(container.image);
    const itemPath = indexPath(path, index);
    if (image === '')
      errors.push({
        type: 'FieldValueRequired',
        field: childPath(itemPath, 'image'),
        badValue: '',
        detail: '',
      });
    errors.push(...validateImageWhitespace(container, itemPath));
  });
  return { errors, stop: false };
}

function tolerationsOnlyAdded(next: unknown, previous: unknown): boolean {
  const newList = objectsOf(next);
  return objectsOf(previous).every((old) =>
    newList.some((candidate) =>
      semanticEqual({ ...old, tolerationSeconds: null }, { ...candidate, tolerationSeconds: null }),
    ),
  );
}

/** A readable account of what differs, in place of Go's cmp.Diff of the internal PodSpec. */
export function describeDifferences(before: unknown, after: unknown, path: string): string[] {
  if (semanticEqual(before, after)) return [];
  const bothObjects = objectOf(before) !== undefined && objectOf(after) !== undefined;
  const bothLists = Array.isArray(before) && Array.isArray(after) && before.length === after.length;
  if (bothObjects) {
    const a = fieldsOf(before);
    const b = fieldsOf(after);
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((key) =>
      describeDifferences(a[key], b[key], childPath(path, key)),
    );
  }
  if (bothLists) {
    return (before as unknown[]).flatMap((item, index) =>
      describeDifferences(item, (after as unknown[])[index], indexPath(path, index)),
    );
  }
  return [`- ${path}: ${JSON.stringify(before ?? null)}`, `+ ${path}: ${JSON.stringify(after ?? null)}`];
}

/** ValidatePodUpdate. */
export function validatePodUpdate(next: KubeObject, previous: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(next.metadata, previous.metadata);
  errors.push(...validatePodMetadataAndSpec(next));
  errors.push(...validatePodSpecificAnnotationUpdates(next, previous, 'metadata.annotations'));
  const newSpec = fieldsOf(next.spec);
  const oldSpec = fieldsOf(previous.spec);
  for (const key of ['containers', 'initContainers'] as const) {
    const result = validateContainerUpdates(newSpec[key], oldSpec[key], childPath('spec', key));
    errors.push(...result.errors);
    if (result.stop) return errors;
  }
  const newDeadline = optionalNumber(newSpec.activeDeadlineSeconds);
  const oldDeadline = optionalNumber(oldSpec.activeDeadlineSeconds);
  if (newDeadline !== undefined) {
    if (newDeadline < 0 || newDeadline > MAX_INT32) {
      errors.push(
        fieldInvalid('spec.activeDeadlineSeconds', newDeadline, inclusiveRangeMessage(0, MAX_INT32)),
      );
      return errors;
    }
    if (oldDeadline !== undefined && oldDeadline < newDeadline) {
      errors.push(
        fieldInvalid(
          'spec.activeDeadlineSeconds',
          newDeadline,
          'must be less than or equal to previous value',
        ),
      );
      return errors;
    }
  } else if (oldDeadline !== undefined) {
    errors.push(
      fieldInvalid(
        'spec.activeDeadlineSeconds',
        null,
        'must not update from a positive integer to nil value',
      ),
    );
  }
  if (!tolerationsOnlyAdded(newSpec.tolerations, oldSpec.tolerations)) {
    errors.push(
      fieldForbidden(
        'spec.tolerations',
        'existing toleration can not be modified except its tolerationSeconds',
      ),
    );
  } else {
    errors.push(...validateTolerations(newSpec.tolerations, 'spec.tolerations'));
  }
  const oldGates = new Set(objectsOf(oldSpec.schedulingGates).map((gate) => stringOf(gate.name)));
  const addedGates = new Map<string, number>();
  objectsOf(newSpec.schedulingGates).forEach((gate, index) => {
    addedGates.set(stringOf(gate.name), index);
  });
  for (const [name, index] of addedGates) {
    if (!oldGates.has(name)) {
      errors.push(
        fieldForbidden(
          childPath(indexPath('spec.schedulingGates', index), 'name'),
          `only deletion is allowed, but found new scheduling gate '${name}'`,
        ),
      );
    }
  }
  if (semanticEqual(newSpec, oldSpec)) return errors;
  const munged = cloneJson(newSpec);
  for (const key of ['containers', 'initContainers'] as const) {
    const oldContainers = objectsOf(oldSpec[key]);
    munged[key] = objectsOf(munged[key]).map((container, index) => ({
      ...container,
      image: oldContainers[index]?.image,
    }));
  }
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.schedulingGates = oldSpec.schedulingGates;
  munged.tolerations = oldSpec.tolerations;
  const oldGrace = optionalNumber(oldSpec.terminationGracePeriodSeconds);
  if (oldGrace !== undefined && oldGrace < 0 && optionalNumber(munged.terminationGracePeriodSeconds) === 1) {
    munged.terminationGracePeriodSeconds = oldGrace;
  }
  if (oldGates.size > 0) {
    const oldSelector = stringMapOf(oldSpec.nodeSelector);
    const newSelector = stringMapOf(munged.nodeSelector);
    if (!semanticEqual(oldSelector, newSelector)) {
      const kept = Object.entries(oldSelector).every(([key, value]) => newSelector[key] === value);
      if (!kept) {
        errors.push(
          fieldInvalid(
            'spec.nodeSelector',
            newSelector,
            'only additions to spec.nodeSelector are allowed (no mutations or deletions)',
          ),
        );
      }
      munged.nodeSelector = oldSpec.nodeSelector;
    }
  }
  if (!semanticEqual(munged, oldSpec)) {
    const diff = describeDifferences(oldSpec, munged, 'spec');
    errors.push(
      fieldForbidden(
        'spec',
        `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${diff.join('\n')}`,
      ),
    );
  }
  return errors;
}

/** ValidatePodTemplateSpec: labels and annotations are reported at `<path>.labels`, as in Kubernetes. */
export function validatePodTemplateSpec(template: unknown, path: string): FieldError[] {
  const fields = fieldsOf(template);
  const meta = fieldsOf(fields.metadata);
  const spec = fieldsOf(fields.spec);
  const errors = [
    ...validateLabels(meta.labels, childPath(path, 'labels')),
    ...validateAnnotations(meta.annotations, childPath(path, 'annotations')),
    ...validatePodSpecificAnnotations(meta.annotations, spec, childPath(path, 'annotations')),
    ...validatePodSpec(spec, childPath(path, 'spec'), { resourceIsPod: false }),
    ...validateAnnotationsMatchFields(meta.annotations, spec, childPath(path, 'spec')),
  ];
  if (objectsOf(spec.ephemeralContainers).length > 0) {
    errors.push(
      fieldForbidden(
        childPath(childPath(path, 'spec'), 'ephemeralContainers'),
        'ephemeral containers not allowed in pod template',
      ),
    );
  }
  return errors;
}

/** The labels, annotations and pod annotations of a template, without the spec (StatefulSet's check). */
export function validatePodTemplateMetadata(template: unknown, path: string): FieldError[] {
  const fields = fieldsOf(template);
  const meta = fieldsOf(fields.metadata);
  return [
    ...validateLabels(meta.labels, childPath(path, 'labels')),
    ...validateAnnotations(meta.annotations, childPath(path, 'annotations')),
    ...validatePodSpecificAnnotations(
      meta.annotations,
      fieldsOf(fields.spec),
      childPath(path, 'annotations'),
    ),
  ];
}

/**
 * ValidatePodEphemeralContainersUpdate: the pods/ephemeralcontainers subresource may add
 * ephemeral containers, never remove or change one (matched by name: a patch may reorder them).
 */
export function validatePodEphemeralContainersUpdate(next: KubeObject, previous: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(next.metadata, previous.metadata);
  errors.push(...validatePodMetadataAndSpec(next));
  errors.push(...validatePodSpecificAnnotationUpdates(next, previous, 'metadata.annotations'));
  if (Object.hasOwn(stringMapOf(previous.metadata?.annotations), MIRROR_POD_ANNOTATION)) {
    return [fieldForbidden('', 'static pods do not support ephemeral containers')];
  }
  const path = 'spec.ephemeralContainers';
  const added = new Map(
    objectsOf(fieldsOf(next.spec).ephemeralContainers).map((c) => [stringOf(c.name), c] as const),
  );
  for (const old of objectsOf(fieldsOf(previous.spec).ephemeralContainers)) {
    const name = stringOf(old.name);
    const now = added.get(name);
    if (!now) {
      errors.push(
        fieldForbidden(path, `existing ephemeral containers ${goQuote(name)} may not be removed\n`),
      );
    } else if (!semanticEqual(old, now)) {
      const diff = describeDifferences(old, now, '').join('\n');
      errors.push(
        fieldForbidden(
          childPath(path, name),
          `existing ephemeral containers ${goQuote(name)} may not be changed\n${diff}`,
        ),
      );
    }
  }
  return errors;
}
