import type { PatchSchema } from './schema.js';
import { smpInternal } from './smp-errors.js';

// Where in a type a strategic merge patch is, and the patch metadata of the fields below it.
// This follows apimachinery's PatchMetaFromStruct: Go finds metadata only in structs, so looking
// inside a map or a scalar fails with its error text. Fields a PatchSchema does not list lead
// into "free" territory, where no field has metadata and objects simply merge.

export type SchemaContext =
  | { readonly type: 'struct'; readonly schema: PatchSchema }
  | { readonly type: 'free' }
  | { readonly type: 'opaque'; readonly goKind: 'map' | 'slice' | 'string' };

export interface FieldMeta {
  readonly context: SchemaContext;
  readonly strategies: readonly string[];
  readonly mergeKey: string;
}

const free: SchemaContext = { type: 'free' };
const freeField: FieldMeta = { context: free, strategies: [''], mergeKey: '' };

export function structContext(schema: PatchSchema): SchemaContext {
  return { type: 'struct', schema };
}

/** LookupPatchMetadataForStruct: metadata of field `key`, whose value is an object. */
export function lookupObjectField(context: SchemaContext, key: string): FieldMeta {
  if (context.type === 'free') return freeField;
  if (context.type === 'opaque') {
    throw smpInternal(`merging an object in json but data type is not struct, instead is: ${context.goKind}`);
  }
  const field = Object.hasOwn(context.schema.fields, key) ? context.schema.fields[key] : undefined;
  if (!field) return freeField;
  const strategies = (field.patchStrategy ?? '').split(',');
  const mergeKey = field.kind === 'objectList' ? (field.patchMergeKey ?? '') : '';
  switch (field.kind) {
    case 'object':
      return { context: structContext(field.schema), strategies, mergeKey };
    case 'map':
      return { context: { type: 'opaque', goKind: 'map' }, strategies, mergeKey };
    case 'objectList':
    case 'primitiveList':
      return { context: { type: 'opaque', goKind: 'slice' }, strategies, mergeKey };
    default:
      return { context: { type: 'opaque', goKind: 'string' }, strategies, mergeKey };
  }
}

/** LookupPatchMetadataForSlice: metadata of list field `key`, with the context of its items. */
export function lookupListField(context: SchemaContext, key: string): FieldMeta {
  const meta = lookupObjectField(context, key);
  if (context.type !== 'struct') return meta;
  const field = Object.hasOwn(context.schema.fields, key) ? context.schema.fields[key] : undefined;
  if (!field) return meta;
  if (field.kind === 'objectList') return { ...meta, context: structContext(field.items) };
  if (field.kind === 'primitiveList') return { ...meta, context: { type: 'opaque', goKind: 'string' } };
  throw smpInternal('expected slice or array type, but got: struct');
}

/** The Go kind apimachinery names in "cannot merge lists without merge key for …". */
export function contextName(context: SchemaContext): string {
  return context.type === 'opaque' ? context.goKind : 'struct';
}

export interface StrategyParts {
  readonly retainKeys: boolean;
  /** '', 'merge' or 'replace'. */
  readonly strategy: string;
}

/** Splits a patchStrategy tag into its retainKeys flag and its other strategy. */
export function extractRetainKeysPatchStrategy(strategies: readonly string[]): StrategyParts {
  if (strategies.length === 0) return { retainKeys: false, strategy: '' };
  if (strategies.length === 1) {
    return strategies[0] === 'retainKeys'
      ? { retainKeys: true, strategy: '' }
      : { retainKeys: false, strategy: strategies[0]! };
  }
  if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') return { retainKeys: true, strategy: strategies[1]! };
    if (strategies[1] === 'retainKeys') return { retainKeys: true, strategy: strategies[0]! };
  }
  throw smpInternal(`unexpected patch strategy: [${strategies.join(' ')}]`);
}
