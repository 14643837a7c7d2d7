// Resource lists (`{cpu: "1", memory: "1Gi"}`) as quota and limit arithmetic handles them,
// mirroring the helpers of k8s.io/apiserver/pkg/quota/v1.

import { isJsonObject } from '../../../api/object.js';
import { Quantity } from '../../../api/quantity.js';

export type ResourceList = Record<string, Quantity>;

/** Parses a JSON resource list; entries that are not quantities are skipped (validation rejects them earlier). */
export function parseResourceList(value: unknown): ResourceList {
  const result: ResourceList = {};
  if (!isJsonObject(value)) return result;
  for (const [name, raw] of Object.entries(value)) {
    const quantity = Quantity.tryFromJson(raw);
    if (quantity !== undefined) result[name] = quantity;
  }
  return result;
}

export function resourceListToJson(list: ResourceList): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of Object.keys(list).sort()) result[name] = list[name]!.toString();
  return result;
}

export function has(list: ResourceList, name: string): boolean {
  return Object.hasOwn(list, name);
}

export function negate(quantity: Quantity): Quantity {
  // Parsed quantities are exact to nano units, so this loses nothing.
  return Quantity.parse(`${-quantity.scaledValue(-9)}n`);
}

/** quota.Add: the sum of both lists; names in only one keep that value. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const result: ResourceList = { ...a };
  for (const [name, quantity] of Object.entries(b)) {
    result[name] = has(result, name) ? result[name]!.add(quantity) : quantity;
  }
  return result;
}

/** In place: adds every entry of `extra` into `list` (resourcehelper's addResourceList). */
export function addInto(list: ResourceList, extra: ResourceList): void {
  for (const [name, quantity] of Object.entries(extra)) {
    list[name] = has(list, name) ? list[name]!.add(quantity) : quantity;
  }
}

/** In place: raises each entry of `list` to the entry of `other` where that is larger. */
export function maxInto(list: ResourceList, other: ResourceList): void {
  for (const [name, quantity] of Object.entries(other)) {
    if (!has(list, name) || quantity.cmp(list[name]!) > 0) list[name] = quantity;
  }
}

/** quota.SubtractWithNonNegativeResult: a − b per name, never below zero; names only in b become zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const zero = Quantity.fromInteger(0);
  const result: ResourceList = {};
  for (const [name, quantity] of Object.entries(a)) {
    const difference = has(b, name) ? quantity.add(negate(b[name]!)) : quantity;
    result[name] = difference.sign() > 0 ? difference : zero;
  }
  for (const name of Object.keys(b)) if (!has(result, name)) result[name] = zero;
  return result;
}

/** quota.Mask: only the named entries. */
export function maskList(list: ResourceList, names: readonly string[]): ResourceList {
  const result: ResourceList = {};
  for (const name of names) if (has(list, name)) result[name] = list[name]!;
  return result;
}

export function removeZeros(list: ResourceList): ResourceList {
  const result: ResourceList = {};
  for (const [name, quantity] of Object.entries(list)) if (!quantity.isZero()) result[name] = quantity;
  return result;
}

/** Names whose quantity is negative, sorted. */
export function negativeNames(list: ResourceList): string[] {
  return Object.keys(list)
    .filter((name) => list[name]!.sign() < 0)
    .sort();
}

/** quota.LessThanOrEqual: the names of `a` that exceed the same name in `b`. */
export function exceededNames(a: ResourceList, b: ResourceList): string[] {
  return Object.keys(b).filter((name) => has(a, name) && a[name]!.cmp(b[name]!) > 0);
}

/** `name=value` pairs sorted by name and joined with commas (the quota plugin's prettyPrint). */
export function formatResourceList(list: ResourceList): string {
  return Object.keys(list)
    .sort()
    .map((name) => `${name}=${list[name]!.toString()}`)
    .join(',');
}

export function formatResourceNames(names: readonly string[]): string {
  return [...names].sort().join(',');
}

export function intersection(a: readonly string[], b: readonly string[]): string[] {
  const wanted = new Set(b);
  return a.filter((name) => wanted.has(name));
}

/** apiequality.Semantic for resource lists: equal as quantities (`1` and `1000m`), in any order. */
export function sameResourceList(a: unknown, b: unknown): boolean {
  const left = resourceListToJson(parseResourceList(a ?? {}));
  const right = resourceListToJson(parseResourceList(b ?? {}));
  const names = Object.keys(left);
  return names.length === Object.keys(right).length && names.every((name) => left[name] === right[name]);
}
