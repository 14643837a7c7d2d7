// Turns @kubernetes/client-node's models plus the committed facts into the Swagger 2.0 `definitions`
// map kube-apiserver serves: Kubernetes' definition names, `$ref`s, formats, required lists and the
// x-kubernetes-* extensions.
import {
  DEFINITION_REF_PREFIX,
  type GroupVersionKind,
  type SchemaObject,
} from '../../../src/apiserver/openapi/schema.js';
import type { ClientModel, ClientProperty } from './client-models.js';
import type { OpenAPIFacts } from './facts.js';
import { INT_OR_STRING, LEAF_DEFINITIONS, MICRO_TIME, TIME } from './leaf-definitions.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
/** Registered in every group version of the scheme, so they carry one GVK per group version. */
const EVERY_GROUP_VERSION_KINDS = new Set([`${META}.DeleteOptions`, `${META}.WatchEvent`]);
const VERSION = /^v\d+((alpha|beta)\d+)?$/;

export function buildDefinitions(
  models: ReadonlyMap<string, ClientModel>,
  facts: OpenAPIFacts,
): Record<string, SchemaObject> {
  const names = definitionNames(models, facts);
  const definitions: Record<string, SchemaObject> = { ...LEAF_DEFINITIONS };
  for (const [modelName, definitionName] of names) {
    const model = models.get(modelName)!;
    definitions[definitionName] = modelDefinition(model, definitionName, names, facts);
  }
  describeReferencesFromTargets(definitions);
  return sortKeysDeep(definitions);
}

/**
 * The client drops the description kube-apiserver puts beside a property's `$ref` (`Pod.spec`:
 * "Specification of the desired behavior..."), so such a property gets the referenced definition's
 * description instead ("PodSpec is a description of a pod."): kubectl explain then still says what
 * the field holds.
 */
function describeReferencesFromTargets(definitions: Record<string, SchemaObject>): void {
  for (const definition of Object.values(definitions)) {
    for (const property of Object.values(definition.properties ?? {})) {
      if (property.description !== undefined || property.$ref === undefined) continue;
      const target = definitions[property.$ref.slice(DEFINITION_REF_PREFIX.length)];
      if (target?.description !== undefined) property.description = target.description;
    }
  }
}

/** Maps each client model name (`V1Container`, `CoreV1Event`) to its definition name. */
function definitionNames(models: ReadonlyMap<string, ClientModel>, facts: OpenAPIFacts): Map<string, string> {
  const names = new Map<string, string>();
  for (const [pkg, { types }] of Object.entries(facts.packages)) {
    const segments = pkg.split('.');
    const last = segments.at(-1)!;
    // The client names a type Version+Kind, prefixing the group where two groups share the name;
    // unversioned packages (version.Info) prefix their last segment.
    const prefixes = VERSION.test(last)
      ? [capitalize(segments.at(-2)!) + capitalize(last), capitalize(last)]
      : [capitalize(last)];
    for (const type of types) {
      const modelName = prefixes.map((prefix) => prefix + type).find((candidate) => models.has(candidate));
      if (!modelName) throw new Error(`the client package has no model for ${pkg}.${type}`);
      if (names.has(modelName)) throw new Error(`model ${modelName} claimed by ${names.get(modelName)} too`);
      names.set(modelName, `${pkg}.${type}`);
    }
  }
  const unclaimed = [...models.keys()].filter((name) => !names.has(name));
  if (unclaimed.length > 0)
    throw new Error(`models missing from openapi-facts.json: ${unclaimed.join(', ')}`);
  return names;
}

function modelDefinition(
  model: ClientModel,
  definitionName: string,
  names: ReadonlyMap<string, string>,
  facts: OpenAPIFacts,
): SchemaObject {
  const properties: Record<string, SchemaObject> = {};
  for (const property of model.properties) {
    const leafRef = facts.fieldRefs[definitionName]?.[property.jsonName];
    properties[property.jsonName] = {
      ...(property.description === undefined ? {} : { description: property.description }),
      ...propertySchema(property, leafRef, names, `${definitionName}.${property.jsonName}`),
      ...facts.fieldExtensions[definitionName]?.[property.jsonName],
    };
  }
  const required = model.properties.filter((property) => property.required).map((p) => p.jsonName);
  const gvk = groupVersionKinds(model, definitionName, facts);
  return {
    ...(model.description === undefined ? {} : { description: model.description }),
    type: 'object',
    ...(model.properties.length > 0 ? { properties } : {}),
    ...(required.length > 0 ? { required } : {}),
    ...facts.definitionExtensions[definitionName],
    ...(gvk.length > 0 ? { 'x-kubernetes-group-version-kind': gvk } : {}),
  };
}

function groupVersionKinds(
  model: ClientModel,
  definitionName: string,
  facts: OpenAPIFacts,
): GroupVersionKind[] {
  const kind = definitionName.slice(definitionName.lastIndexOf('.') + 1);
  if (EVERY_GROUP_VERSION_KINDS.has(definitionName)) {
    return facts.everyGroupVersion.map((groupVersion) => {
      const slash = groupVersion.indexOf('/');
      return slash < 0
        ? { group: '', kind, version: groupVersion }
        : { group: groupVersion.slice(0, slash), kind, version: groupVersion.slice(slash + 1) };
    });
  }
  const jsonNames = new Set(model.properties.map((property) => property.jsonName));
  if (!jsonNames.has('apiVersion') || !jsonNames.has('kind') || facts.notKinds.includes(definitionName))
    return [];
  const pkg = definitionName.slice(0, definitionName.lastIndexOf('.'));
  const group = facts.packages[pkg]?.group;
  if (group === undefined) throw new Error(`openapi-facts.json names no group for ${pkg} (kind ${kind})`);
  return [{ group, kind, version: pkg.slice(pkg.lastIndexOf('.') + 1) }];
}

/** The schema of one property from the client's TypeScript type spelling and format. */
function propertySchema(
  property: ClientProperty,
  leafRef: string | undefined,
  names: ReadonlyMap<string, string>,
  where: string,
): SchemaObject {
  const convert = (type: string): SchemaObject => {
    const array = /^Array<(.+)>$/.exec(type);
    if (array) return { items: convert(array[1]!), type: 'array' };
    const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
    if (map) return { additionalProperties: convert(map[1]!), type: 'object' };
    if (leafRef) return ref(leafRef);
    return scalarSchema(type, property.format, names, where);
  };
  return convert(property.type);
}

function scalarSchema(
  type: string,
  format: string,
  names: ReadonlyMap<string, string>,
  where: string,
): SchemaObject {
  switch (type) {
    case 'string':
      return format ? { format, type: 'string' } : { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'number':
      if (format === 'int32' || format === 'int64') return { format, type: 'integer' };
      return format ? { format, type: 'number' } : { type: 'number' };
    case 'Date':
      if (format === 'date-time') return ref(TIME);
      break;
    case 'V1MicroTime':
      return ref(MICRO_TIME);
    case 'IntOrString':
      return ref(INT_OR_STRING);
    default: {
      const definitionName = names.get(type);
      if (definitionName) return ref(definitionName);
    }
  }
  throw new Error(`${where}: no schema for client type ${type} (format "${format}"); add it to fieldRefs`);
}

function ref(definitionName: string): SchemaObject {
  return { $ref: DEFINITION_REF_PREFIX + definitionName };
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Sorts object keys at every depth, as kube-apiserver's JSON does; arrays keep their order. */
function sortKeysDeep<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeysDeep) as T;
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    sorted[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
  return sorted as T;
}
