// structured-merge-diff's TypedValue.RemoveItems (typed/remove.go): drops the list items and map
// keys a set names, descending where the set has children. As upstream, a list or map left empty
// by the walk (or an atomic one walked into) becomes null.
import { isJsonObject, type JsonObject, type JsonValue } from '../../patch/json-value.js';
import { fieldElement } from '../fieldpath/path-element.js';
import type { FieldSet } from '../fieldpath/set.js';
import { listItemElement } from './list-items.js';
import { atomFor, fieldType, type SchemaType } from './schema.js';

export function removeItems(type: SchemaType, value: JsonValue, toRemove: FieldSet): JsonValue {
  const atom = atomFor(type, value);
  if (atom.kind === 'scalar') return value;
  if (atom.kind === 'list') {
    if (!Array.isArray(value) || value.length === 0 || atom.relationship === 'atomic') return null;
    const items: JsonValue[] = [];
    value.forEach((item, index) => {
      let kept = item;
      let pe: ReturnType<typeof listItemElement>;
      try {
        pe = listItemElement(atom, index, item);
      } catch {
        // Upstream walks on with an empty element, which no set contains.
        items.push(item);
        return;
      }
      if (toRemove.hasMember(pe)) return;
      const below = toRemove.child(pe);
      if (below && !below.empty()) kept = removeItems(atom.element, item, below);
      items.push(kept);
    });
    return items.length > 0 ? items : null;
  }
  if (!isJsonObject(value) || Object.keys(value).length === 0 || atom.relationship === 'atomic') return null;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    const pe = fieldElement(key);
    if (toRemove.hasMember(pe)) continue;
    let kept = child as JsonValue;
    const below = toRemove.child(pe);
    const childType = fieldType(atom, key);
    if (below && !below.empty() && childType) kept = removeItems(childType, kept, below);
    out[key] = kept;
  }
  return Object.keys(out).length > 0 ? out : null;
}
