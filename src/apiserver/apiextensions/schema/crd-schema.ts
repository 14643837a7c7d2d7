// The checks a CRD's openAPIV3Schema must pass (apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go: validateCustomResourceDefinitionValidation and
// ValidateCustomResourceDefinitionOpenAPISchema, with defaulting/validation.go's ValidateDefaults),
// for v1 CRDs: structural, valid property types, atomic sets, list-map keys with defaults or
// required, pruned and valid defaults. CEL rules (x-kubernetes-validations) are checked elsewhere.
import {
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../api/selectors/index.js';
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { additionalPropertiesSchema, asResourceRoot, compileSchema, itemsSchema } from './compiled.js';
import { validFieldPath } from './field-path.js';
import { validateValue } from './instance-validation.js';
import { checkDepth, deepCopyJson, goBadValue, isJsonObject, jsonEqual } from './json-value.js';
import { objectMetaDecodeError, validateEmbeddedResources } from './object-meta.js';
import { type OpenApiError, toFieldErrors } from './openapi-errors.js';
import { pruneValue } from './pruning.js';
import { structuralConversionError, validateStructural } from './structural.js';

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/** specStandardValidatorV3's state as it walks down. */
interface Walk {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason: string;
  readonly insideResourceMeta: boolean;
}

const key = (path: string, name: string) => `${path}[${name}]`;

function entriesOf(value: unknown): Array<[string, JSONSchemaProps]> {
  if (!isJsonObject(value)) return [];
  return Object.entries(value).filter((entry): entry is [string, JSONSchemaProps] => isJsonObject(entry[1]));
}

function schemasOf(list: unknown): JSONSchemaProps[] {
  return Array.isArray(list) ? list.filter(isJsonObject) : [];
}

function isSet(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (isJsonObject(value)) return Object.keys(value).length > 0;
  return true;
}

/** specStandardValidatorV3.validate. */
function standardChecks(schema: JSONSchemaProps, path: string, walk: Walk, errors: FieldError[]): void {
  if (typeof schema.type === 'string' && schema.type !== '' && !OPENAPI_V3_TYPES.includes(schema.type)) {
    errors.push(fieldNotSupported(`${path}.type`, schema.type, OPENAPI_V3_TYPES));
  }
  if (schema.default !== undefined && schema.default !== null && !walk.allowDefaults) {
    const reason = walk.disallowDefaultsReason;
    errors.push(
      fieldForbidden(`${path}.default`, reason === '' ? 'must not be set' : `must not be set ${reason}`),
    );
  }
  if (typeof schema.id === 'string' && schema.id !== '')
    errors.push(fieldForbidden(`${path}.id`, 'id is not supported'));
  if (schema.additionalItems !== undefined && schema.additionalItems !== null) {
    errors.push(fieldForbidden(`${path}.additionalItems`, 'additionalItems is not supported'));
  }
  if (isSet(schema.patternProperties))
    errors.push(fieldForbidden(`${path}.patternProperties`, 'patternProperties is not supported'));
  if (isSet(schema.definitions))
    errors.push(fieldForbidden(`${path}.definitions`, 'definitions is not supported'));
  if (schema.dependencies !== undefined && schema.dependencies !== null) {
    errors.push(fieldForbidden(`${path}.dependencies`, 'dependencies is not supported'));
  }
  if (schema.$ref !== undefined && schema.$ref !== null)
    errors.push(fieldForbidden(`${path}.$ref`, '$ref is not supported'));
  if (schema.type === 'null') {
    errors.push(fieldForbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  }
  if (Array.isArray(schema.items) && schema.items.length > 0) {
    errors.push(fieldForbidden(`${path}.items`, 'items must be a schema object and not an array'));
  }
  if (walk.insideResourceMeta && schema['x-kubernetes-embedded-resource'] === true) {
    errors.push(
      fieldForbidden(`${path}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'),
    );
  }
}

function forbidDefaults(walk: Walk, reason: string): Walk {
  return { ...walk, allowDefaults: false, disallowDefaultsReason: reason };
}

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
function listAndMapChecks(schema: JSONSchemaProps, path: string, errors: FieldError[]): void {
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
          schema.items,
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

const VALIDATION_REASONS = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];
const NEWLINES = /[\n\r]+/;

/**
 * The shape of x-kubernetes-validations rules (compiling them, cost and oldSelf placement are
 * the CEL checks, done by src/apiserver/cel).
 */
function validationRuleChecks(schema: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const rules = schema['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return;
  rules.forEach((rule, index) => {
    if (!isJsonObject(rule)) return;
    const at = (field: string) => `${path}.x-kubernetes-validations[${index}].${field}`;
    const text = typeof rule.rule === 'string' ? rule.rule : '';
    const message = typeof rule.message === 'string' ? rule.message : '';
    const trimmedRule = text.trim();
    const trimmedMessage = message.trim();
    if (trimmedRule === '') errors.push(fieldRequired(at('rule'), 'rule is not specified'));
    else if (message !== '' && trimmedMessage === '') {
      errors.push(fieldInvalid(at('message'), message, 'message must be non-empty if specified'));
    } else if (NEWLINES.test(trimmedMessage)) {
      errors.push(fieldInvalid(at('message'), message, 'message must not contain line breaks'));
    } else if (NEWLINES.test(trimmedRule) && trimmedMessage === '') {
      errors.push(fieldRequired(at('message'), 'message must be specified if rule contains line breaks'));
    }
    const messageExpression = typeof rule.messageExpression === 'string' ? rule.messageExpression : '';
    if (messageExpression !== '' && messageExpression.trim() === '') {
      errors.push(fieldRequired(at('messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (typeof rule.reason === 'string' && !VALIDATION_REASONS.includes(rule.reason)) {
      errors.push(fieldNotSupported(at('reason'), rule.reason, VALIDATION_REASONS));
    }
    const fieldPath = typeof rule.fieldPath === 'string' ? rule.fieldPath : '';
    if (fieldPath !== '' && fieldPath.trim() === '') {
      errors.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    }
    if (NEWLINES.test(fieldPath))
      errors.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    if (fieldPath !== '' && structuralConversionError(schema) === undefined) {
      if (validFieldPath(fieldPath, compileSchema(schema)) instanceof Error) {
        errors.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must be a valid path'));
      }
    }
  });
}

/** ValidateCustomResourceDefinitionOpenAPISchema (without the CEL part). */
function validateOpenApiSchema(
  schema: JSONSchemaProps,
  path: string,
  walk: Walk,
  isRoot: boolean,
  depth: number,
  errors: FieldError[],
): void {
  checkDepth(depth, path);
  standardChecks(schema, path, walk, errors);
  if (schema.uniqueItems === true) {
    errors.push(
      fieldForbidden(
        `${path}.uniqueItems`,
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  const properties = entriesOf(schema.properties);
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== null) {
    const additional = additionalPropertiesSchema(schema);
    if (properties.length > 0 && (schema.additionalProperties === false || additional !== undefined)) {
      errors.push(
        fieldForbidden(
          `${path}.additionalProperties`,
          'additionalProperties and properties are mutual exclusive',
        ),
      );
    }
    const sub = walk.insideResourceMeta
      ? forbidDefaults(walk, 'inside additionalProperties applying to object metadata')
      : walk;
    if (additional !== undefined)
      validateOpenApiSchema(additional, `${path}.additionalProperties`, sub, false, depth + 1, errors);
  }
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  for (const [name, property] of properties) {
    let sub = walk;
    if ((isRoot || embedded) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = forbidDefaults(sub, `in top-level ${name}`);
    }
    validateOpenApiSchema(property, key(`${path}.properties`, name), sub, false, depth + 1, errors);
  }
  if (isJsonObject(schema.not))
    validateOpenApiSchema(schema.not, `${path}.not`, walk, false, depth + 1, errors);
  schemasOf(schema.allOf).forEach((sub, i) => {
    validateOpenApiSchema(sub, `${path}.allOf[${i}]`, walk, false, depth + 1, errors);
  });
  schemasOf(schema.oneOf).forEach((sub, i) => {
    validateOpenApiSchema(sub, `${path}.oneOf[${i}]`, walk, false, depth + 1, errors);
  });
  schemasOf(schema.anyOf).forEach((sub, i) => {
    validateOpenApiSchema(sub, `${path}.anyOf[${i}]`, walk, false, depth + 1, errors);
  });
  for (const [name, definition] of entriesOf(schema.definitions)) {
    validateOpenApiSchema(definition, key(`${path}.definitions`, name), walk, false, depth + 1, errors);
  }
  const items = itemsSchema(schema);
  if (items !== undefined) validateOpenApiSchema(items, `${path}.items`, walk, false, depth + 1, errors);
  else if (Array.isArray(schema.items)) {
    schemasOf(schema.items).forEach((sub, i) => {
      validateOpenApiSchema(sub, `${path}.items[${i}]`, walk, false, depth + 1, errors);
    });
  }
  for (const [name, dependency] of entriesOf(schema.dependencies)) {
    validateOpenApiSchema(dependency, key(`${path}.dependencies`, name), walk, false, depth + 1, errors);
  }
  listAndMapChecks(schema, path, errors);
  validationRuleChecks(schema, path, errors);
}

/** One default: pruned, valid metadata where it is a resource, and valid against its schema. */
function validateOneDefault(
  schema: JSONSchemaProps,
  path: string,
  isRoot: boolean,
  insideMeta: boolean,
): FieldError[] {
  const value = schema.default;
  const compiled = isRoot ? asResourceRoot(compileSchema(schema)) : compileSchema(schema);
  const defaultPath = `${path}.default`;
  const errors: FieldError[] = [];
  const openApi = (): FieldError[] => {
    const found: OpenApiError[] = [];
    validateValue(compiled, value, '', 0, found);
    return toFieldErrors(found, defaultPath);
  };
  if (insideMeta) return openApi();
  const pruned = deepCopyJson(value);
  pruneValue(compiled, pruned, compiled.embeddedResource);
  if (!jsonEqual(pruned, value))
    errors.push(fieldInvalid(defaultPath, goBadValue(value), 'must not have unknown fields'));
  const metadataProblem =
    compiled.embeddedResource && isJsonObject(value) ? objectMetaDecodeError(value.metadata) : undefined;
  if (metadataProblem !== undefined) {
    errors.push(
      fieldInvalid(
        `${defaultPath}.metadata`,
        goBadValue(isJsonObject(value) ? value.metadata : null),
        metadataProblem,
      ),
    );
    return errors;
  }
  const metaErrors = validateEmbeddedResources(compiled, value, defaultPath);
  if (metaErrors.length > 0) return [...errors, ...metaErrors];
  return [...errors, ...openApi()];
}

/** ValidateDefaults: every default along properties and items. */
function validateDefaults(
  schema: JSONSchemaProps,
  path: string,
  isRoot: boolean,
  insideMeta: boolean,
  depth: number,
  errors: FieldError[],
): void {
  checkDepth(depth, path);
  const embedded = isRoot || schema['x-kubernetes-embedded-resource'] === true;
  const meta = embedded ? false : insideMeta;
  if (schema.default !== undefined && schema.default !== null)
    errors.push(...validateOneDefault(schema, path, isRoot, meta));
  const items = itemsSchema(schema);
  if (items !== undefined) validateDefaults(items, `${path}.items`, false, meta, depth + 1, errors);
  for (const [name, property] of entriesOf(schema.properties)) {
    const subMeta = meta || (embedded && META_FIELDS.has(name));
    validateDefaults(property, key(`${path}.properties`, name), false, subMeta, depth + 1, errors);
  }
}

/** The whole check of one version's openAPIV3Schema sitting at `path`. */
export function checkCrdSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.nullable === true)
    errors.push(fieldForbidden(`${path}.nullable`, 'nullable cannot be true at the root'));
  const conversionError = structuralConversionError(schema);
  const structuralErrors: FieldError[] = [];
  if (conversionError !== undefined) {
    structuralErrors.push(fieldInvalid(path, '', conversionError));
  } else {
    const invariants = validateStructural(schema, path);
    if (invariants.length > 0) errors.push(...invariants);
    else validateDefaults(schema, path, true, false, 0, errors);
  }
  validateOpenApiSchema(
    schema,
    path,
    { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false },
    true,
    0,
    errors,
  );
  if (errors.length === 0) errors.push(...structuralErrors);
  return errors;
}
