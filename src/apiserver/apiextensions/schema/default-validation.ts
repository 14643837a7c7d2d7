// The `default`s of a CRD schema (apiextensions-apiserver schema/defaulting/validation.go
// ValidateDefaults): each must be pruned already, give valid metadata where it is a resource, and
// validate against its own schema.
import { type FieldError, fieldInvalid } from '../../../api/selectors/index.js';
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { asResourceRoot, compileSchema, itemsSchema } from './compiled.js';
import { validateValue } from './instance-validation.js';
import { checkDepth, deepCopyJson, goBadValue, isJsonObject, jsonEqual } from './json-value.js';
import { objectMetaDecodeError, validateEmbeddedResources } from './object-meta.js';
import { type OpenApiError, toFieldErrors } from './openapi-errors.js';
import { pruneValue } from './pruning.js';
import { entriesOf, key } from './schema-props.js';

const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

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
export function validateDefaults(
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
