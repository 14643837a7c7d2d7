// The checks a CRD's openAPIV3Schema must pass (apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go: validateCustomResourceDefinitionValidation and
// ValidateCustomResourceDefinitionOpenAPISchema, with defaulting/validation.go's ValidateDefaults),
// for v1 CRDs: structural, valid property types, atomic sets, list-map keys with defaults or
// required, pruned and valid defaults, rule shapes. Compiling CEL rules is src/apiserver/cel's part.
import {
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
} from '../../../api/selectors/index.js';
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { additionalPropertiesSchema, itemsSchema } from './compiled.js';
import { validateDefaults } from './default-validation.js';
import { checkDepth, isJsonObject } from './json-value.js';
import { listAndMapChecks } from './list-map-checks.js';
import { entriesOf, isSet, key, schemasOf } from './schema-props.js';
import { structuralConversionError, validateStructural } from './structural.js';
import { validationRuleChecks } from './validation-rule-checks.js';

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/** specStandardValidatorV3's state as it walks down. */
interface Walk {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason: string;
  readonly insideResourceMeta: boolean;
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
