// kube-apiserver's applyPatcher (endpoints/handlers/patch.go) with the field manager the generic
// registry builds per kind: PATCH with application/apply-patch+yaml decodes the YAML body, runs
// FieldManager.Apply over the live object (an empty one when absent, which creates it) and writes
// the result as an update or create, answering conflicts with 409 and their causes.
import { isMap, isScalar, LineCounter, parseDocument, parse as parseYaml, visit, YAMLParseError } from 'yaml';
import { isJsonObject, type KubeObject, type ManagedFieldsEntry } from '../../api/object.js';
import { type FieldError, fieldForbidden, fieldRequired } from '../../api/selectors/field-errors.js';
import { ApplyBadRequestError, FieldManager } from '../apply/field-manager.js';
import { fieldElement } from '../apply/fieldpath/path-element.js';
import { FieldSet } from '../apply/fieldpath/set.js';
import { ManagedFieldsError } from '../apply/managed-fields.js';
import { ApplyConflictError } from '../apply/merge/conflicts.js';
import { sameSchemaConverter } from '../apply/merge/updater.js';
import {
  parentEntriesFromScale,
  type ReplicasPaths,
  replicasPathOf,
  scaleEntriesFromParent,
} from '../apply/scale-handler.js';
import { builtinType } from '../apply/typed/builtin-types.js';
import { TypedValueError } from '../apply/typed/schema.js';
import { VersionConversionError, versionConverter } from '../apply/version-converter.js';
import { ANY_SHAPE } from '../field-validation/shapes.js';
import { scanStrictErrors } from '../field-validation/strict-scan.js';
import type { JsonObject } from '../patch/json-value.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { validateFieldManager } from '../registry/validation/object-meta.js';
import { badRequest, invalid, StatusError } from '../status.js';
import { kindVersionsOf, resetFieldVersions } from './apply-versions.js';

/** PatchOptions validation (ValidatePatchOptions): what `force` and `fieldManager` may be per patch type. */
export function checkPatchOptions(query: URLSearchParams, apply: boolean): void {
  const errors: FieldError[] = [];
  if (!apply && query.has('force'))
    errors.push(fieldForbidden('force', 'may not be specified for non-apply patch'));
  if (apply && !query.get('fieldManager'))
    errors.push(fieldRequired('fieldManager', 'is required for apply patch'));
  errors.push(...validateFieldManager(query.get('fieldManager') ?? '', 'fieldManager'));
  if (errors.length > 0) throw invalid('meta.k8s.io', 'PatchOptions', '', errors);
}

/** The fieldManager check of ValidateCreateOptions and ValidateUpdateOptions. */
export function checkWriteOptions(query: URLSearchParams, kind: 'CreateOptions' | 'UpdateOptions'): void {
  const errors = validateFieldManager(query.get('fieldManager') ?? '', 'fieldManager');
  if (errors.length > 0) throw invalid('meta.k8s.io', kind, '', errors);
}

const managers = new WeakMap<ResourceStore, Map<string, FieldManager>>();

/** The field manager of a resource's objects written through `subresource` ("" for the main resource). */
export function fieldManagerFor(resources: ResourceStore, subresource: string): FieldManager {
  let bySubresource = managers.get(resources);
  if (!bySubresource) {
    bySubresource = new Map();
    managers.set(resources, bySubresource);
  }
  let manager = bySubresource.get(subresource);
  if (manager) return manager;
  if (subresource === 'scale') {
    // The scale subresource's manager works on autoscaling/v1 Scale (see scale-handler.ts).
    const scaleType = builtinType('autoscaling', 'v1', 'Scale');
    if (!scaleType) throw new StatusError(500, 'InternalError', 'no schema for autoscaling/v1, Kind=Scale');
    manager = new FieldManager({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      subresource,
      converter: sameSchemaConverter(scaleType),
    });
    bySubresource.set(subresource, manager);
    return manager;
  }
  const { info } = resources;
  const apiVersion = info.group === '' ? info.version : `${info.group}/${info.version}`;
  const versions = kindVersionsOf(resources);
  if (!versions.typeAt(apiVersion))
    throw new StatusError(500, 'InternalError', `no schema for ${apiVersion}, Kind=${info.kind}`);
  // The strategy's reset fields: the main resource does not write status, the status subresource only status.
  const hasStatus = info.subresources.some((s) => s.name === 'status');
  const reset =
    subresource === 'status'
      ? FieldSet.of([fieldElement('spec')])
      : hasStatus && subresource === ''
        ? FieldSet.of([fieldElement('status')])
        : undefined;
  manager = new FieldManager({
    apiVersion,
    kind: info.kind,
    subresource,
    converter: versionConverter(versions),
    ...(reset ? { ignoredFields: new Map(resetFieldVersions(resources).map((v) => [v, reset])) } : {}),
  });
  bySubresource.set(subresource, manager);
  return manager;
}

// Go's encoding/json names for the JSON value a map cannot be decoded from.
function goJsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  return 'string';
}

/**
 * The body as an object when it is JSON text, which most clients send (client-go's apply
 * configurations, kubectl --server-side, the controllers): JSON is YAML, and decodes to the same
 * value, but JSON.parse reads a 4 KB ClusterRole in 0.1 ms where the YAML parser takes 10–30.
 */
function jsonObjectBody(text: string): JsonObject | undefined {
  if (text.trimStart()[0] !== '{') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? (value as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The apply configuration in a request body: a YAML (or JSON) object, else upstream's 400. Decoded
 * leniently as yaml.v2 does: a key set twice keeps its last value (see strictApplyBodyError).
 */
export function decodeApplyBody(body: string | Uint8Array): JsonObject {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const json = jsonObjectBody(text);
  if (json !== undefined) return json;
  let value: unknown;
  try {
    value = parseYaml(text, { version: '1.1', prettyErrors: false, uniqueKeys: false });
  } catch (error) {
    if (error instanceof YAMLParseError) throw badRequest(`error decoding YAML: ${error.message}`);
    throw error;
  }
  if (value === null || value === undefined) return {};
  if (!isJsonObject(value)) {
    throw badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonTypeName(value)} into Go value of type map[string]interface {}`,
    );
  }
  return value as JsonObject;
}

/** A map key as Go's %#v prints the decoded value: strings quoted, numbers and booleans bare. */
function goKeyText(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/**
 * What yaml.UnmarshalStrict finds in an apply body that the lenient decode let through: keys set
 * twice in one map, as `error converting YAML to JSON: yaml: unmarshal errors:` followed by a
 * `line N: key "k" already set in map` line per repeat (N is the repeat's line). Undefined when
 * there is none. applyPatcher refuses it under fieldValidation=Strict and warns under Warn.
 */
export function strictApplyBodyError(body: string | Uint8Array): string | undefined {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  // A JSON body without a repeated key needs no YAML parse; with one, the YAML parse below gives
  // the message its line numbers.
  if (jsonObjectBody(text) !== undefined && scanStrictErrors(Buffer.from(text), ANY_SHAPE).length === 0) {
    return undefined;
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { version: '1.1', uniqueKeys: false, lineCounter });
  const repeats: string[] = [];
  visit(document, {
    Map(_, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        const id = JSON.stringify(key);
        if (!seen.has(id)) {
          seen.add(id);
          continue;
        }
        const offset = isScalar(pair.key) ? (pair.key.range?.[0] ?? 0) : 0;
        repeats.push(`line ${lineCounter.linePos(offset).line}: key ${goKeyText(key)} already set in map`);
      }
    },
  });
  if (repeats.length === 0) return undefined;
  return `error converting YAML to JSON: yaml: unmarshal errors:\n  ${repeats.join('\n  ')}`;
}

/** FieldManager.Apply with its errors as the Status kube-apiserver answers. */
export function applyConfiguration(
  fieldManager: FieldManager,
  live: KubeObject,
  applied: JsonObject,
  manager: string,
  force: boolean,
  kindText: string,
): KubeObject {
  try {
    return fieldManager.apply(live as JsonObject, applied, manager, force) as KubeObject;
  } catch (error) {
    if (error instanceof ApplyConflictError) {
      throw new StatusError(409, 'Conflict', error.message, { causes: error.causes() });
    }
    if (error instanceof ApplyBadRequestError) throw badRequest(error.message);
    // A manager's version the object cannot be converted to: upstream's plain error, a 500.
    if (error instanceof VersionConversionError) throw new StatusError(500, '', error.message);
    if (error instanceof TypedValueError) {
      throw badRequest(`failed to create typed patch object (${kindText}): ${error.message}`);
    }
    throw error;
  }
}

/**
 * The manager an update is recorded under: the fieldManager parameter, else the User-Agent up to
 * its first "/", printable characters only, at most 128 (upstream's prefixFromUserAgent).
 */
export function updateManager(query: URLSearchParams, userAgent: string | undefined): string {
  const given = query.get('fieldManager');
  if (given) return given;
  let out = '';
  for (const char of (userAgent ?? '').split('/')[0] ?? '') {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(char)) continue;
    if (out.length >= 128) break;
    out += char;
  }
  return out;
}

/**
 * FieldManager.UpdateNoErrors for a create, update or non-apply patch on the main resource or
 * its status: managedFields that cannot be computed are dropped, never failing the write.
 */
export function managedFieldsUpdater(
  resources: ResourceStore,
  subresource: string,
  manager: string,
): ((live: KubeObject, next: KubeObject) => KubeObject) | undefined {
  if (subresource !== '' && subresource !== 'status') return undefined;
  return (live, next) => {
    try {
      return fieldManagerFor(resources, subresource).update(
        live as JsonObject,
        next as JsonObject,
        manager,
      ) as KubeObject;
    } catch {
      const { managedFields: _dropped, ...metadata } = next.metadata ?? {};
      return { ...next, metadata };
    }
  };
}

/** The parent's replicas path per API version, for the scale subresource's managedFields. */
export function replicasPaths(resources: ResourceStore): ReplicasPaths {
  const { info } = resources;
  const apiVersion = info.group === '' ? info.version : `${info.group}/${info.version}`;
  const custom = resources.custom;
  if (!custom) return new Map([[apiVersion, [fieldElement('spec'), fieldElement('replicas')]]]);
  const path = custom.scale?.specReplicasPath;
  const paths = new Map([[apiVersion, path ? replicasPathOf(path) : undefined]]);
  // Upstream maps every version of the CRD: entries recorded at another version move too.
  for (const [version, versionPath] of custom.versionReplicasPaths ?? []) {
    paths.set(`${info.group}/${version}`, versionPath ? replicasPathOf(versionPath) : undefined);
  }
  return paths;
}

/**
 * The scale subresource's write with the parent's managedFields translated for it: `write` gets
 * the current Scale carrying the Scale view of the entries and returns the new Scale (with its
 * entries, from the field manager); the result is the parent's new entries. Entries that cannot
 * be decoded leave the parent's as they are, as UpdateNoErrors would.
 */
export function trackedScaleWrite(
  resources: ResourceStore,
  parent: KubeObject,
  currentScale: KubeObject,
  write: (scale: KubeObject) => KubeObject,
): { scale: KubeObject; managedFields: ManagedFieldsEntry[] | undefined } {
  const paths = replicasPaths(resources);
  const parentEntries = parent.metadata?.managedFields ?? [];
  const { info } = resources;
  const apiVersion = info.group === '' ? info.version : `${info.group}/${info.version}`;
  let scaleEntries: ManagedFieldsEntry[];
  try {
    scaleEntries = scaleEntriesFromParent(parentEntries, paths);
  } catch (error) {
    if (!(error instanceof ManagedFieldsError)) throw error;
    return { scale: write(currentScale), managedFields: parent.metadata?.managedFields };
  }
  const withEntries = scaleEntries.length > 0 ? scaleEntries : undefined;
  const scale = write({
    ...currentScale,
    metadata: { ...currentScale.metadata, managedFields: withEntries },
  });
  const managedFields = parentEntriesFromScale(
    parentEntries,
    scale.metadata?.managedFields ?? [],
    paths,
    apiVersion,
  );
  return { scale, managedFields };
}
