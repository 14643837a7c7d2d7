import { badRequest } from './errors.js';
import { goSprintV } from './go-format.js';
import { goUnmarshalTypeError } from './go-json.js';
import { isJsonObject, type JsonObject, type JsonValue, jsonKind, setMember } from './json-value.js';
import type { PatchSchema } from './schema.js';
import {
  badArgType,
  badPatchType,
  badPrimitiveListFormat,
  badRetainKeysFormat,
  badSetElementOrderFormat,
  noMergeKey,
  smpInternal,
} from './smp-errors.js';
import {
  deduplicateScalarsInPlace,
  findByMergeKey,
  normalizeElementOrder,
  partitionByPresence,
  scalarEqual,
  sliceElementKind,
  splitDeletions,
} from './smp-list-order.js';
import {
  contextName,
  extractRetainKeysPatchStrategy,
  lookupListField,
  lookupObjectField,
  type SchemaContext,
  structContext,
} from './smp-schema-lookup.js';

// Strategic merge patch as kube-apiserver applies it (apimachinery's StrategicMergeMapPatch with
// MergeParallelList and IgnoreUnmatchedNulls). Like Go, results can keep nulls and directives
// where the patch was taken whole (replace strategies, `$patch: replace` lists, new list items);
// Kubernetes drops them when it decodes the result into the typed object.

export const DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';

/**
 * Applies a strategic merge patch (already decoded) to `doc` for a type described by `schema`
 * and returns the result; neither argument is modified (`doc` is, when `consumeDoc`: the caller's
 * own copy). Throws PatchError with the status kube-apiserver answers.
 */
export function applyStrategicMergePatch(
  doc: unknown,
  patch: unknown,
  schema: PatchSchema,
  consumeDoc = false,
): JsonObject {
  const own = <T>(value: T): T => (consumeDoc ? value : structuredClone(value));
  if (patch === null) return own(isJsonObject(doc) ? doc : {});
  if (!isJsonObject(patch))
    throw badRequest(goUnmarshalTypeError(patch as JsonValue, 'map[string]interface {}'));
  if (!isJsonObject(doc)) throw badRequest('invalid JSON document');
  return mergeMap(own(doc), structuredClone(patch), structContext(schema));
}

function mergeMap(original: JsonObject, patch: JsonObject, context: SchemaContext): JsonObject {
  if (Object.hasOwn(patch, DIRECTIVE)) return mapDirective(patch[DIRECTIVE]!, patch);
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, context);

  for (const patchKey of Object.keys(patch)) {
    const patchValue = patch[patchKey]!;
    const isDeleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX);
    const key = isDeleteList ? directiveTarget(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX) : patchKey;

    if (patchValue === null) {
      delete original[key];
      continue;
    }
    if (!Object.hasOwn(original, key) || jsonKind(original[key]) !== jsonKind(patchValue)) {
      // Nothing to merge with: take the patch value, less its nulls and directives.
      if (!isDeleteList) setWithoutDirectives(original, key, discardNulls(patchValue));
      continue;
    }
    const originalValue = original[key]!;
    if (isJsonObject(originalValue)) {
      const meta = lookupObjectField(context, key);
      const { strategy } = extractRetainKeysPatchStrategy(meta.strategies);
      const merged =
        strategy === 'replace' ? patchValue : mergeMap(originalValue, patchValue as JsonObject, meta.context);
      setMember(original, key, merged);
    } else if (Array.isArray(originalValue)) {
      const meta = lookupListField(context, key);
      const { strategy } = extractRetainKeysPatchStrategy(meta.strategies);
      const merged = mergeListField(
        originalValue,
        patchValue as JsonValue[],
        meta.context,
        strategy,
        meta.mergeKey,
        isDeleteList,
      );
      setMember(original, key, merged);
    } else {
      setMember(original, key, patchValue);
    }
  }
  return original;
}

/** A map carrying `$patch`: replace it by the rest of the patch, or empty it. */
function mapDirective(directive: JsonValue, patch: JsonObject): JsonObject {
  if (directive === 'replace') {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === 'delete') return {};
  throw badPatchType(directive, patch);
}

/** `$retainKeys`: drop the live keys not listed, after checking the patch sets only listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const retainKeys = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retainKeys)) throw badRetainKeysFormat();
  const retained = new Set<unknown>(retainKeys);
  for (const [key, value] of Object.entries(patch)) {
    if (
      value === null ||
      key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) ||
      key.startsWith(SET_ELEMENT_ORDER_PREFIX)
    ) {
      continue;
    }
    if (!retained.has(key)) throw badRetainKeysFormat();
  }
  for (const key of Object.keys(original)) {
    if (!retained.has(key)) delete original[key];
  }
}

/** Merges each list named by a `$setElementOrder/<field>` directive and orders it by that list. */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, context: SchemaContext): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw badArgType('[]interface {}', order);
    const key = directiveTarget(directiveKey, SET_ELEMENT_ORDER_PREFIX);

    const hasOriginal = Object.hasOwn(original, key);
    const hasPatch = Object.hasOwn(patch, key);
    const originalList = hasOriginal ? listValue(original[key]) : [];
    const patchList = hasPatch ? listValue(patch[key]) : [];
    const meta = lookupListField(context, key);
    const { strategy } = extractRetainKeysPatchStrategy(meta.strategies);
    validateElementOrder(patchList, order, meta.mergeKey);

    let merged: JsonValue[];
    if (hasOriginal && !hasPatch) merged = originalList;
    else if (!hasOriginal && hasPatch) merged = removeDirectives(patchList) as JsonValue[];
    else if (hasOriginal && hasPatch) {
      merged = mergeListField(originalList, patchList, meta.context, strategy, meta.mergeKey, false);
    } else continue;

    const [inOrder, serverOnly] = partitionByPresence(merged, order, meta.mergeKey);
    const kind = sliceElementKind(originalList, patchList);
    setMember(
      original,
      key,
      normalizeElementOrder(inOrder, serverOnly, order, originalList, meta.mergeKey, kind),
    );
    delete patch[key];
  }
}

function listValue(value: JsonValue | undefined): JsonValue[] {
  if (!Array.isArray(value)) throw badArgType('[]interface {}', value);
  return value;
}

/** The field a `$setElementOrder/…` or `$deleteFromPrimitiveList/…` key names. */
function directiveTarget(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === SET_ELEMENT_ORDER_PREFIX ? badSetElementOrderFormat() : badPrimitiveListFormat();
  }
  return key.slice(slash + 1);
}

/** The patch list's items must appear in the `$setElementOrder` list, in the same relative order. */
function validateElementOrder(patchList: JsonValue[], order: JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === '' ? patchList : splitDeletions(patchList)[0];
  let patchIndex = 0;
  let orderIndex = 0;
  while (patchIndex < items.length && orderIndex < order.length) {
    const item = items[patchIndex]!;
    if (isJsonObject(item) && Object.hasOwn(item, DIRECTIVE)) {
      patchIndex++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[orderIndex]!, mergeKey)) patchIndex++;
    orderIndex++;
  }
  if (patchIndex < items.length && orderIndex >= order.length) {
    throw smpInternal(
      `The order in patch list:\n${goSprintV(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goSprintV(order)}\n`,
    );
  }
}

function mergeKeyValueEqual(left: JsonValue, right: JsonValue, mergeKey: string): boolean {
  if (mergeKey === '') return scalarEqual(left, right);
  if (!isJsonObject(left)) throw badArgType('map[string]interface {}', left);
  if (!isJsonObject(right)) throw badArgType('map[string]interface {}', right);
  if (!Object.hasOwn(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return scalarEqual(left[mergeKey], right[mergeKey]);
}

/**
 * A list field: merged for strategy `merge` and deletion lists, otherwise replaced by the patch.
 *
 * apimachinery edits the live list's Go backing array in place (deleting items shifts the rest
 * down, appends reuse the freed room, an empty patch deduplicates the live list itself), and the
 * ordering steps read the live list afterwards, edits included. `original` is our own copy, so it
 * is edited the same way here to order items exactly as Kubernetes does.
 */
function mergeListField(
  original: JsonValue[],
  patch: JsonValue[],
  context: SchemaContext,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
): JsonValue[] {
  if (strategy !== 'merge' && !isDeleteList) return patch;
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);

  if (kind !== 'object') {
    if (isDeleteList) return original.filter((item) => !patch.some((gone) => scalarEqual(gone, item)));
    // Appending nothing leaves Go with the live slice itself; appending more reallocates it.
    const both = patch.length === 0 ? original : [...original, ...patch];
    const merged = both.slice(0, deduplicateScalarsInPlace(both));
    const [inPatch, serverOnly] = partitionByPresence(merged, patch, mergeKey);
    return normalizeElementOrder(inPatch, serverOnly, patch, original, mergeKey, kind);
  }

  if (mergeKey === '') throw smpInternal(`cannot merge lists without merge key for ${contextName(context)}`);
  const { liveLength, rest, replace } = applyListItemDirectives(original, patch, mergeKey);
  if (replace) return normalizeElementOrder([], rest, [], rest, mergeKey, kind);
  const serverOrder = original.slice(0, liveLength);
  const merged = mergeListItems(original, liveLength, rest, mergeKey, context);
  const [inPatch, serverOnly] = partitionByPresence(merged, rest, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, rest, serverOrder, mergeKey, kind);
}

/**
 * Applies list items carrying `$patch`: `delete` removes live items with that merge key (shifting
 * `original` in place), `replace` makes the other patch items the whole list. Returns how many
 * live items remain and the patch items left to merge.
 */
function applyListItemDirectives(
  original: JsonValue[],
  patch: JsonValue[],
  mergeKey: string,
): { liveLength: number; rest: JsonValue[]; replace: boolean } {
  let liveLength = original.length;
  const rest: JsonValue[] = [];
  let replace = false;
  for (const item of patch as JsonObject[]) {
    if (!Object.hasOwn(item, DIRECTIVE)) {
      rest.push(item);
      continue;
    }
    const directive = item[DIRECTIVE];
    if (directive === 'delete') {
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      for (;;) {
        const match = findByMergeKey(original.slice(0, liveLength), mergeKey, item[mergeKey]!);
        if (!match) break;
        original.copyWithin(match.index, match.index + 1, liveLength);
        liveLength--;
      }
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw smpInternal('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, item);
    }
  }
  return { liveLength, rest, replace };
}

/**
 * Merges patch items into the live items with the same merge key and appends the others; like
 * Go's append, appends fill room that deletions freed in `original` before growing a new list.
 */
function mergeListItems(
  original: JsonValue[],
  liveLength: number,
  patch: JsonValue[],
  mergeKey: string,
  context: SchemaContext,
): JsonValue[] {
  let items = original;
  let length = liveLength;
  for (const item of patch as JsonObject[]) {
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const match = findByMergeKey(items.slice(0, length), mergeKey, item[mergeKey]!);
    if (match) {
      items[match.index] = mergeMap(match.item, item, context);
    } else if (items === original && length < original.length) {
      items[length++] = item;
    } else {
      if (items === original) items = original.slice(0, length);
      items.push(item);
      length++;
    }
  }
  return items.slice(0, length);
}

function setWithoutDirectives(target: JsonObject, key: string, value: JsonValue): void {
  const cleaned = removeDirectives(value);
  if (cleaned === undefined) delete target[key];
  else setMember(target, key, cleaned);
}

/** The value without maps carrying `$patch` (undefined when the value itself is one). */
function removeDirectives(value: JsonValue): JsonValue | undefined {
  if (Array.isArray(value)) {
    return value.map(removeDirectives).filter((item): item is JsonValue => item !== undefined);
  }
  if (!isJsonObject(value)) return value;
  if (Object.hasOwn(value, DIRECTIVE)) return undefined;
  for (const [key, member] of Object.entries(value)) {
    const cleaned = removeDirectives(member);
    if (cleaned === undefined) delete value[key];
    else setMember(value, key, cleaned);
  }
  return value;
}

/** Drops null members of every map inside `value` (nulls in lists stay). */
function discardNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) {
    for (const item of value) discardNulls(item);
  } else if (isJsonObject(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (member === null) delete value[key];
      else discardNulls(member);
    }
  }
  return value;
}
