// ObjectMeta validation on create and update (k8s.io/apimachinery/pkg/api/validation/objectmeta.go
// plus the core group's finalizer rule), with Kubernetes' field paths and messages.

import { goQuote, goStringSlice, utf8Length } from '../../../api/selectors/go-text.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  indexPath,
} from '../../../api/selectors/index.js';
import { GoRendered } from './go-rendered.js';
import {
  arrayOf,
  fieldsOf,
  objectOf,
  objectsOf,
  optionalBoolean,
  optionalNumber,
  semanticEqual,
  stringMapOf,
  stringOf,
  stringsOf,
} from './json.js';
import { isQualifiedName, isValidLabelValue, type NameValidator, nameIsDnsLabel } from './names.js';

export const FIELD_IMMUTABLE = 'field is immutable';
export const IS_NEGATIVE = 'must be greater than or equal to 0';
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** field.TooLong: the value is never shown. */
export function fieldTooLong(path: string, maxLength: number): FieldError {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} bytes` : 'value is too long';
  return { type: 'FieldValueTooLong', field: path, badValue: '<value omitted>', detail };
}

/** field.TooMany. */
export function fieldTooMany(path: string, actual: number, max: number): FieldError {
  return {
    type: 'FieldValueTooMany',
    field: path,
    badValue: actual,
    detail: `must have at most ${max} items`,
  };
}

export function fieldDuplicate(path: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field: path, badValue: value, detail: '' };
}

export function fieldNotFound(path: string, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field: path, badValue: value, detail: '' };
}

/** ValidateNonnegativeField. */
export function validateNonnegative(value: number, path: string): FieldError[] {
  return value < 0 ? [fieldInvalid(path, value, IS_NEGATIVE)] : [];
}

/** ValidateImmutableField over decoded JSON (semantic equality). */
export function validateImmutable(newValue: unknown, oldValue: unknown, path: string): FieldError[] {
  return semanticEqual(newValue, oldValue) ? [] : [fieldInvalid(path, newValue ?? null, FIELD_IMMUTABLE)];
}

/** metav1 ValidateLabelName. */
export function validateLabelName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((problem) => fieldInvalid(path, name, problem));
}

/** metav1 ValidateLabels: every error is reported at the map's path. */
export function validateLabels(labels: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(stringMapOf(labels))) {
    errors.push(...validateLabelName(key, path));
    for (const problem of isValidLabelValue(value)) errors.push(fieldInvalid(path, value, problem));
  }
  return errors;
}

/** ValidateAnnotations: keys are qualified names (case-insensitive), 256 KiB in total. */
export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(stringMapOf(annotations))) {
    for (const problem of isQualifiedName(key.toLowerCase())) errors.push(fieldInvalid(path, key, problem));
    size += utf8Length(key) + utf8Length(value);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errors.push(fieldTooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errors;
}

function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const slashes = apiVersion.split('/').length - 1;
  if (slashes === 0) return { group: '', version: apiVersion };
  if (slashes === 1) {
    const [group = '', version = ''] = apiVersion.split('/');
    return { group, version };
  }
  return undefined;
}

function goOptionalBool(value: unknown): string {
  const flag = optionalBoolean(value);
  return flag === undefined ? '(*bool)(nil)' : `&${flag}`;
}

function goOwnerReference(reference: Record<string, unknown>): string {
  return (
    `v1.OwnerReference{APIVersion:${goQuote(stringOf(reference.apiVersion))}, Kind:${goQuote(stringOf(reference.kind))}, ` +
    `Name:${goQuote(stringOf(reference.name))}, UID:${goQuote(stringOf(reference.uid))}, ` +
    `Controller:${goOptionalBool(reference.controller)}, BlockOwnerDeletion:${goOptionalBool(reference.blockOwnerDeletion)}}`
  );
}

/** ValidateOwnerReferences (errors are reported at the list's path, not per index, as Kubernetes does). */
export function validateOwnerReferences(references: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const list = objectsOf(references);
  let firstController = '';
  for (const reference of list) {
    const apiVersion = stringOf(reference.apiVersion);
    const kind = stringOf(reference.kind);
    const groupVersion = parseGroupVersion(apiVersion) ?? { group: '', version: '' };
    if (groupVersion.version === '') {
      errors.push(fieldInvalid(childPath(path, 'apiVersion'), apiVersion, 'version must not be empty'));
    }
    if (kind === '') errors.push(fieldInvalid(childPath(path, 'kind'), kind, 'kind must not be empty'));
    const name = stringOf(reference.name);
    if (name === '') errors.push(fieldInvalid(childPath(path, 'name'), name, 'name must not be empty'));
    const uid = stringOf(reference.uid);
    if (uid === '') errors.push(fieldInvalid(childPath(path, 'uid'), uid, 'uid must not be empty'));
    if (groupVersion.group === '' && groupVersion.version === 'v1' && kind === 'Event') {
      errors.push(
        fieldInvalid(
          path,
          new GoRendered(goOwnerReference(reference)),
          '/v1, Kind=Event is disallowed from being an owner',
        ),
      );
    }
    if (reference.controller === true) {
      const current = `${kind}/${name}`;
      if (firstController !== '') {
        errors.push(
          fieldInvalid(
            path,
            new GoRendered(`[]v1.OwnerReference{${list.map(goOwnerReference).join(', ')}}`),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errors;
}

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** The core group's rule: a finalizer without a '/' must be one of the standard names. */
export function validateKubeFinalizerName(value: string, path: string): FieldError[] {
  if (!value.includes('/') && !STANDARD_FINALIZERS.has(value)) {
    return [fieldInvalid(path, value, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

/** apimachinery's ValidateFinalizers (qualified names, reported at the list's path). */
export function validateFinalizers(finalizers: unknown, path: string): FieldError[] {
  const list = stringsOf(finalizers);
  const errors: FieldError[] = [];
  for (const finalizer of list) {
    for (const problem of isQualifiedName(finalizer)) errors.push(fieldInvalid(path, finalizer, problem));
  }
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    errors.push(fieldInvalid(path, list, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errors;
}

const FIELD_MANAGER_MAX_LENGTH = 128;
const MAX_SUBRESOURCE_NAME_LENGTH = 256;

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
export function validateFieldManager(manager: string, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (utf8Length(manager) > FIELD_MANAGER_MAX_LENGTH)
    errors.push(fieldTooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const char of manager) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(char)) {
      const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errors.push(fieldInvalid(path, manager, `invalid character U+${code} (at position ${position})`));
    }
    position += utf8Length(char);
  }
  return errors;
}

/** metav1 ValidateManagedFields. */
export function validateManagedFields(entries: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  objectsOf(entries).forEach((entry, index) => {
    const entryPath = indexPath(path, index);
    const operation = stringOf(entry.operation);
    if (operation !== 'Apply' && operation !== 'Update') {
      errors.push(fieldInvalid(childPath(entryPath, 'operation'), operation, 'must be `Apply` or `Update`'));
    }
    const fieldsType = stringOf(entry.fieldsType);
    if (fieldsType !== '' && fieldsType !== 'FieldsV1') {
      errors.push(fieldInvalid(childPath(entryPath, 'fieldsType'), fieldsType, 'must be `FieldsV1`'));
    }
    errors.push(...validateFieldManager(stringOf(entry.manager), childPath(entryPath, 'manager')));
    if (utf8Length(stringOf(entry.subresource)) > MAX_SUBRESOURCE_NAME_LENGTH) {
      errors.push(fieldTooLong(childPath(entryPath, 'subresource'), MAX_SUBRESOURCE_NAME_LENGTH));
    }
  });
  return errors;
}

export interface ObjectMetaRules {
  /** Whether the resource lives in a namespace (namespace required) or not (namespace forbidden). */
  namespaced: boolean;
  /** The resource's name rule (most are DNS subdomains). */
  name: NameValidator;
  /**
   * The core group's extra rule that unprefixed finalizers be standard ones (default true; kinds
   * validated with apimachinery's ObjectMeta rules alone, such as Leases, turn it off).
   */
  coreFinalizers?: boolean;
}

/**
 * ObjectMeta validation on create (core's ValidateObjectMeta). Name generation from
 * generateName must already have happened, as in kube-apiserver.
 */
export function validateObjectMeta(meta: unknown, rules: ObjectMetaRules, path = 'metadata'): FieldError[] {
  const fields = fieldsOf(meta);
  const errors: FieldError[] = [];
  const generateName = stringOf(fields.generateName);
  if (generateName !== '') {
    for (const problem of rules.name(generateName, true)) {
      errors.push(fieldInvalid(childPath(path, 'generateName'), generateName, problem));
    }
  }
  const name = stringOf(fields.name);
  if (name === '') {
    errors.push(fieldRequired(childPath(path, 'name'), 'name or generateName is required'));
  } else {
    for (const problem of rules.name(name, false))
      errors.push(fieldInvalid(childPath(path, 'name'), name, problem));
  }
  const namespace = stringOf(fields.namespace);
  if (rules.namespaced) {
    if (namespace === '') errors.push(fieldRequired(childPath(path, 'namespace'), ''));
    else {
      for (const problem of nameIsDnsLabel(namespace, false)) {
        errors.push(fieldInvalid(childPath(path, 'namespace'), namespace, problem));
      }
    }
  } else if (namespace !== '') {
    errors.push(fieldForbidden(childPath(path, 'namespace'), 'not allowed on this type'));
  }
  errors.push(...validateNonnegative(optionalNumber(fields.generation) ?? 0, childPath(path, 'generation')));
  errors.push(...validateLabels(fields.labels, childPath(path, 'labels')));
  errors.push(...validateAnnotations(fields.annotations, childPath(path, 'annotations')));
  errors.push(...validateOwnerReferences(fields.ownerReferences, childPath(path, 'ownerReferences')));
  errors.push(...validateFinalizers(fields.finalizers, childPath(path, 'finalizers')));
  errors.push(...validateManagedFields(fields.managedFields, childPath(path, 'managedFields')));
  if (rules.coreFinalizers === false) return errors;
  stringsOf(fields.finalizers).forEach((finalizer, index) => {
    errors.push(...validateKubeFinalizerName(finalizer, indexPath(childPath(path, 'finalizers'), index)));
  });
  return errors;
}

/** Go's time.Time.String() of a metav1.Time read from RFC 3339 text (the apiserver runs in UTC). */
function goTime(value: unknown): unknown {
  if (typeof value !== 'string') return null;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) return value;
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return new GoRendered(
    `${pad(time.getUTCFullYear(), 4)}-${pad(time.getUTCMonth() + 1)}-${pad(time.getUTCDate())} ` +
      `${pad(time.getUTCHours())}:${pad(time.getUTCMinutes())}:${pad(time.getUTCSeconds())} +0000 UTC`,
  );
}

function sameTime(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return (a ?? null) === (b ?? null);
  const x = Date.parse(a);
  const y = Date.parse(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return a === b;
  // metav1.Time has second precision on the wire.
  return Math.floor(x / 1000) === Math.floor(y / 1000);
}

/** ObjectMeta validation on update (core's ValidateObjectMetaUpdate). */
export function validateObjectMetaUpdate(
  newMeta: unknown,
  oldMeta: unknown,
  path = 'metadata',
  coreFinalizers = true,
): FieldError[] {
  const next = fieldsOf(newMeta);
  const previous = fieldsOf(oldMeta);
  const errors: FieldError[] = [];
  if (objectOf(previous) !== undefined && typeof previous.deletionTimestamp === 'string') {
    const old = new Set(stringsOf(previous.finalizers));
    const extra = [...new Set(stringsOf(next.finalizers).filter((finalizer) => !old.has(finalizer)))].sort();
    if (extra.length > 0) {
      errors.push(
        fieldForbidden(
          childPath(path, 'finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`,
        ),
      );
    }
  }
  const resourceVersion = stringOf(next.resourceVersion);
  if (resourceVersion === '') {
    errors.push(
      fieldInvalid(childPath(path, 'resourceVersion'), resourceVersion, 'must be specified for an update'),
    );
  }
  const newGeneration = optionalNumber(next.generation) ?? 0;
  if (newGeneration < (optionalNumber(previous.generation) ?? 0)) {
    errors.push(fieldInvalid(childPath(path, 'generation'), newGeneration, 'must not be decremented'));
  }
  for (const key of ['name', 'namespace', 'uid'] as const) {
    const value = stringOf(next[key]);
    if (value !== stringOf(previous[key]))
      errors.push(fieldInvalid(childPath(path, key), value, FIELD_IMMUTABLE));
  }
  for (const key of ['creationTimestamp', 'deletionTimestamp'] as const) {
    if (!sameTime(next[key], previous[key])) {
      errors.push(fieldInvalid(childPath(path, key), goTime(next[key]), FIELD_IMMUTABLE));
    }
  }
  const grace = optionalNumber(next.deletionGracePeriodSeconds);
  if (grace !== optionalNumber(previous.deletionGracePeriodSeconds)) {
    errors.push(fieldInvalid(childPath(path, 'deletionGracePeriodSeconds'), grace ?? null, FIELD_IMMUTABLE));
  }
  errors.push(...validateLabels(next.labels, childPath(path, 'labels')));
  errors.push(...validateAnnotations(next.annotations, childPath(path, 'annotations')));
  errors.push(...validateOwnerReferences(next.ownerReferences, childPath(path, 'ownerReferences')));
  errors.push(...validateManagedFields(next.managedFields, childPath(path, 'managedFields')));
  if (!coreFinalizers) return errors;
  arrayOf(next.finalizers).forEach((finalizer, index) => {
    errors.push(
      ...validateKubeFinalizerName(stringOf(finalizer), indexPath(childPath(path, 'finalizers'), index)),
    );
  });
  return errors;
}
