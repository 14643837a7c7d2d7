// Reading JSONSchemaProps as written (the CRD may carry wrong JSON types anywhere): its
// subschemas, and field paths as apiextensions-apiserver spells them (`properties[name]`).
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { isJsonObject } from './json-value.js';

/** field.Path's Key: `path[name]`. */
export const key = (path: string, name: string): string => `${path}[${name}]`;

/** The schema-valued entries of a map field (properties, definitions, dependencies). */
export function entriesOf(value: unknown): Array<[string, JSONSchemaProps]> {
  if (!isJsonObject(value)) return [];
  return Object.entries(value).filter((entry): entry is [string, JSONSchemaProps] => isJsonObject(entry[1]));
}

/** The schemas of a list field (allOf, anyOf, oneOf). */
export function schemasOf(list: unknown): JSONSchemaProps[] {
  return Array.isArray(list) ? list.filter(isJsonObject) : [];
}

/** Whether a field is given: Go's nil/empty checks (empty maps count as unset). */
export function isSet(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (isJsonObject(value)) return Object.keys(value).length > 0;
  return true;
}
