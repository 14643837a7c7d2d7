/** A group/version/kind as the `x-kubernetes-group-version-kind` extension spells it (core group is ""). */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** One member of `x-kubernetes-unions`: the discriminator field and the fields it chooses between. */
export interface UnionExtension {
  discriminator?: string;
  'fields-to-discriminateBy'?: Record<string, string>;
}

/**
 * A Swagger 2.0 schema as kube-apiserver serves it under `/openapi/v2` `definitions`: references are
 * `#/definitions/<name>`, and a property's `description` sits beside its `$ref`.
 */
export interface SchemaObject {
  $ref?: string;
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  additionalProperties?: SchemaObject;
  'x-kubernetes-group-version-kind'?: GroupVersionKind[];
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-unions'?: UnionExtension[];
}

/** The prefix of every reference inside the definitions map. */
export const DEFINITION_REF_PREFIX = '#/definitions/';

/** The generated file: the definitions map plus where it came from. */
export interface BuiltinDefinitionsFile {
  kubernetesVersion: string;
  source: string;
  definitions: Record<string, SchemaObject>;
}
