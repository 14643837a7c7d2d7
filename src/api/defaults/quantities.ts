// Quantities as kube-apiserver stores them: decoding parses each one, so the stored text is its
// canonical form (or the given text where Kubernetes keeps it); ResourceLists are also rounded up
// to milli units (SetDefaults_ResourceList).

import { isJsonObject, type JsonObject } from '../object.js';
import { Quantity } from '../quantity.js';

const MILLI = -3;

/** Rewrites one quantity field in place; unparseable values are left for the decode check. */
export function canonicalizeQuantity(parent: JsonObject, key: string): void {
  const value = parent[key];
  if (value === undefined || value === null) return;
  const quantity = Quantity.tryFromJson(value);
  if (quantity !== undefined) parent[key] = quantity.toString();
}

/** A ResourceList as decoding and SetDefaults_ResourceList leave it. */
export function defaultResourceList(parent: JsonObject, key: string, roundToMilli = true): void {
  const list = parent[key];
  if (!isJsonObject(list)) return;
  for (const [name, value] of Object.entries(list)) {
    const quantity = Quantity.tryFromJson(value);
    if (quantity === undefined) continue;
    list[name] = (roundToMilli ? quantity.roundUp(MILLI) : quantity).toString();
  }
}

/** Every quantity under `key` of `parent` is canonicalized (for maps of quantities not rounded). */
export function canonicalizeQuantityMap(parent: JsonObject, key: string): void {
  defaultResourceList(parent, key, false);
}
