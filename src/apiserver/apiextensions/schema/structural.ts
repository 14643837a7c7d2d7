// Structural-schema rules (apiextensions-apiserver pkg/apiserver/schema: convert.go's
// NewStructural refusals, validation.go's ValidateStructural, complete.go's completeness), run on
// the JSONSchemaProps as written, with upstream's field paths and texts, sorted as upstream sorts.
import {
  type FieldError,
  fieldErrorMessage,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
} from '../../../api/selectors/index.js';
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { additionalPropertiesSchema, itemsSchema } from './compiled.js';
import { goRegexpError } from './go-regexp.js';
import { checkDepth, isJsonObject, jsonEqual } from './json-value.js';
import { key, schemasOf } from './schema-props.js';

type Level = 'root' | 'item' | 'field';

function propertiesOf(schema: JSONSchemaProps): Array<[string, JSONSchemaProps]> {
  if (!isJsonObject(schema.properties)) return [];
  return Object.entries(schema.properties).filter((entry): entry is [string, JSONSchemaProps] =>
    isJsonObject(entry[1]),
  );
}

const UNSUPPORTED: ReadonlyArray<[keyof JSONSchemaProps, string]> = [
  ['id', 'id'],
  ['$schema', 'schema'],
  ['$ref', '$ref'],
  ['patternProperties', 'patternProperties'],
  ['dependencies', 'dependencies'],
  ['additionalItems', 'additionalItems'],
  ['definitions', 'definitions'],
];

function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (isJsonObject(value)) return Object.keys(value).length > 0;
  return true;
}

/** NewStructural's refusal, or undefined when the schema converts. */
export function structuralConversionError(schema: JSONSchemaProps, depth = 0): string | undefined {
  checkDepth(depth, '');
  for (const [field, name] of UNSUPPORTED) {
    if (isSet(schema[field])) return `OpenAPIV3Schema '${name}' is not supported`;
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] === false) {
    return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  }
  if (Array.isArray(schema.items)) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const children = [
    ...schemasOf(schema.allOf),
    ...schemasOf(schema.anyOf),
    ...schemasOf(schema.oneOf),
    ...(isJsonObject(schema.not) ? [schema.not] : []),
    ...propertiesOf(schema).map(([, sub]) => sub),
    ...[itemsSchema(schema), additionalPropertiesSchema(schema)].filter((sub) => sub !== undefined),
  ];
  for (const child of children) {
    const error = structuralConversionError(child, depth + 1);
    if (error !== undefined) return error;
  }
  return undefined;
}

const INT_OR_STRING_ANY_OF = [{ type: 'integer' }, { type: 'string' }];

function isIntOrStringAnyOf(anyOf: unknown): boolean {
  return Array.isArray(anyOf) && anyOf.length === 2 && jsonEqual(anyOf, INT_OR_STRING_ANY_OF);
}

/** Whether a schema value (from a value-validation clause) carries a nonzero entry. */
function present(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function validateNested(
  schema: JSONSchemaProps | undefined,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  path: string,
  depth: number,
  errors: FieldError[],
): void {
  if (schema === undefined) return;
  checkDepth(depth, path);
  validateValueValidation(schema, skipAnyOf, skipFirstAllOfAnyOf, path, depth, errors);
  const items = itemsSchema(schema);
  if (items !== undefined) validateNested(items, false, false, `${path}.items`, depth + 1, errors);
  for (const [name, property] of propertiesOf(schema)) {
    validateNested(property, false, false, key(`${path}.properties`, name), depth + 1, errors);
  }
  const forbidden = (field: string, detail: string) =>
    errors.push(fieldForbidden(`${path}.${field}`, detail));
  if (present(schema.type)) forbidden('type', 'must be empty to be structural');
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== null) {
    forbidden('additionalProperties', 'must be undefined to be structural');
  }
  if (schema.default !== undefined && schema.default !== null)
    forbidden('default', 'must be undefined to be structural');
  if (present(schema.title)) forbidden('title', 'must be empty to be structural');
  if (present(schema.description)) forbidden('description', 'must be empty to be structural');
  if (schema.nullable === true) forbidden('nullable', 'must be false to be structural');
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) {
    forbidden('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
  }
  if (schema['x-kubernetes-embedded-resource'] === true)
    forbidden('x-kubernetes-embedded-resource', 'must be false to be structural');
  if (schema['x-kubernetes-int-or-string'] === true)
    forbidden('x-kubernetes-int-or-string', 'must be false to be structural');
  if (present(schema['x-kubernetes-list-map-keys']))
    forbidden('x-kubernetes-list-map-keys', 'must be empty to be structural');
  if (schema['x-kubernetes-list-type'] !== undefined)
    forbidden('x-kubernetes-list-type', 'must be undefined to be structural');
  if (schema['x-kubernetes-map-type'] !== undefined)
    forbidden('x-kubernetes-map-type', 'must be undefined to be structural');
  if (present(schema['x-kubernetes-validations']))
    forbidden('x-kubernetes-validations', 'must be empty to be structural');
  if (isJsonObject(schema.properties) && Object.hasOwn(schema.properties, 'metadata')) {
    errors.push(
      fieldForbidden(key(`${path}.properties`, 'metadata'), 'must not be specified in a nested context'),
    );
  }
}

function validateValueValidation(
  schema: JSONSchemaProps,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  path: string,
  depth: number,
  errors: FieldError[],
): void {
  if (!skipAnyOf) {
    schemasOf(schema.anyOf).forEach((sub, i) => {
      validateNested(sub, false, false, `${path}.anyOf[${i}]`, depth + 1, errors);
    });
  }
  schemasOf(schema.allOf).forEach((sub, i) => {
    validateNested(sub, skipFirstAllOfAnyOf && i === 0, false, `${path}.allOf[${i}]`, depth + 1, errors);
  });
  schemasOf(schema.oneOf).forEach((sub, i) => {
    validateNested(sub, false, false, `${path}.oneOf[${i}]`, depth + 1, errors);
  });
  if (isJsonObject(schema.not)) validateNested(schema.not, false, false, `${path}.not`, depth + 1, errors);
  if (typeof schema.pattern === 'string' && schema.pattern !== '') {
    const problem = goRegexpError(schema.pattern);
    if (problem !== undefined) {
      errors.push(
        fieldInvalid(
          `${path}.pattern`,
          schema.pattern,
          `must be a valid regular expression, but isn't: ${problem}`,
        ),
      );
    }
  }
}

/** validateStructuralMetadataInvariants at the root: only name and generateName may be specified. */
function rootMetadataIsImplicit(metadata: JSONSchemaProps): boolean {
  for (const [field, value] of Object.entries(metadata)) {
    if (value === undefined || value === null) continue;
    if (field === 'type' || field === 'default') continue;
    if (field === 'properties') {
      if (!isJsonObject(value)) return false;
      const names = Object.keys(value);
      if (names.some((name) => name !== 'name' && name !== 'generateName')) return false;
      continue;
    }
    // Zero values count as unset, as Go's struct comparison sees them.
    if (value === false || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    return false;
  }
  return true;
}

function validateInvariants(
  schema: JSONSchemaProps,
  level: Level,
  path: string,
  depth: number,
  errors: FieldError[],
) {
  checkDepth(depth, path);
  const type = typeof schema.type === 'string' ? schema.type : '';
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const items = itemsSchema(schema);
  const properties = propertiesOf(schema);

  if (type === 'array' && items === undefined)
    errors.push(fieldRequired(`${path}.items`, 'must be specified'));
  if (items !== undefined) validateInvariants(items, 'item', `${path}.items`, depth + 1, errors);
  for (const [name, property] of properties) {
    validateInvariants(property, 'field', key(`${path}.properties`, name), depth + 1, errors);
  }
  // validateGeneric
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== null) {
    if (level === 'root')
      errors.push(fieldForbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    const additional = additionalPropertiesSchema(schema);
    if (additional !== undefined)
      validateInvariants(additional, 'field', `${path}.additionalProperties`, depth + 1, errors);
  }
  // validateExtensions
  if (intOrString && preserve) {
    errors.push(
      fieldInvalid(
        `${path}.x-kubernetes-preserve-unknown-fields`,
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (intOrString && embedded) {
    errors.push(
      fieldInvalid(
        `${path}.x-kubernetes-embedded-resource`,
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  const skipAnyOf = isIntOrStringAnyOf(schema.anyOf);
  const allOf = schemasOf(schema.allOf);
  const skipFirstAllOfAnyOf = allOf.length >= 1 && isIntOrStringAnyOf(allOf[0]!.anyOf);
  validateValueValidation(schema, skipAnyOf, skipFirstAllOfAnyOf, path, depth, errors);

  const checkMetadata = level === 'root' || embedded;
  if (embedded && type !== 'object') {
    if (type === '')
      errors.push(fieldRequired(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else
      errors.push(
        fieldInvalid(`${path}.type`, type, 'must be object if x-kubernetes-embedded-resource is true'),
      );
  } else if (type === '' && !intOrString && !preserve) {
    const detail =
      level === 'root'
        ? 'must not be empty at the root'
        : level === 'item'
          ? 'must not be empty for specified array items'
          : 'must not be empty for specified object fields';
    errors.push(fieldRequired(`${path}.type`, detail));
  }
  if (embedded && schema.additionalProperties !== undefined && schema.additionalProperties !== null) {
    errors.push(
      fieldForbidden(
        `${path}.additionalProperties`,
        'must not be used if x-kubernetes-embedded-resource is set',
      ),
    );
  }
  if (level === 'root' && type !== '' && type !== 'object')
    errors.push(fieldInvalid(`${path}.type`, type, 'must be object at the root'));
  const byName = new Map(properties);
  for (const field of ['kind', 'apiVersion']) {
    const sub = byName.get(field);
    if (sub !== undefined && checkMetadata && sub.type !== 'string') {
      errors.push(fieldInvalid(`${key(`${path}.properties`, field)}.type`, sub.type ?? '', 'must be string'));
    }
  }
  const metadata = byName.get('metadata');
  if (metadata !== undefined) {
    const metadataPath = key(`${path}.properties`, 'metadata');
    if (checkMetadata && metadata.type !== 'object') {
      errors.push(fieldInvalid(`${metadataPath}.type`, metadata.type ?? '', 'must be object'));
    }
    if (level === 'root' && !rootMetadataIsImplicit(metadata)) {
      errors.push(
        fieldForbidden(
          metadataPath,
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        ),
      );
    }
  }
  if (embedded && !preserve && properties.length === 0) {
    errors.push(
      fieldRequired(
        `${path}.properties`,
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
}

/** complete.go's validateValueValidationCompleteness: the combinators of `clause`. */
function completenessOfClauses(
  clause: JSONSchemaProps,
  structural: JSONSchemaProps,
  structuralPath: string,
  clausePath: string,
  depth: number,
  errors: FieldError[],
): void {
  const nested = (sub: JSONSchemaProps, subPath: string) =>
    completenessOfNested(sub, structural, structuralPath, subPath, depth + 1, errors);
  if (isJsonObject(clause.not)) nested(clause.not, `${clausePath}.not`);
  schemasOf(clause.allOf).forEach((sub, i) => {
    nested(sub, `${clausePath}.allOf[${i}]`);
  });
  schemasOf(clause.anyOf).forEach((sub, i) => {
    nested(sub, `${clausePath}.anyOf[${i}]`);
  });
  schemasOf(clause.oneOf).forEach((sub, i) => {
    nested(sub, `${clausePath}.oneOf[${i}]`);
  });
}

/** validateNestedValueValidationCompleteness: what a clause constrains must be specified structurally. */
function completenessOfNested(
  clause: JSONSchemaProps,
  structural: JSONSchemaProps | undefined,
  structuralPath: string,
  clausePath: string,
  depth: number,
  errors: FieldError[],
): void {
  checkDepth(depth, clausePath);
  if (structural === undefined) {
    errors.push(fieldRequired(structuralPath, `because it is defined in ${clausePath}`));
    return;
  }
  completenessOfClauses(clause, structural, structuralPath, clausePath, depth, errors);
  const items = itemsSchema(clause);
  if (items !== undefined) {
    completenessOfNested(
      items,
      itemsSchema(structural),
      `${structuralPath}.items`,
      `${clausePath}.items`,
      depth + 1,
      errors,
    );
  }
  const structuralProperties = isJsonObject(structural.properties) ? structural.properties : {};
  for (const [name, property] of propertiesOf(clause)) {
    const target = structuralProperties[name];
    const targetPath = key(`${structuralPath}.properties`, name);
    const propertyPath = key(`${clausePath}.properties`, name);
    if (!isJsonObject(target))
      errors.push(fieldRequired(targetPath, `because it is defined in ${propertyPath}`));
    else completenessOfNested(property, target, targetPath, propertyPath, depth + 1, errors);
  }
}

/** ValidateStructural: invariants and completeness, sorted by message as upstream sorts them. */
export function validateStructural(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  validateInvariants(schema, 'root', path, 0, errors);
  completenessOfClauses(schema, schema, path, path, 0, errors);
  return errors
    .map((error) => ({ error, message: fieldErrorMessage(error) }))
    .sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0))
    .map(({ error }) => error);
}
