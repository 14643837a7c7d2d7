import { PatchError } from './errors.js';
import { compareGoStrings, goSprintV } from './go-format.js';
import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  jsonEqual,
  jsonKind,
  setMember,
} from './json-value.js';
import type { PatchSchema } from './schema.js';
import { badArgType, noMergeKey, smpInternal } from './smp-errors.js';
import {
  deduplicateScalarsInPlace,
  normalizeSliceOrder,
  sliceElementKind,
  sortScalars,
} from './smp-list-order.js';
import {
  extractRetainKeysPatchStrategy,
  lookupListField,
  lookupObjectField,
  type SchemaContext,
  structContext,
} from './smp-schema-lookup.js';
import {
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  DIRECTIVE,
  RETAIN_KEYS,
  SET_ELEMENT_ORDER_PREFIX,
} from './strategic-merge-patch.js';

// The two-way strategic merge patch apimachinery's CreateTwoWayMergePatch computes (what
// `kubectl edit` and controllers send): changed fields, nulls for removed ones, merge lists
// diffed by merge key with `$patch: delete` items, `$deleteFromPrimitiveList` and
// `$setElementOrder` lists, and `$retainKeys` for retainKeys fields.

/** The patch that turns `original` into `modified` when applied with applyStrategicMergePatch. */
export function createTwoWayStrategicMergePatch(
  original: JsonObject,
  modified: JsonObject,
  schema: PatchSchema,
): JsonObject {
  return diffMaps(original, modified, structContext(schema), false);
}

function diffMaps(
  original: JsonObject,
  modified: JsonObject,
  context: SchemaContext,
  retainKeys: boolean,
): JsonObject {
  const patch: JsonObject = {};
  const retained: string[] = [];
  for (const [key, after] of Object.entries(modified)) {
    if (retainKeys && after !== null) retained.push(key);
    if (!Object.hasOwn(original, key)) {
      setMember(patch, key, after);
      continue;
    }
    const before = original[key]!;
    if (key === DIRECTIVE) {
      if (typeof before !== 'string' || typeof after !== 'string') {
        throw smpInternal(`invalid value for special key: ${DIRECTIVE}`);
      }
      if (before !== after) setMember(patch, key, after);
      continue;
    }
    if (jsonKind(before) !== jsonKind(after)) {
      setMember(patch, key, after);
    } else if (isJsonObject(before)) {
      diffObjectField(key, before, after as JsonObject, patch, context);
    } else if (Array.isArray(before)) {
      diffListField(key, before, after as JsonValue[], patch, context);
    } else if (!jsonEqual(before, after)) {
      setMember(patch, key, after);
    }
  }
  for (const key of Object.keys(original)) {
    if (!Object.hasOwn(modified, key)) setMember(patch, key, null);
  }
  const hasDroppedField = Object.entries(original).some(
    ([key, value]) => value !== null && !Object.hasOwn(modified, key),
  );
  if (retained.length > 0 && (Object.keys(patch).length > 0 || hasDroppedField)) {
    setMember(patch, RETAIN_KEYS, sortScalars(retained));
  }
  return patch;
}

/** Looks up field metadata; a field Go cannot describe only matters when its value changed. */
function lookupUnlessEqual<T>(lookup: () => T, before: JsonValue, after: JsonValue): T | undefined {
  try {
    return lookup();
  } catch (error) {
    if (error instanceof PatchError && jsonEqual(before, after)) return undefined;
    throw error;
  }
}

function diffObjectField(
  key: string,
  before: JsonObject,
  after: JsonObject,
  patch: JsonObject,
  context: SchemaContext,
) {
  const meta = lookupUnlessEqual(() => lookupObjectField(context, key), before, after);
  if (!meta) return;
  const { retainKeys, strategy } = extractRetainKeysPatchStrategy(meta.strategies);
  if (strategy === 'replace') {
    setMember(patch, key, after);
    return;
  }
  const nested = diffMaps(before, after, meta.context, retainKeys);
  if (Object.keys(nested).length > 0) setMember(patch, key, nested);
}

function diffListField(
  key: string,
  before: JsonValue[],
  after: JsonValue[],
  patch: JsonObject,
  context: SchemaContext,
) {
  const meta = lookupUnlessEqual(() => lookupListField(context, key), before, after);
  if (!meta) return;
  const { retainKeys, strategy } = extractRetainKeysPatchStrategy(meta.strategies);
  if (strategy !== 'merge') {
    if (!jsonEqual(before, after)) setMember(patch, key, after);
    return;
  }
  const { changes, deletions, order } = diffLists(before, after, meta.context, meta.mergeKey, retainKeys);
  if (changes.length > 0) setMember(patch, key, changes);
  if (deletions.length > 0) setMember(patch, `${DELETE_FROM_PRIMITIVE_LIST_PREFIX}/${key}`, deletions);
  if (order.length > 0) setMember(patch, `${SET_ELEMENT_ORDER_PREFIX}/${key}`, order);
}

interface ListDiff {
  changes: JsonValue[];
  deletions: JsonValue[];
  order: JsonValue[];
}

function diffLists(
  original: JsonValue[],
  modified: JsonValue[],
  context: SchemaContext,
  mergeKey: string,
  retainKeys: boolean,
): ListDiff {
  if (original.length === 0)
    return { changes: modified.length === 0 ? [] : modified, deletions: [], order: [] };
  const kind = sliceElementKind(original, modified);
  if (kind === 'object') {
    const { changes, deletions } = diffListsOfMaps(original, modified, context, mergeKey, retainKeys);
    const sorted = normalizeSliceOrder(changes, modified, mergeKey, kind);
    const all = [...sorted, ...deletions];
    const order =
      all.length > 0 || !isOrderSame(original, modified, mergeKey)
        ? modified.map((item) => ({ [mergeKey]: (item as JsonObject)[mergeKey] ?? null }))
        : [];
    return { changes: all, deletions: [], order };
  }
  const { additions, deletions, sortedOriginal } = diffListsOfScalars(original, modified);
  const changes = normalizeSliceOrder(additions, modified, mergeKey, kind);
  // apimachinery compares the live list after sorting it in place, so a live list that was
  // merely out of order does not produce an order directive.
  const order = deletions.length > 0 || !jsonEqual(sortedOriginal, modified) ? modified : [];
  return { changes, deletions, order };
}

function isOrderSame(original: JsonValue[], modified: JsonValue[], mergeKey: string): boolean {
  if (original.length !== modified.length) return false;
  return modified.every((item, i) => mergeKeyOf(original[i]!, mergeKey) === mergeKeyOf(item, mergeKey));
}

function mergeKeyOf(item: JsonValue, mergeKey: string): JsonValue {
  if (!isJsonObject(item)) throw badArgType('map[string]interface {}', item);
  if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
  return item[mergeKey]!;
}

function diffListsOfScalars(original: JsonValue[], modified: JsonValue[]) {
  const sortedOriginal = sortScalars(original);
  const sortedModified = sortScalars(modified);
  const additions: JsonValue[] = [];
  const deletions: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < sortedOriginal.length || j < sortedModified.length) {
    const before = i < sortedOriginal.length ? goSprintV(sortedOriginal[i]) : undefined;
    const after = j < sortedModified.length ? goSprintV(sortedModified[j]) : undefined;
    if (before !== undefined && after !== undefined && before === after) {
      i++;
      j++;
    } else if (before === undefined || (after !== undefined && compareGoStrings(before, after) > 0)) {
      additions.push(sortedModified[j++]!);
    } else {
      deletions.push(sortedOriginal[i++]!);
    }
  }
  return { additions, deletions: deletions.slice(0, deduplicateScalarsInPlace(deletions)), sortedOriginal };
}

function diffListsOfMaps(
  original: JsonValue[],
  modified: JsonValue[],
  context: SchemaContext,
  mergeKey: string,
  retainKeys: boolean,
): { changes: JsonValue[]; deletions: JsonValue[] } {
  const before = sortByMergeKey(original, mergeKey);
  const after = sortByMergeKey(modified, mergeKey);
  const changes: JsonValue[] = [];
  const deletions: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    const left = i < before.length ? before[i]! : undefined;
    const right = j < after.length ? after[j]! : undefined;
    const leftKey = left && goSprintV(mergeKeyOf(left, mergeKey));
    const rightKey = right && goSprintV(mergeKeyOf(right, mergeKey));
    if (left && right && leftKey === rightKey) {
      const nested = diffMaps(left, right, context, retainKeys);
      if (Object.keys(nested).length > 0) {
        setMember(nested, mergeKey, right[mergeKey]!);
        changes.push(nested);
      }
      i++;
      j++;
    } else if (!left || (right && compareGoStrings(leftKey!, rightKey!) > 0)) {
      changes.push(right!);
      j++;
    } else {
      deletions.push({ [mergeKey]: left[mergeKey]!, [DIRECTIVE]: 'delete' });
      i++;
    }
  }
  return { changes, deletions };
}

function sortByMergeKey(list: JsonValue[], mergeKey: string): JsonObject[] {
  if (list.length === 0) return [];
  sliceElementKind(list);
  const maps = list.map((item) => {
    if (!isJsonObject(item)) throw badArgType('map[string]interface {}', item);
    return item;
  });
  return maps.sort((a, b) => compareGoStrings(goSprintV(a[mergeKey]), goSprintV(b[mergeKey])));
}
