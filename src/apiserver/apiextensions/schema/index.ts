// apiextensions-apiserver's structural schemas (pkg/apiserver/schema), and what the API server does
// with them for custom resources: validation, defaulting and pruning. This file is the seam the
// CRD registry calls; the implementations live beside it.
import { type FieldError, fieldInvalid } from '../../../api/selectors/field-errors.js';
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { compileSchema } from './compiled.js';
import { checkCrdSchema } from './crd-schema.js';
import { applySchemaDefaults } from './defaulting.js';
import { validFieldPath } from './field-path.js';
import { validateValue } from './instance-validation.js';
import { MAX_NESTING_DEPTH, NestingTooDeepError } from './json-value.js';
import { validateListSetsAndMaps } from './list-type.js';
import { validateEmbeddedResources } from './object-meta.js';
import { type OpenApiError, toFieldErrors } from './openapi-errors.js';
import { pruneResource } from './pruning.js';

export { validFieldPath } from './field-path.js';
export { MAX_NESTING_DEPTH } from './json-value.js';

/** A rule's `fieldPath` resolved against the schema node it sits on (for the CEL rules' errors). */
export function fieldPathOf(schema: JSONSchemaProps, jsonPath: string): string | Error {
  return validFieldPath(jsonPath, compileSchema(schema));
}

/** The refusal of a schema or value nested deeper than we walk. */
function tooDeep(path: string): FieldError {
  return fieldInvalid(path, '', `must not be nested more than ${MAX_NESTING_DEPTH} levels deep`);
}

/**
 * Checks one CRD version's `openAPIV3Schema` as apiextensions-apiserver's CRD validation does
 * (structural rules, allowed formats and extensions, defaults that validate). `path` is where the
 * schema sits, e.g. `spec.versions[0].schema.openAPIV3Schema`.
 */
export function validateCrdSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  try {
    return checkCrdSchema(schema, path);
  } catch (error) {
    if (error instanceof NestingTooDeepError) return [tooDeep(path)];
    throw error;
  }
}

/** Validates a custom resource against its version's schema, with upstream's field errors. */
export function validateCustomResource(
  schema: JSONSchemaProps,
  object: Record<string, unknown>,
): FieldError[] {
  try {
    const compiled = compileSchema(schema);
    const found: OpenApiError[] = [];
    validateValue(compiled, object, '', 0, found);
    return [
      ...toFieldErrors(found),
      ...validateEmbeddedResources(compiled, object),
      ...validateListSetsAndMaps(compiled, object),
    ];
  } catch (error) {
    if (error instanceof NestingTooDeepError) return [tooDeep(error.path === '' ? '<nil>' : error.path)];
    throw error;
  }
}

/**
 * Validates an update of a custom resource: as validateCustomResource, except that schema errors
 * of values the update left as they were are dropped (validation ratcheting, as 1.33 does by
 * default), so objects stored under an older, looser schema can still be updated.
 */
export function validateCustomResourceUpdate(
  schema: JSONSchemaProps,
  object: Record<string, unknown>,
  old: Record<string, unknown>,
): FieldError[] {
  try {
    const compiled = compileSchema(schema);
    const found: OpenApiError[] = [];
    validateValue(compiled, object, '', 0, found, { value: old });
    return [
      ...toFieldErrors(found),
      ...validateEmbeddedResources(compiled, object),
      ...validateListSetsAndMaps(compiled, object),
    ];
  } catch (error) {
    if (error instanceof NestingTooDeepError) return [tooDeep(error.path === '' ? '<nil>' : error.path)];
    throw error;
  }
}

/** Applies the schema's `default`s to the object in place (on writes, and on reads from storage). */
export function applyDefaults(schema: JSONSchemaProps, object: Record<string, unknown>): void {
  try {
    applySchemaDefaults(compileSchema(schema), object);
  } catch (error) {
    // Only a schema nested beyond what CRD validation admits gets here; it gets no defaults.
    if (!(error instanceof NestingTooDeepError)) throw error;
  }
}

/**
 * Removes the fields the schema does not declare, honouring `x-kubernetes-preserve-unknown-fields`
 * and `x-kubernetes-embedded-resource`; returns the removed paths (`spec.foo`, `spec.items[0].bar`)
 * for `fieldValidation` Warn/Strict.
 */
export function pruneUnknownFields(schema: JSONSchemaProps, object: Record<string, unknown>): string[] {
  try {
    return pruneResource(compileSchema(schema), object);
  } catch (error) {
    if (!(error instanceof NestingTooDeepError)) throw error;
    return [];
  }
}
