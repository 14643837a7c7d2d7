// What one served version of a CRD becomes: its ResourceInfo (discovery's facts), its strategy
// (apiextensions-apiserver's customresource strategy and validator: schema, CEL rules, scale
// replicas, status subresource), its storage codec (conversion `None`: only apiVersion changes;
// defaults applied on every read) and its serving hooks (printer columns, scale).
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo, SubresourceInfo } from '../../api/resources/types.js';
import { type FieldError, fieldInvalid, fieldRequired } from '../../api/selectors/field-errors.js';
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';
import type { WebhookClientDeps } from '../admission/webhook/client.js';
import { blockingSchemaError, compileSchemaValidations, type SchemaValidationRules } from '../cel/index.js';
import type { CustomResourceServing } from '../registry/custom-resource-serving.js';
import { specChanged } from '../registry/object-meta.js';
import type { StorageCodec } from '../registry/resource-store.js';
import { makeStrategy, type Strategy } from '../registry/strategy.js';
import { fieldsOf, isJsonObject, stringOf } from '../registry/validation/json.js';
import { nameIsDnsSubdomain } from '../registry/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../registry/validation/object-meta.js';
import { customResourceConverter, customResourceWebhookConverter } from './conversion.js';
import type { ConversionWebhookMetrics } from './conversion-metrics.js';
import { acceptedNames, type CrdVersion, crdSpec } from './crd-object.js';
import { customResourcePrinter } from './printer-columns.js';
import { scaleAdapter } from './scale.js';
import {
  applyDefaults,
  MAX_NESTING_DEPTH,
  pruneUnknownFields,
  validateCustomResource,
  validateCustomResourceUpdate,
} from './schema/index.js';
import { canonicalJson } from './schema/json-value.js';
import { selectableFieldValues } from './selectable-fields.js';

const ALL_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
] as const;
const GET_PATCH_UPDATE = ['get', 'patch', 'update'] as const;
const MAX_INT32 = 2147483647;

export interface ServedVersion {
  readonly info: ResourceInfo;
  readonly strategy: Strategy;
  readonly codec: StorageCodec;
  readonly serving: Omit<CustomResourceServing, 'terminating'>;
}

/** Whether `value` nests objects or lists more than `limit` levels deep (walked without recursion). */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (depth > limit) return true;
    if (Array.isArray(current)) for (const item of current) pending.push([item, depth + 1]);
    else if (isJsonObject(current))
      for (const item of Object.values(current)) pending.push([item, depth + 1]);
  }
  return false;
}

/** discovery.StorageVersionHash: the first 8 bytes of SHA-256 over group/version/kind, base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256')
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}

function hasDefaults(schema: JSONSchemaProps | undefined): boolean {
  return schema !== undefined && JSON.stringify(schema).includes('"default":');
}

function apiVersion(group: string, version: string): string {
  return `${group}/${version}`;
}

/** ValidateTypeMeta of the customresource validator. */
function typeMetaErrors(object: KubeObject, kind: string, groupVersion: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!object.kind) errors.push(fieldRequired('kind', ''));
  else if (object.kind !== kind) errors.push(fieldInvalid('kind', object.kind, `must be ${kind}`));
  if (!object.apiVersion) errors.push(fieldRequired('apiVersion', ''));
  else if (object.apiVersion !== groupVersion)
    errors.push(fieldInvalid('apiVersion', object.apiVersion, `must be ${groupVersion}`));
  return errors;
}

function nestedValue(object: unknown, jsonPath: string): { found: boolean; value: unknown } {
  let current = object;
  for (const part of jsonPath.slice(1).split('.')) {
    if (!isJsonObject(current) || !(part in current)) return { found: false, value: undefined };
    current = current[part];
  }
  return { found: true, value: current };
}

/** ValidateScaleSpec / ValidateScaleStatus: the replicas at the CRD's paths must be int32 values. */
function replicasErrors(object: KubeObject, jsonPath: string): FieldError[] {
  if (jsonPath === '') return [];
  const { found, value } = nestedValue(object, jsonPath);
  if (!found) return [];
  const field = jsonPath.slice(1);
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    const type = typeof value === 'number' ? 'float64' : typeof value === 'string' ? 'string' : typeof value;
    return [
      fieldInvalid(
        field,
        value ?? null,
        `${jsonPath} accessor error: ${JSON.stringify(value)} is of the type ${type}, expected int64`,
      ),
    ];
  }
  if (value < 0) return [fieldInvalid(field, value, 'should be a non-negative integer')];
  if (value > MAX_INT32) return [fieldInvalid(field, value, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/** The served version `version` of `crd`, named by the CRD's accepted names. */
export function servedVersion(
  crd: KubeObject,
  version: CrdVersion,
  webhookClient: WebhookClientDeps = {},
  conversionMetrics?: ConversionWebhookMetrics,
): ServedVersion {
  const spec = crdSpec(crd);
  const names = acceptedNames(crd);
  const storage = spec.versions.find((v) => v.storage) ?? version;
  const subresources = version.subresources ?? {};
  const hasStatus = isJsonObject(subresources.status);
  const scale = isJsonObject(subresources.scale) ? subresources.scale : undefined;
  const subresourceInfos: SubresourceInfo[] = [];
  if (scale) {
    subresourceInfos.push({
      name: 'scale',
      kind: 'Scale',
      verbs: GET_PATCH_UPDATE,
      group: 'autoscaling',
      version: 'v1',
    });
  }
  if (hasStatus) subresourceInfos.push({ name: 'status', kind: names.kind, verbs: GET_PATCH_UPDATE });
  const info: ResourceInfo = {
    group: spec.group,
    version: version.name,
    resource: names.plural,
    singularName: names.singular,
    kind: names.kind,
    namespaced: spec.namespaced,
    verbs: ALL_VERBS,
    shortNames: names.shortNames,
    categories: names.categories,
    subresources: subresourceInfos,
    storageVersionHash: storageVersionHash(spec.group, storage.name, names.kind),
  };
  const schema = version.schema;
  const rules: SchemaValidationRules | undefined = schema
    ? compileSchemaValidations(schema, 'openAPIV3Schema').rules
    : undefined;
  const servedApiVersion = apiVersion(spec.group, version.name);
  const convert = customResourceConverter(stringOf(fieldsOf(spec.raw.conversion).strategy), names.kind);
  const storageApiVersion = apiVersion(spec.group, storage.name);
  const specReplicasPath = scale ? stringOf(scale.specReplicasPath) : '';
  const statusReplicasPath = scale ? stringOf(scale.statusReplicasPath) : '';
  const selectable = version.selectableFields.map((field) => stringOf(field.jsonPath));
  const prune = (object: KubeObject): string[] => (schema ? pruneUnknownFields(schema, object) : []);
  const schemaErrors = (object: KubeObject, old: KubeObject | undefined): FieldError[] => {
    if (!schema) return [];
    // Updates ratchet: errors of values the update left as they were are dropped.
    const errors = old
      ? validateCustomResourceUpdate(schema, object, old)
      : validateCustomResource(schema, object);
    if (!rules) return errors;
    // A missing, oversized or mistyped value stops the CEL rules (upstream's hasBlockingErr).
    const blocking = blockingSchemaError(errors);
    return blocking ? [...errors, blocking] : [...errors, ...rules.validate(object, old)];
  };
  const generic = makeStrategy(info);
  const strategy = makeStrategy(info, {
    tracksGeneration: true,
    prepareForUpdate(object, old, subresource) {
      generic.prepareForUpdate(object, old, subresource);
      // Without a status subresource, status is content like spec: a change bumps the generation
      // (the generic rule bumps it for everything else but metadata and status).
      if (
        !hasStatus &&
        !specChanged(object, old) &&
        JSON.stringify(object.status) !== JSON.stringify(old.status)
      ) {
        const meta = object.metadata ?? {};
        meta.generation = (old.metadata?.generation ?? 0) + 1;
        object.metadata = meta;
      }
    },
    defaults(object) {
      prune(object);
      if (schema) applyDefaults(schema, object);
    },
    validateCreate(object) {
      const typeErrors = typeMetaErrors(object, names.kind, servedApiVersion);
      if (typeErrors.length > 0) return typeErrors;
      return [
        ...validateObjectMeta(object.metadata, {
          namespaced: spec.namespaced,
          name: nameIsDnsSubdomain,
          coreFinalizers: false,
        }),
        ...schemaErrors(object, undefined),
        ...replicasErrors(object, specReplicasPath),
        ...replicasErrors(object, statusReplicasPath),
      ];
    },
    validateUpdate(object, old, subresource) {
      const typeErrors = typeMetaErrors(object, names.kind, servedApiVersion);
      if (typeErrors.length > 0) return typeErrors;
      return [
        ...validateObjectMetaUpdate(object.metadata, old.metadata, 'metadata', false),
        ...schemaErrors(object, old),
        ...(subresource === 'status' ? [] : replicasErrors(object, specReplicasPath)),
        ...replicasErrors(object, statusReplicasPath),
      ];
    },
    selectableFields: (object) => selectableFieldValues(selectable, object),
  });
  const codec: StorageCodec = {
    servesAsStored: hasDefaults(schema)
      ? () => false
      : (stored) => stored.startsWith(`{"apiVersion":${JSON.stringify(servedApiVersion)},`),
    fromStorage(object) {
      const served = convert(object, servedApiVersion);
      if (schema) applyDefaults(schema, served);
      return served;
    },
    toStorage: (object) => convert({ ...object }, storageApiVersion),
  };
  const webhookConvert = customResourceWebhookConverter(
    spec.raw.conversion,
    webhookClient,
    conversionMetrics && { crdName: crd.metadata?.name ?? '', registry: conversionMetrics },
  );
  if (webhookConvert) {
    codec.convertAsync = async (objects, to, asList) => {
      if (to === 'served') return webhookConvert(objects, servedApiVersion, asList);
      // Stored with sorted keys (as upstream's JSON encoder writes unstructured objects), so an
      // update the webhook answers in another field order is still found unchanged.
      const stored = await webhookConvert(objects, storageApiVersion, asList);
      return stored.map((object, i) =>
        object === objects[i] ? object : (JSON.parse(canonicalJson(object)) as KubeObject),
      );
    };
  }
  return {
    info,
    strategy,
    codec,
    serving: {
      printer: customResourcePrinter(version.columns),
      ...(schema ? { schema } : {}),
      versionSchemas: new Map(spec.versions.map((v) => [v.name, v.schema])),
      versionReplicasPaths: new Map(
        spec.versions.map((v) => {
          const vScale = v.subresources?.scale;
          return [v.name, isJsonObject(vScale) ? stringOf(vScale.specReplicasPath) : undefined];
        }),
      ),
      ...(scale ? { scale: scaleAdapter(scale) } : {}),
      ...(version.raw.deprecated === true
        ? {
            deprecationWarning:
              typeof version.raw.deprecationWarning === 'string'
                ? version.raw.deprecationWarning
                : `${spec.group}/${version.name} ${names.kind} is deprecated`,
          }
        : {}),
      // An object nested deeper than the schema code walks is refused by validation; copying it
      // here would only exhaust the stack.
      unknownFields: (object) =>
        nestedDeeperThan(object, MAX_NESTING_DEPTH) ? [] : prune(structuredClone(object)),
    },
  };
}
