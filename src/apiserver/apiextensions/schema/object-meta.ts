// ObjectMeta inside custom resources (apiextensions-apiserver pkg/apiserver/schema/objectmeta):
// embedded resources (x-kubernetes-embedded-resource) need apiVersion and kind and a valid
// metadata; metadata is decoded as ObjectMeta, so unknown or mistyped fields are dropped.
import { type FieldError, fieldInvalid, fieldRequired, indexPath } from '../../../api/selectors/index.js';
import { isDns1035Label, nameIsPathSegment } from '../../registry/validation/names.js';
import { validateObjectMeta } from '../../registry/validation/object-meta.js';
import type { CompiledSchema } from './compiled.js';
import { checkDepth, goBadValue, isJsonObject, type JsonObject } from './json-value.js';

type FieldKind = 'string' | 'int64' | 'time' | 'stringMap' | 'stringList' | 'objectList';

const OBJECT_META_FIELDS: Readonly<Record<string, FieldKind>> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int64',
  creationTimestamp: 'time',
  deletionTimestamp: 'time',
  deletionGracePeriodSeconds: 'int64',
  labels: 'stringMap',
  annotations: 'stringMap',
  ownerReferences: 'objectList',
  finalizers: 'stringList',
  managedFields: 'objectList',
};

const GO_TYPES: Readonly<Record<FieldKind, string>> = {
  string: 'string',
  int64: 'int64',
  time: 'v1.Time',
  stringMap: 'map[string]string',
  stringList: '[]string',
  objectList: '[]v1.OwnerReference',
};

/** encoding/json's name for the JSON kind of a value, as in "cannot unmarshal number into ...". */
function jsonKind(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'array';
  return 'object';
}

/** Why one ObjectMeta field does not decode, as encoding/json says it; undefined when it does. */
function fieldDecodeError(name: string, kind: FieldKind, value: unknown): string | undefined {
  if (value === null) return undefined;
  const intoField = (got: string, type: string) =>
    `json: cannot unmarshal ${got} into Go struct field ObjectMeta.${name} of type ${type}`;
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? undefined : intoField(jsonKind(value), 'string');
    case 'int64':
      return typeof value === 'number' && Number.isInteger(value)
        ? undefined
        : intoField(jsonKind(value), 'int64');
    case 'time':
      if (typeof value !== 'string') return intoField(jsonKind(value), GO_TYPES.time);
      return Number.isNaN(Date.parse(value))
        ? `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": cannot parse`
        : undefined;
    case 'stringMap':
      if (!isJsonObject(value)) return intoField(jsonKind(value), GO_TYPES.stringMap);
      for (const item of Object.values(value)) {
        if (item !== null && typeof item !== 'string') return intoField(jsonKind(item), 'string');
      }
      return undefined;
    case 'stringList':
      if (!Array.isArray(value)) return intoField(jsonKind(value), GO_TYPES.stringList);
      for (const item of value)
        if (item !== null && typeof item !== 'string') return intoField(jsonKind(item), 'string');
      return undefined;
    case 'objectList':
      if (!Array.isArray(value))
        return intoField(
          jsonKind(value),
          name === 'managedFields' ? '[]v1.ManagedFieldsEntry' : GO_TYPES.objectList,
        );
      return undefined;
  }
}

/** GetObjectMeta's error for a metadata value that does not decode as ObjectMeta. */
export function objectMetaDecodeError(metadata: unknown): string | undefined {
  if (metadata === null || metadata === undefined) return undefined;
  if (!isJsonObject(metadata))
    return `json: cannot unmarshal ${jsonKind(metadata)} into Go value of type v1.ObjectMeta`;
  for (const [name, value] of Object.entries(metadata)) {
    const kind = OBJECT_META_FIELDS[name];
    if (kind === undefined) continue;
    const error = fieldDecodeError(name, kind, value);
    if (error !== undefined) return error;
  }
  return undefined;
}

/**
 * Drops what ObjectMeta does not hold (unknown fields; mistyped ones too, as DropMalformedFields
 * does); records the unknown ones as `<path>.<field>`. Returns the metadata to keep.
 */
export function coerceObjectMeta(metadata: unknown, path: string, removed: string[]): JsonObject | undefined {
  if (!isJsonObject(metadata)) return undefined;
  for (const [name, value] of Object.entries(metadata)) {
    const kind = OBJECT_META_FIELDS[name];
    if (kind === undefined) {
      removed.push(`${path}.${name}`);
      delete metadata[name];
    } else if (fieldDecodeError(name, kind, value) !== undefined) {
      delete metadata[name];
    }
  }
  return metadata;
}

/** schema.ParseGroupVersion's error, or undefined. */
function groupVersionError(apiVersion: string): string | undefined {
  const parts = apiVersion.split('/');
  if (parts.length > 2) return `unexpected GroupVersion string: ${apiVersion}`;
  return undefined;
}

function validateEmbeddedResource(object: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const child = (name: string) => (path === '' ? name : `${path}.${name}`);
  if (!Object.hasOwn(object, 'apiVersion'))
    errors.push(fieldRequired(child('apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(object, 'kind')) errors.push(fieldRequired(child('kind'), 'must not be empty'));
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion') {
      if (typeof value !== 'string')
        errors.push(fieldInvalid(child('apiVersion'), goBadValue(value), 'must be a string'));
      else if (value === '') errors.push(fieldInvalid(child('apiVersion'), value, 'must not be empty'));
      else {
        const problem = groupVersionError(value);
        if (problem !== undefined) errors.push(fieldInvalid(child('apiVersion'), value, problem));
      }
    } else if (key === 'kind') {
      if (typeof value !== 'string')
        errors.push(fieldInvalid(child('kind'), goBadValue(value), 'must be a string'));
      else if (value === '') errors.push(fieldInvalid(child('kind'), value, 'must not be empty'));
      else {
        const problems = isDns1035Label(value.toLowerCase());
        if (problems.length > 0) {
          errors.push(
            fieldInvalid(
              child('kind'),
              value,
              `may have mixed case, but should otherwise match: ${problems.join(',')}`,
            ),
          );
        }
      }
    } else if (key === 'metadata') {
      const problem = objectMetaDecodeError(value);
      if (problem !== undefined) {
        errors.push(fieldInvalid(child('metadata'), goBadValue(value), problem));
        continue;
      }
      const meta = { ...(isJsonObject(value) ? value : {}) };
      // An embedded object needs no name; upstream validates it with a stand-in one.
      if (typeof meta.name !== 'string' || meta.name === '') meta.name = 'fakename';
      const namespaced = typeof meta.namespace === 'string' && meta.namespace !== '';
      errors.push(
        ...validateObjectMeta(
          meta,
          { namespaced, name: nameIsPathSegment, coreFinalizers: false },
          child('metadata'),
        ),
      );
    }
  }
  return errors;
}

function validateValue(
  schema: CompiledSchema | undefined,
  value: unknown,
  path: string,
  depth: number,
): FieldError[] {
  if (schema === undefined || !schema.hasListOrEmbedded) return [];
  checkDepth(depth, path);
  const errors: FieldError[] = [];
  if (isJsonObject(value)) {
    if (schema.embeddedResource) errors.push(...validateEmbeddedResource(value, path));
    for (const [key, item] of Object.entries(value)) {
      const property = schema.properties?.get(key);
      if (property !== undefined)
        errors.push(...validateValue(property, item, path === '' ? key : `${path}.${key}`, depth + 1));
      else if (typeof schema.additionalProperties === 'object') {
        errors.push(...validateValue(schema.additionalProperties, item, `${path}[${key}]`, depth + 1));
      }
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      errors.push(...validateValue(schema.items, item, indexPath(path, index), depth + 1));
    });
  }
  return errors;
}

/**
 * objectmeta.Validate: the embedded resources in `value` (the root itself too when the schema is
 * marked embedded). `path` is where the value sits ('' for a custom resource).
 */
export function validateEmbeddedResources(schema: CompiledSchema, value: unknown, path = ''): FieldError[] {
  return validateValue(schema, value, path, 0);
}
