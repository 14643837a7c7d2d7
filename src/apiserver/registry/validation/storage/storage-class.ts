// storage.k8s.io/v1 StorageClasses.
import type { KubeObject } from '../../../../api/object.js';
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
import { objectsOf, optionalString, semanticEqual, stringMapOf, stringOf, stringsOf } from '../json.js';
import { isQualifiedName, nameIsDnsSubdomain } from '../names.js';
import {
  fieldDuplicate,
  fieldTooLong,
  validateImmutable,
  validateLabelName,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';

const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];

function validateAllowedTopologies(topologies: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const seen: string[] = [];
  objectsOf(topologies).forEach((term, index) => {
    const termPath = indexPath('allowedTopologies', index);
    const expressionsPath = childPath(termPath, 'matchLabelExpressions');
    const keys = new Map<string, string[]>();
    objectsOf(term.matchLabelExpressions).forEach((requirement, requirementIndex) => {
      const itemPath = indexPath(expressionsPath, requirementIndex);
      const values = stringsOf(requirement.values);
      if (values.length === 0) errors.push(fieldRequired(childPath(itemPath, 'values'), ''));
      const unique = new Set<string>();
      values.forEach((value, valueIndex) => {
        if (unique.has(value))
          errors.push(fieldDuplicate(indexPath(childPath(itemPath, 'values'), valueIndex), value));
        unique.add(value);
      });
      const key = stringOf(requirement.key);
      errors.push(...validateLabelName(key, childPath(itemPath, 'key')));
      if (keys.has(key)) errors.push(fieldDuplicate(childPath(itemPath, 'key'), key));
      keys.set(key, [...unique].sort());
    });
    const canonical = JSON.stringify([...keys.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (seen.includes(canonical)) errors.push(fieldDuplicate(expressionsPath, ''));
    seen.push(canonical);
  });
  return errors;
}

export function validateStorageClass(storageClass: KubeObject): FieldError[] {
  const errors = validateObjectMeta(storageClass.metadata, { namespaced: false, name: nameIsDnsSubdomain });
  const provisioner = stringOf(storageClass.provisioner);
  if (provisioner === '') errors.push(fieldRequired('provisioner', ''));
  else
    for (const problem of isQualifiedName(provisioner.toLowerCase()))
      errors.push(fieldInvalid('provisioner', provisioner.toLowerCase(), problem));
  const parameters = stringMapOf(storageClass.parameters);
  const keys = Object.keys(parameters);
  if (keys.length > MAX_PARAMETERS) {
    errors.push(fieldTooLong('parameters', MAX_PARAMETERS));
  } else {
    let size = 0;
    for (const key of keys) {
      if (key.length < 1) errors.push(fieldInvalid('parameters', key, 'field can not be empty.'));
      size += utf8Length(key) + utf8Length(parameters[key]!);
    }
    if (size > MAX_PARAMETERS_SIZE) errors.push(fieldTooLong('parameters', MAX_PARAMETERS_SIZE));
  }
  const reclaim = stringOf(storageClass.reclaimPolicy);
  if (reclaim !== '' && !RECLAIM_POLICIES.includes(reclaim))
    errors.push(fieldNotSupported('reclaimPolicy', reclaim, RECLAIM_POLICIES));
  const mode = optionalString(storageClass.volumeBindingMode);
  if (mode === undefined) errors.push(fieldRequired('volumeBindingMode', ''));
  else if (!BINDING_MODES.includes(mode))
    errors.push(fieldNotSupported('volumeBindingMode', mode, BINDING_MODES));
  errors.push(...validateAllowedTopologies(storageClass.allowedTopologies));
  return errors;
}

export function validateStorageClassUpdate(storageClass: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(storageClass.metadata, old.metadata);
  if (!semanticEqual(storageClass.parameters, old.parameters))
    errors.push(fieldForbidden('parameters', 'updates to parameters are forbidden.'));
  if (stringOf(storageClass.provisioner) !== stringOf(old.provisioner)) {
    errors.push(fieldForbidden('provisioner', 'updates to provisioner are forbidden.'));
  }
  if (stringOf(storageClass.reclaimPolicy) !== stringOf(old.reclaimPolicy)) {
    errors.push(fieldForbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  }
  errors.push(
    ...validateImmutable(storageClass.volumeBindingMode, old.volumeBindingMode, 'volumeBindingMode'),
  );
  return errors;
}
