// PersistentVolumes and PersistentVolumeClaims.
import type { KubeObject } from '../../../../api/object.js';
import { Quantity } from '../../../../api/quantity.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import {
  cloneJson,
  fieldsOf,
  isJsonObject,
  type JsonObject,
  objectOf,
  optionalString,
  semanticEqual,
  stringMapOf,
  stringOf,
  stringsOf,
} from '../json.js';
import { nameIsDnsSubdomain } from '../names.js';
import {
  FIELD_IMMUTABLE,
  validateImmutable,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';
import { describeDifferences } from '../pod/pod.js';
import { validateNodeSelector } from '../pod/scheduling.js';
import { VOLUME_SOURCE_KEYS, validateSource } from '../pod/volumes.js';
import { quantityOf, resourceListOf, validatePositiveQuantity } from '../resources.js';
import {
  VOLUME_MODES,
  validateAccessModes,
  validatePersistentVolumeClaimSpec,
} from './persistent-volume-claim-spec.js';

const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
// The sources a PersistentVolume may use, in Kubernetes' checking order.
const PV_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
  'local',
  'storageos',
  'csi',
];

function validateLocal(source: JsonObject, path: string): FieldError[] {
  const target = stringOf(source.path);
  if (target === '') return [fieldRequired(childPath(path, 'path'), '')];
  return target.split('/').includes('..')
    ? [fieldInvalid(childPath(path, 'path'), target, "must not contain '..'")]
    : [];
}

function validatePvSecretReference(reference: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringOf(reference.name);
  if (name === '') errors.push(fieldRequired(childPath(path, 'name'), ''));
  else
    for (const problem of nameIsDnsSubdomain(name, false))
      errors.push(fieldInvalid(childPath(path, 'name'), name, problem));
  const namespace = stringOf(reference.namespace);
  if (namespace === '') errors.push(fieldRequired(childPath(path, 'namespace'), ''));
  return errors;
}

function validatePvSource(kind: string, source: JsonObject, path: string, name: string): FieldError[] {
  switch (kind) {
    case 'local':
      return validateLocal(source, path);
    case 'csi': {
      const errors = validateSource('csi', { driver: source.driver }, path, name, undefined, {
        resourceIsPod: false,
      });
      if (stringOf(source.volumeHandle) === '')
        errors.push(fieldRequired(childPath(path, 'volumeHandle'), ''));
      for (const key of [
        'controllerPublishSecretRef',
        'controllerExpandSecretRef',
        'nodePublishSecretRef',
        'nodeExpandSecretRef',
      ]) {
        const reference = objectOf(source[key]);
        if (reference !== undefined)
          errors.push(...validatePvSecretReference(reference, childPath(path, key)));
      }
      return errors;
    }
    default:
      return VOLUME_SOURCE_KEYS.includes(kind)
        ? validateSource(kind, source, path, name, undefined, { resourceIsPod: false })
        : [];
  }
}

/** ValidatePersistentVolume. */
export function validatePersistentVolume(volume: KubeObject): FieldError[] {
  const spec = fieldsOf(volume.spec);
  const name = stringOf(fieldsOf(volume.metadata).name);
  const errors = validateObjectMeta(volume.metadata, { namespaced: false, name: nameIsDnsSubdomain });
  if (stringsOf(spec.accessModes).length === 0) errors.push(fieldRequired('spec.accessModes', ''));
  errors.push(...validateAccessModes(spec.accessModes, 'spec.accessModes'));
  const capacity = isJsonObject(spec.capacity) ? spec.capacity : {};
  if (Object.keys(capacity).length === 0) errors.push(fieldRequired('spec.capacity', ''));
  if (!Object.hasOwn(capacity, 'storage') || Object.keys(capacity).length > 1) {
    errors.push(fieldNotSupported('spec.capacity', capacity, ['storage']));
  }
  for (const [resource, quantity] of resourceListOf(capacity)) {
    const capacityPath = indexPath('spec.capacity', resource);
    if (quantity.value() < 0n)
      errors.push(fieldInvalid(capacityPath, Number(quantity.value()), 'must be a valid resource quantity'));
    errors.push(...validatePositiveQuantity(quantity, capacityPath));
  }
  const reclaim = stringOf(spec.persistentVolumeReclaimPolicy);
  if (reclaim !== '' && !RECLAIM_POLICIES.includes(reclaim)) {
    errors.push(fieldNotSupported('spec.persistentVolumeReclaimPolicy', reclaim, RECLAIM_POLICIES));
  }
  let nodeAffinitySet = false;
  const nodeAffinity = objectOf(spec.nodeAffinity);
  if (nodeAffinity !== undefined) {
    nodeAffinitySet = true;
    if (isJsonObject(nodeAffinity.required)) {
      errors.push(...validateNodeSelector(nodeAffinity.required, false, 'spec.nodeAffinity.required'));
    } else {
      errors.push(fieldRequired('spec.nodeAffinity.required', 'must specify required node constraints'));
    }
  }
  let count = 0;
  for (const kind of PV_SOURCES) {
    const source = objectOf(spec[kind]);
    if (source === undefined) continue;
    // flexVolume is counted without the "more than 1" check, as in Kubernetes.
    if (count > 0 && kind !== 'flexVolume') {
      errors.push(fieldForbidden(childPath('spec', kind), 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    const sourcePath = kind === 'gcePersistentDisk' ? 'spec.persistentDisk' : childPath('spec', kind);
    errors.push(...validatePvSource(kind, source, sourcePath, name));
    if (kind === 'local' && !nodeAffinitySet)
      errors.push(fieldRequired('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (count === 0) errors.push(fieldRequired('spec', 'must specify a volume type'));
  const hostPath = objectOf(spec.hostPath);
  if (hostPath !== undefined && reclaim === 'Recycle' && /^\/+$/.test(stringOf(hostPath.path))) {
    errors.push(
      fieldForbidden(
        'spec.persistentVolumeReclaimPolicy',
        "may not be 'recycle' for a hostPath mount of '/'",
      ),
    );
  }
  const className = stringOf(spec.storageClassName);
  if (className !== '') {
    for (const problem of nameIsDnsSubdomain(className, false))
      errors.push(fieldInvalid('spec.storageClassName', className, problem));
  }
  const volumeMode = optionalString(spec.volumeMode);
  if (volumeMode !== undefined && !VOLUME_MODES.includes(volumeMode)) {
    errors.push(fieldNotSupported('spec.volumeMode', volumeMode, VOLUME_MODES));
  }
  return errors;
}

function volumeSource(spec: JsonObject): JsonObject {
  const source: JsonObject = {};
  for (const kind of PV_SOURCES) if (spec[kind] !== undefined) source[kind] = spec[kind];
  return source;
}

/** ValidatePersistentVolumeUpdate. */
export function validatePersistentVolumeUpdate(volume: KubeObject, old: KubeObject): FieldError[] {
  const errors = validatePersistentVolume(volume);
  const spec = cloneJson(fieldsOf(volume.spec));
  const oldSpec = fieldsOf(old.spec);
  const newCsi = objectOf(spec.csi);
  const oldCsi = objectOf(oldSpec.csi);
  if (oldCsi !== undefined && oldCsi.controllerExpandSecretRef === undefined && newCsi !== undefined) {
    delete newCsi.controllerExpandSecretRef;
  }
  const before = volumeSource(oldSpec);
  const after = volumeSource(spec);
  if (!semanticEqual(before, after)) {
    const diff = describeDifferences(before, after, 'spec');
    errors.push(
      fieldForbidden(
        'spec.persistentvolumesource',
        `spec.persistentvolumesource is immutable after creation\n${diff.join('\n')}`,
      ),
    );
  }
  errors.push(...validateImmutable(spec.volumeMode, oldSpec.volumeMode, 'volumeMode'));
  if (isJsonObject(oldSpec.nodeAffinity) && !semanticEqual(spec.nodeAffinity, oldSpec.nodeAffinity)) {
    errors.push(
      fieldInvalid(
        'nodeAffinity',
        spec.nodeAffinity ?? null,
        `${FIELD_IMMUTABLE}, except for updating from beta label to GA`,
      ),
    );
  }
  return errors;
}

/** ValidatePersistentVolumeClaim. */
export function validatePersistentVolumeClaim(claim: KubeObject): FieldError[] {
  return [
    ...validateObjectMeta(claim.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validatePersistentVolumeClaimSpec(claim.spec, 'spec'),
  ];
}

const BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** ValidatePersistentVolumeClaimUpdate (RecoverVolumeExpansionFailure is on in 1.33). */
export function validatePersistentVolumeClaimUpdate(claim: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(claim.metadata, old.metadata);
  errors.push(...validatePersistentVolumeClaim(claim));
  const spec = cloneJson(fieldsOf(claim.spec));
  const oldSpec = cloneJson(fieldsOf(old.spec));
  const newAnnotations = stringMapOf(fieldsOf(claim.metadata).annotations);
  const oldAnnotations = stringMapOf(fieldsOf(old.metadata).annotations);
  if (stringOf(oldSpec.volumeName) === '') oldSpec.volumeName = spec.volumeName;
  const oldClass = optionalString(oldSpec.storageClassName);
  const newClass = optionalString(spec.storageClassName);
  const upgradeFromAnnotation =
    Object.hasOwn(oldAnnotations, BETA_STORAGE_CLASS) &&
    oldClass === undefined &&
    newClass === oldAnnotations[BETA_STORAGE_CLASS] &&
    (!Object.hasOwn(newAnnotations, BETA_STORAGE_CLASS) ||
      newAnnotations[BETA_STORAGE_CLASS] === oldAnnotations[BETA_STORAGE_CLASS]);
  if (upgradeFromAnnotation) {
    delete spec.storageClassName;
  } else {
    const newValue = newAnnotations[BETA_STORAGE_CLASS] ?? '';
    if (newValue !== (oldAnnotations[BETA_STORAGE_CLASS] ?? '')) {
      errors.push(fieldInvalid(`metadata.annotations.${BETA_STORAGE_CLASS}`, newValue, FIELD_IMMUTABLE));
    }
    const upgradeFromNil =
      newClass !== undefined &&
      oldClass === undefined &&
      (!Object.hasOwn(oldAnnotations, BETA_STORAGE_CLASS) || newClass === oldAnnotations[BETA_STORAGE_CLASS]);
    if (upgradeFromNil) spec.storageClassName = oldSpec.storageClassName;
  }
  const bound = stringOf(fieldsOf(claim.status).phase) === 'Bound';
  const requests = objectOf(fieldsOf(spec.resources).requests);
  if (bound && requests !== undefined)
    requests.storage = fieldsOf(fieldsOf(oldSpec.resources).requests).storage;
  if (!semanticEqual(spec, oldSpec)) {
    const diff = describeDifferences(oldSpec, spec, 'spec');
    errors.push(
      fieldForbidden(
        'spec',
        `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${diff.join('\n')}`,
      ),
    );
  }
  // Absent sizes are Go's zero quantity.
  const storageOf = (resources: unknown) =>
    quantityOf(fieldsOf(fieldsOf(resources).requests).storage) ?? Quantity.fromInteger(0);
  const newSize = storageOf(fieldsOf(claim.spec).resources);
  const oldSize = storageOf(fieldsOf(old.spec).resources);
  const statusSize = quantityOf(fieldsOf(fieldsOf(old.status).capacity).storage) ?? Quantity.fromInteger(0);
  if (newSize.cmp(oldSize) < 0) {
    if (newSize.cmp(statusSize) <= 0) {
      errors.push(
        fieldForbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'),
      );
    }
  }
  errors.push(
    ...validateImmutable(fieldsOf(claim.spec).volumeMode, fieldsOf(old.spec).volumeMode, 'volumeMode'),
  );
  return errors;
}
