// apimachinery's lastappliedmanager.go and lastappliedupdater.go: how `kubectl apply
// --server-side` takes over from client-side apply. A conflict of manager "kubectl" is allowed
// where the live object still holds what the last-applied-configuration annotation says; and an
// object that carries the annotation gets it rewritten from each "kubectl" server-side apply.
import { utf8Length } from '../../api/selectors/go-text.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../patch/json-value.js';
import { TOTAL_ANNOTATION_SIZE_LIMIT } from '../registry/validation/object-meta.js';
import type { FieldSet } from './fieldpath/set.js';
import { goJson } from './fieldpath/value-order.js';
import type { VersionConverter } from './merge/updater.js';
import { compareTyped } from './typed/compare.js';
import { toFieldSet } from './typed/to-field-set.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The only manager the migration applies to (kubectl's default for server-side apply). */
export const KUBECTL_MANAGER = 'kubectl';

function annotationsOf(object: JsonObject): JsonObject | undefined {
  const metadata = object.metadata;
  return isJsonObject(metadata) && isJsonObject(metadata.annotations) ? metadata.annotations : undefined;
}

function lastAppliedOf(object: JsonObject): string | undefined {
  const value = annotationsOf(object)?.[LAST_APPLIED_ANNOTATION];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * allowedConflictsFromLastApplied: the fields of the annotation's object that the live object
 * still has unchanged; undefined where upstream gives up (no annotation, bad JSON, other version).
 */
export function allowedConflictsFromLastApplied(
  live: JsonObject,
  apiVersion: string,
  converter: VersionConverter,
): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined) return undefined;
  let lastApplied: JsonValue;
  try {
    lastApplied = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  if (!isJsonObject(lastApplied) || lastApplied.apiVersion !== apiVersion) return undefined;
  const type = converter.typeAt(apiVersion);
  const versionedLive = converter.convert(live, apiVersion);
  if (!type || versionedLive === undefined) return undefined;
  try {
    const set = toFieldSet(type, lastApplied);
    const comparison = compareTyped(type, lastApplied, versionedLive);
    return set.difference(comparison.modified).difference(comparison.added).difference(comparison.removed);
  } catch {
    return undefined;
  }
}

/**
 * lastAppliedUpdater: when the result carries the annotation, it becomes the applied configuration
 * (without the annotation) as Go's unstructured encoder writes it; dropped again if the
 * annotations would then exceed their total size limit.
 */
export function updateLastApplied(result: JsonObject, applied: JsonObject): JsonObject {
  const annotations = annotationsOf(result);
  if (lastAppliedOf(result) === undefined || !annotations) return result;
  const appliedMetadata = isJsonObject(applied.metadata) ? applied.metadata : undefined;
  let source: JsonObject = applied;
  if (appliedMetadata && isJsonObject(appliedMetadata.annotations)) {
    const { [LAST_APPLIED_ANNOTATION]: _dropped, ...rest } = appliedMetadata.annotations;
    source = { ...applied, metadata: { ...appliedMetadata, annotations: rest } };
  }
  const next: JsonObject = { ...annotations, [LAST_APPLIED_ANNOTATION]: `${goJson(source)}\n` };
  let size = 0;
  for (const [key, value] of Object.entries(next)) size += utf8Length(key) + utf8Length(String(value));
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) delete next[LAST_APPLIED_ANNOTATION];
  return { ...result, metadata: { ...(result.metadata as JsonObject), annotations: next } };
}
