// ValidatePersistentVolumeClaimSpec: shared by PersistentVolumeClaims, generic ephemeral volumes and
// StatefulSet claim templates.
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  validateLabelSelectorObject,
} from '../../../../api/selectors/index.js';
import { fieldsOf, isJsonObject, isSet, objectOf, optionalString, stringOf, stringsOf } from '../json.js';
import { nameIsDnsLabel, nameIsDnsSubdomain } from '../names.js';
import { quantityOf, validatePositiveQuantity, validateResourceQuantityValue } from '../resources.js';

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];

/** Unsupported access modes, and ReadWriteOncePod mixed with others. */
export function validateAccessModes(modes: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  let once = false;
  let others = false;
  for (const mode of stringsOf(modes)) {
    if (!ACCESS_MODES.includes(mode)) errors.push(fieldNotSupported(path, mode, ACCESS_MODES));
    if (mode === 'ReadWriteOncePod') once = true;
    else if (ACCESS_MODES.includes(mode)) others = true;
  }
  if (once && others)
    errors.push(fieldForbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errors;
}

function validateDataSource(
  source: Record<string, unknown>,
  path: string,
  withNamespace: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  if (stringOf(source.name) === '') errors.push(fieldRequired(childPath(path, 'name'), ''));
  const kind = stringOf(source.kind);
  if (kind === '') errors.push(fieldRequired(childPath(path, 'kind'), ''));
  const apiGroup = stringOf(source.apiGroup);
  if (apiGroup === '' && kind !== 'PersistentVolumeClaim') {
    errors.push(
      fieldInvalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"),
    );
  }
  if (apiGroup !== '') {
    for (const problem of nameIsDnsSubdomain(apiGroup, false))
      errors.push(fieldInvalid(childPath(path, 'apiGroup'), apiGroup, problem));
  }
  const namespace = optionalString(source.namespace);
  if (withNamespace && namespace !== undefined && namespace !== '') {
    for (const problem of nameIsDnsLabel(namespace, false)) {
      errors.push(fieldInvalid(childPath(path, 'namespace'), namespace, problem));
    }
  }
  return errors;
}

/** ValidatePersistentVolumeClaimSpec (VolumeAttributesClass is off in 1.33, so that field is not checked). */
export function validatePersistentVolumeClaimSpec(spec: unknown, path: string): FieldError[] {
  const fields = fieldsOf(spec);
  const errors: FieldError[] = [];
  const modesPath = childPath(path, 'accessModes');
  if (stringsOf(fields.accessModes).length === 0) {
    errors.push(fieldRequired(modesPath, 'at least 1 access mode is required'));
  }
  if (isJsonObject(fields.selector)) {
    errors.push(...validateLabelSelectorObject(fields.selector, childPath(path, 'selector')));
  }
  errors.push(...validateAccessModes(fields.accessModes, modesPath));
  const storagePath = indexPath(childPath(path, 'resources'), 'storage');
  const requests = fieldsOf(fieldsOf(fields.resources).requests);
  const storage = isSet(requests.storage) ? quantityOf(requests.storage) : undefined;
  if (storage === undefined) {
    errors.push(fieldRequired(storagePath, ''));
  } else {
    const positive = validatePositiveQuantity(storage, storagePath);
    errors.push(
      ...(positive.length > 0 ? positive : validateResourceQuantityValue('storage', storage, storagePath)),
    );
  }
  const className = optionalString(fields.storageClassName);
  if (className !== undefined && className !== '') {
    for (const problem of nameIsDnsSubdomain(className, false)) {
      errors.push(fieldInvalid(childPath(path, 'storageClassName'), className, problem));
    }
  }
  const volumeMode = optionalString(fields.volumeMode);
  if (volumeMode !== undefined && !VOLUME_MODES.includes(volumeMode)) {
    errors.push(fieldNotSupported(childPath(path, 'volumeMode'), volumeMode, VOLUME_MODES));
  }
  const dataSource = objectOf(fields.dataSource);
  const dataSourceRef = objectOf(fields.dataSourceRef);
  if (dataSource !== undefined)
    errors.push(...validateDataSource(dataSource, childPath(path, 'dataSource'), false));
  if (dataSourceRef !== undefined)
    errors.push(...validateDataSource(dataSourceRef, childPath(path, 'dataSourceRef'), true));
  const refNamespace = dataSourceRef === undefined ? '' : stringOf(dataSourceRef.namespace);
  if (refNamespace !== '') {
    if (dataSource !== undefined) {
      errors.push(
        fieldInvalid(
          path,
          `${path}.dataSource`,
          'may not be specified when dataSourceRef.namespace is specified',
        ),
      );
    }
  } else if (dataSource !== undefined && dataSourceRef !== undefined) {
    const same =
      optionalString(dataSource.apiGroup) === optionalString(dataSourceRef.apiGroup) &&
      stringOf(dataSource.kind) === stringOf(dataSourceRef.kind) &&
      stringOf(dataSource.name) === stringOf(dataSourceRef.name);
    if (!same) errors.push(fieldInvalid(path, `${path}.dataSource`, 'must match dataSourceRef'));
  }
  return errors;
}
