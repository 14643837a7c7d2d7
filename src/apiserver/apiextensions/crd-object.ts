// A read-only view of a stored CustomResourceDefinition (apiextensions.k8s.io/v1), tolerant of any
// JSON, for validation and serving: what apiextensions-apiserver reads through its typed structs
// and apihelpers (storage version, served versions, conditions).
import type { KubeObject } from '../../api/object.js';
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';
import { fieldsOf, isJsonObject, objectsOf, stringOf, stringsOf } from '../registry/validation/json.js';

export const CRD_GROUP = 'apiextensions.k8s.io';

/** The finalizer under which instances are deleted before their CRD goes. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CrdNames {
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

export interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly schema?: JSONSchemaProps;
  readonly subresources?: Record<string, unknown>;
  readonly columns: readonly Record<string, unknown>[];
  readonly selectableFields: readonly Record<string, unknown>[];
  readonly raw: Record<string, unknown>;
}

export interface CrdSpec {
  readonly group: string;
  readonly names: CrdNames;
  readonly rawNames: Record<string, unknown>;
  readonly namespaced: boolean;
  readonly versions: readonly CrdVersion[];
  readonly raw: Record<string, unknown>;
}

export function namesOf(value: unknown): CrdNames {
  const names = fieldsOf(value);
  return {
    plural: stringOf(names.plural),
    singular: stringOf(names.singular),
    kind: stringOf(names.kind),
    listKind: stringOf(names.listKind),
    shortNames: stringsOf(names.shortNames),
    categories: stringsOf(names.categories),
  };
}

export function crdSpec(crd: KubeObject): CrdSpec {
  const spec = fieldsOf(crd.spec);
  return {
    group: stringOf(spec.group),
    names: namesOf(spec.names),
    rawNames: fieldsOf(spec.names),
    namespaced: spec.scope === 'Namespaced',
    versions: objectsOf(spec.versions).map((version) => {
      const schema = fieldsOf(version.schema).openAPIV3Schema;
      return {
        name: stringOf(version.name),
        served: version.served === true,
        storage: version.storage === true,
        ...(isJsonObject(schema) ? { schema: schema as JSONSchemaProps } : {}),
        ...(isJsonObject(version.subresources) ? { subresources: version.subresources } : {}),
        columns: objectsOf(version.additionalPrinterColumns),
        selectableFields: objectsOf(version.selectableFields),
        raw: version,
      };
    }),
    raw: spec,
  };
}

/** The names the naming controller accepted (`status.acceptedNames`). */
export function acceptedNames(crd: KubeObject): CrdNames {
  return namesOf(fieldsOf(crd.status).acceptedNames);
}

export interface CrdCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export function conditionsOf(crd: KubeObject): CrdCondition[] {
  return objectsOf(fieldsOf(crd.status).conditions) as unknown as CrdCondition[];
}

export function findCondition(crd: KubeObject, type: string): CrdCondition | undefined {
  return conditionsOf(crd).find((condition) => condition.type === type);
}

export function conditionTrue(crd: KubeObject, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/** The version objects are stored in (the one with `storage: true`). */
export function storageVersionName(crd: KubeObject): string | undefined {
  return crdSpec(crd).versions.find((version) => version.storage)?.name;
}
