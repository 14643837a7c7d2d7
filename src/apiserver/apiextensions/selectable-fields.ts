// `spec.versions[*].selectableFields` (KEP-4358): validation against the version's schema, and the
// values a field selector compares (jsonPath evaluated on the object; absent fields give '').

import { childPath, type FieldError, fieldInvalid, indexPath } from '../../api/selectors/field-errors.js';
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';
import { isJsonObject, stringOf } from '../registry/validation/json.js';
import { fieldDuplicate, fieldTooMany } from '../registry/validation/object-meta.js';
import type { CrdVersion } from './crd-object.js';

const MAX_SELECTABLE_FIELDS = 8;

/** `.spec.color` → `['spec', 'color']`; undefined for anything but a simple dotted path. */
export function simplePathSegments(path: string): string[] | undefined {
  if (!path.startsWith('.')) return undefined;
  const segments = path.slice(1).split('.');
  return segments.every((segment) => /^[A-Za-z0-9_-]+$/.test(segment)) ? segments : undefined;
}

function schemaAt(schema: JSONSchemaProps, segments: readonly string[]): JSONSchemaProps | undefined {
  let current: JSONSchemaProps | undefined = schema;
  for (const segment of segments) {
    current = current?.properties?.[segment];
    if (!current) return undefined;
  }
  return current;
}

/** ValidateCustomResourceSelectableFields. */
export function selectableFieldErrors(version: CrdVersion, path: string): FieldError[] {
  if (version.selectableFields.length === 0) return [];
  if (!version.schema) {
    return [
      fieldInvalid(
        path,
        '',
        'selectableFields may only be set when version.schema.openAPIV3Schema is not included',
      ),
    ];
  }
  const errors: FieldError[] = [];
  const unique = new Set<string>();
  version.selectableFields.forEach((field, i) => {
    const jsonPath = stringOf(field.jsonPath);
    const fieldPath = childPath(indexPath(path, i), 'jsonPath');
    if (jsonPath === '') {
      errors.push({ type: 'FieldValueRequired', field: fieldPath, badValue: '', detail: '' });
      return;
    }
    const segments = simplePathSegments(jsonPath);
    const found = segments && schemaAt(version.schema!, segments);
    if (!segments || !found) {
      errors.push(fieldInvalid(fieldPath, jsonPath, 'is an invalid path: does not refer to a valid field'));
      return;
    }
    if (segments[0] === 'metadata')
      errors.push(fieldInvalid(fieldPath, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(found.type ?? '')) {
      errors.push(
        fieldInvalid(
          fieldPath,
          jsonPath,
          'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        ),
      );
    }
    const key = segments.join('.');
    if (unique.has(key)) errors.push(fieldDuplicate(fieldPath, jsonPath));
    else unique.add(key);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS)
    errors.push(fieldTooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  return errors;
}

/** The field-selector label (`spec.color`) and value of each selectable field of an object. */
export function selectableFieldValues(
  jsonPaths: readonly string[],
  object: Record<string, unknown>,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const jsonPath of jsonPaths) {
    const segments = simplePathSegments(jsonPath);
    if (!segments) continue;
    let current: unknown = object;
    for (const segment of segments) current = isJsonObject(current) ? current[segment] : undefined;
    values[segments.join('.')] =
      typeof current === 'string' || typeof current === 'number' || typeof current === 'boolean'
        ? String(current)
        : '';
  }
  return values;
}
