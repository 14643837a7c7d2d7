// apiextensions-apiserver's structural schemas (pkg/apiserver/schema), and what the API server does
// with them for custom resources: validation, defaulting and pruning. This file is the seam the
// CRD registry calls; the implementations live beside it.
import type { FieldError } from '../../../api/selectors/field-errors.js';
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';

/**
 * Checks one CRD version's `openAPIV3Schema` as apiextensions-apiserver's CRD validation does
 * (structural rules, allowed formats and extensions, defaults that validate). `path` is where the
 * schema sits, e.g. `spec.versions[0].schema.openAPIV3Schema`.
 */
export function validateCrdSchema(_schema: JSONSchemaProps, _path: string): FieldError[] {
  return [];
}

/** Validates a custom resource against its version's schema, with upstream's field errors. */
export function validateCustomResource(
  _schema: JSONSchemaProps,
  _object: Record<string, unknown>,
): FieldError[] {
  return [];
}

/** Applies the schema's `default`s to the object in place (on writes, and on reads from storage). */
export function applyDefaults(_schema: JSONSchemaProps, _object: Record<string, unknown>): void {}

/**
 * Removes the fields the schema does not declare, honouring `x-kubernetes-preserve-unknown-fields`
 * and `x-kubernetes-embedded-resource`; returns the removed paths (`spec.foo`, `spec.items[0].bar`)
 * for `fieldValidation` Warn/Strict.
 */
export function pruneUnknownFields(_schema: JSONSchemaProps, _object: Record<string, unknown>): string[] {
  return [];
}
