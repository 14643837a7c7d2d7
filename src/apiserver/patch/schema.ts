// What a strategic merge patch needs to know about a built-in type: for each field, the shape of
// its value and the `patchStrategy` / `patchMergeKey` Go struct tags from k8s.io/api. Fields not
// listed are merged like a JSON merge patch (objects merge, lists are replaced).

/** The `patchStrategy` struct tag. `retainKeys` only shapes the patches clients compute. */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

/** The fields of one object type (a Go struct). Kubernetes' inline members are listed flat. */
export interface PatchSchema {
  fields: Record<string, FieldSchema>;
}

/** A field holding a scalar (string, number, boolean, quantity, time…). */
export interface PrimitiveFieldSchema {
  kind: 'primitive';
  patchStrategy?: PatchStrategy;
}

/** A field holding an object of a known type. */
export interface ObjectFieldSchema {
  kind: 'object';
  schema: PatchSchema;
  patchStrategy?: PatchStrategy;
}

/** A list of objects; with strategy `merge`, items pair up by `patchMergeKey`. */
export interface ObjectListFieldSchema {
  kind: 'objectList';
  items: PatchSchema;
  patchStrategy?: PatchStrategy;
  patchMergeKey?: string;
}

/** A list of scalars; with strategy `merge` it is merged as a set, keeping order. */
export interface PrimitiveListFieldSchema {
  kind: 'primitiveList';
  patchStrategy?: PatchStrategy;
}

/**
 * A map with free keys (additionalProperties), like labels or resource lists. Kubernetes finds no
 * patch metadata inside Go maps, so merging two object or list entries of a map fails there
 * ("merging an object in json but data type is not struct, instead is: map"); `values` describes
 * the entries for other consumers and is not used to merge them.
 */
export interface MapFieldSchema {
  kind: 'map';
  values?: FieldSchema;
  patchStrategy?: PatchStrategy;
}

export type FieldSchema =
  | PrimitiveFieldSchema
  | ObjectFieldSchema
  | ObjectListFieldSchema
  | PrimitiveListFieldSchema
  | MapFieldSchema;
