import { compareGoStrings, goSprintV } from './go-format.js';
import { isJsonObject, type JsonKind, type JsonObject, type JsonValue, jsonKind } from './json-value.js';
import { badArgType, noListOfLists, noMergeKey, smpInternal } from './smp-errors.js';

// The list helpers of a strategic merge patch. Merged lists are ordered like apimachinery orders
// them: items named by the patch (or its $setElementOrder list) in the patch's order, the other
// items in the live object's order, interleaved by their positions in the live object. Go's
// sort.SliceStable is reproduced exactly because apimachinery's comparator is not consistent for
// items missing from the order list, so any other stable sort could order them differently.

/** The kind shared by the items of the given lists; errors for mixed kinds and lists of lists. */
export function sliceElementKind(...lists: (readonly JsonValue[])[]): JsonKind {
  let kind: JsonKind | undefined;
  for (const list of lists) {
    for (const item of list) {
      const current = jsonKind(item);
      if (kind === undefined) {
        kind = current;
        if (kind === 'array') throw noListOfLists();
      } else if (kind !== current) {
        throw smpInternal(`list element types are not identical: ${goSprintV(lists)}`);
      }
    }
  }
  if (kind === undefined) throw smpInternal('no elements in any of the given slices');
  return kind;
}

/** The merge-key value of an item, or the item itself for scalars; nil is null. */
function identity(item: unknown, mergeKey: string, kind: JsonKind): unknown {
  if (kind !== 'object') return item ?? null;
  return isJsonObject(item) ? (item[mergeKey] ?? null) : null;
}

/** Positions of the first occurrence of each identity in `order`. */
function positions(order: readonly JsonValue[], mergeKey: string, kind: JsonKind): Map<unknown, number> {
  const result = new Map<unknown, number>();
  order.forEach((item, i) => {
    const id = identity(item, mergeKey, kind);
    if (!result.has(id)) result.set(id, i);
  });
  return result;
}

/** Items present (by merge key) in `by`, and the rest; both keep the order of `items`. */
export function partitionByPresence(
  items: readonly JsonValue[],
  by: readonly JsonValue[],
  mergeKey: string,
): [present: JsonValue[], absent: JsonValue[]] {
  const present: JsonValue[] = [];
  const absent: JsonValue[] = [];
  if (mergeKey === '') {
    const members = new Set<unknown>(by);
    for (const item of items) (members.has(item) ? present : absent).push(item);
    return [present, absent];
  }
  for (const item of items) {
    if (!isJsonObject(item)) throw badArgType('map[string]interface {}', item);
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    (findByMergeKey(by, mergeKey, item[mergeKey]!) ? present : absent).push(item);
  }
  return [present, absent];
}

/** The first map in `list` whose `mergeKey` equals `value`; errors when an item is not a map. */
export function findByMergeKey(
  list: readonly JsonValue[],
  mergeKey: string,
  value: JsonValue,
): { item: JsonObject; index: number } | undefined {
  for (let index = 0; index < list.length; index++) {
    const item = list[index];
    if (!isJsonObject(item)) throw smpInternal(`value for key ${index} is not a map`);
    if (Object.hasOwn(item, mergeKey) && scalarEqual(item[mergeKey], value)) return { item, index };
  }
  return undefined;
}

/** Go's == on interface values holding decoded JSON scalars. */
export function scalarEqual(a: unknown, b: unknown): boolean {
  return a === b || ((a === null || a === undefined) && (b === null || b === undefined));
}

/**
 * apimachinery's deduplicateScalars, in place and step for step: it moves the last item into each
 * duplicate's slot and shortens the slice. Returns the new length; items past it keep whatever
 * the algorithm left there, as they do in the Go slice's backing array.
 */
export function deduplicateScalarsInPlace(list: JsonValue[]): number {
  let last = list.length - 1;
  for (let i = 0; i < last; i++) {
    for (let j = i + 1; j <= last; j++) {
      if (scalarEqual(list[i], list[j])) {
        list[j] = list[last]!;
        last--;
        j--;
      }
    }
  }
  return last + 1;
}

/** Patch items ordered by `patchOrder`, server-only items by `serverOrder`, then interleaved. */
export function normalizeElementOrder(
  patchItems: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string,
  kind: JsonKind,
): JsonValue[] {
  const patch = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const server = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlices(server, patch, serverOrder, mergeKey, kind);
}

/** Sorts `items` by their place in `order`; items with `$patch: delete` go last. */
export function normalizeSliceOrder(
  items: readonly JsonValue[],
  order: readonly JsonValue[],
  mergeKey: string,
  kind: JsonKind,
): JsonValue[] {
  let toSort = [...items];
  let toDelete: JsonValue[] = [];
  if (kind === 'object') {
    validateMergeKeys(mergeKey, toSort, order);
    [toSort, toDelete] = splitDeletions(toSort);
  }
  const places = positions(order, mergeKey, kind);
  const keyed = toSort.map((item) => ({ item, place: places.get(identity(item, mergeKey, kind)) ?? -1 }));
  goSliceStable(keyed, (a, b) => (a.place >= 0 && b.place >= 0 ? a.place < b.place : true));
  return [...keyed.map(({ item }) => item), ...toDelete];
}

function validateMergeKeys(mergeKey: string, ...lists: (readonly JsonValue[])[]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isJsonObject(item)) throw badArgType('map[string]interface {}', item);
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
  }
}

/** Items without `$patch: delete`, and those with it. */
export function splitDeletions(items: readonly JsonValue[]): [kept: JsonValue[], deleted: JsonValue[]] {
  const kept: JsonValue[] = [];
  const deleted: JsonValue[] = [];
  for (const item of items) {
    if (!isJsonObject(item)) throw badArgType('map[string]interface {}', item);
    (item.$patch === 'delete' ? deleted : kept).push(item);
  }
  return [kept, deleted];
}

/**
 * Inserts the server-only items (`left`) among the patch items (`right`): a server-only item goes
 * first only when both are in the live list and it comes earlier there.
 */
function mergeSortedSlices(
  left: readonly JsonValue[],
  right: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string,
  kind: JsonKind,
): JsonValue[] {
  const places = positions(serverOrder, mergeKey, kind);
  const place = (item: JsonValue) => places.get(identity(item, mergeKey, kind)) ?? -1;
  const result: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) result.push(right[j++]!);
    else if (j >= right.length) result.push(left[i++]!);
    else {
      const l = place(left[i]!);
      const r = place(right[j]!);
      result.push(l >= 0 && r >= 0 && l < r ? left[i++]! : right[j++]!);
    }
  }
  return result;
}

/** Sorts scalars by their %v text, as apimachinery's sortScalars does. */
export function sortScalars(items: readonly JsonValue[]): JsonValue[] {
  return [...items].sort((a, b) => compareGoStrings(goSprintV(a), goSprintV(b)));
}

/** Go's sort.SliceStable (insertion sort in blocks of 20, then SymMerge), step for step. */
export function goSliceStable<T>(data: T[], less: (a: T, b: T) => boolean): void {
  const lessAt = (i: number, j: number) => less(data[i]!, data[j]!);
  const swap = (i: number, j: number) => {
    const t = data[i]!;
    data[i] = data[j]!;
    data[j] = t;
  };
  const insertionSort = (a: number, b: number) => {
    for (let i = a + 1; i < b; i++) {
      for (let j = i; j > a && lessAt(j, j - 1); j--) swap(j, j - 1);
    }
  };
  const swapRange = (a: number, b: number, n: number) => {
    for (let i = 0; i < n; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number) => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (lessAt(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!lessAt(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!lessAt(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };

  const n = data.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
}
