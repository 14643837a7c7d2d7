// The x-kubernetes-list-type, list-map-keys and map-type rules on a CRD schema node
// (apiextensions-apiserver validation.go: ValidateCustomResourceDefinitionOpenAPISchema's list and
// map checks, validateMapListKeysMapSet, and the atomic-set rule), with upstream's texts.
import {
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../api/selectors/index.js';
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { itemsSchema } from './compiled.js';
import { goBadValue, isJsonObject } from './json-value.js';
import { key } from './schema-props.js';

/** validateMapListKeysMapSet. */
function mapListKeysChecks(schema: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const items = itemsSchema(schema);
  const listType = schema['x-kubernetes-list-type'];
  if (items === undefined || (listType !== 'set' && listType !== 'map')) return;
  if (items.nullable === true)
    errors.push(
      fieldForbidden(
        `${path}.items.nullable`,
        `cannot be nullable when x-kubernetes-list-type is ${listType}`,
      ),
    );
  if (listType !== 'map') return;
  const required = new Set(Array.isArray(items.required) ? items.required : []);
  const properties = isJsonObject(items.properties) ? items.properties : {};
  const keys = schema['x-kubernetes-list-map-keys'];
  for (const name of Array.isArray(keys) ? keys.filter((key) => typeof key === 'string') : []) {
    const property = properties[name];
    if (!isJsonObject(property)) continue;
    const keyPath = key(`${path}.items.properties`, name);
    if (!required.has(name) && (property.default === undefined || property.default === null)) {
      errors.push(
        fieldRequired(
          `${keyPath}.default`,
          'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
        ),
      );
    }
    if (property.nullable === true) {
      errors.push(
        fieldForbidden(
          `${keyPath}.nullable`,
          'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
        ),
      );
    }
  }
}

/** The x-kubernetes-list-type / map-type / list-map-keys rules of one node. */
export function listAndMapChecks(schema: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const type = typeof schema.type === 'string' ? schema.type : '';
  const mapType = schema['x-kubernetes-map-type'];
  const listType = schema['x-kubernetes-list-type'];
  const mapKeys = Array.isArray(schema['x-kubernetes-list-map-keys'])
    ? schema['x-kubernetes-list-map-keys']
    : [];
  if (schema['x-kubernetes-preserve-unknown-fields'] === false) {
    errors.push(
      fieldInvalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'),
    );
  }
  if (mapType !== undefined && type !== 'object') {
    if (type === '')
      errors.push(fieldRequired(`${path}.type`, 'must be object if x-kubernetes-map-type is specified'));
    else
      errors.push(fieldInvalid(`${path}.type`, type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    errors.push(fieldNotSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  const items = itemsSchema(schema);
  if (listType !== undefined && type !== 'array') {
    if (type === '')
      errors.push(fieldRequired(`${path}.type`, 'must be array if x-kubernetes-list-type is specified'));
    else
      errors.push(fieldInvalid(`${path}.type`, type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items !== undefined) {
    if (items.type === 'array') {
      const itemListType = items['x-kubernetes-list-type'];
      if (itemListType !== undefined && itemListType !== 'atomic') {
        errors.push(
          fieldInvalid(
            `${path}.items.x-kubernetes-list-type`,
            itemListType,
            'must be atomic as item of a list with x-kubernetes-list-type=set',
          ),
        );
      }
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // Upstream reports the item's list type here (nil when unset).
      errors.push(
        fieldInvalid(
          `${path}.items.x-kubernetes-map-type`,
          items['x-kubernetes-list-type'] ?? null,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errors.push(fieldNotSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (mapKeys.length > 0) {
    if (listType === undefined)
      errors.push(
        fieldRequired(
          `${path}.x-kubernetes-list-type`,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
    else if (listType !== 'map')
      errors.push(
        fieldInvalid(
          `${path}.x-kubernetes-list-type`,
          listType,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
  }
  if (listType === 'map') {
    if (mapKeys.length === 0)
      errors.push(
        fieldRequired(
          `${path}.x-kubernetes-list-map-keys`,
          'must not be empty if x-kubernetes-list-type is map',
        ),
      );
    if (schema.items === undefined || schema.items === null) {
      errors.push(fieldRequired(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    } else if (items === undefined) {
      errors.push(
        fieldInvalid(
          `${path}.items`,
          goBadValue(schema.items),
          'must only have a single schema if x-kubernetes-list-type is map',
        ),
      );
    } else if (items.type !== 'object') {
      errors.push(
        fieldInvalid(
          `${path}.items.type`,
          items.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    } else {
      const seen = new Set<string>();
      const properties = isJsonObject(items.properties) ? items.properties : {};
      for (const name of mapKeys) {
        const property = properties[name];
        if (isJsonObject(property)) {
          if (property.type === 'array' || property.type === 'object') {
            errors.push(
              fieldInvalid(
                `${key(`${path}.items.properties`, name)}.type`,
                items.type,
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              ),
            );
          }
        } else {
          errors.push(
            fieldInvalid(
              `${path}.x-kubernetes-list-map-keys`,
              mapKeys,
              'entries must all be names of item properties',
            ),
          );
        }
        if (seen.has(name))
          errors.push(
            fieldInvalid(`${path}.x-kubernetes-list-map-keys`, mapKeys, 'must not contain duplicate entries'),
          );
        seen.add(name);
      }
    }
  }
  mapListKeysChecks(schema, path, errors);
}
