// structured-merge-diff's listItemToPathElement: how an item of a list is named in a field path —
// by its key fields in a list map (defaults standing in for omitted keys), by its value in a set,
// by its position in an atomic list.
import { isJsonObject, type JsonValue } from '../../patch/json-value.js';
import {
  indexElement,
  type KeyField,
  keyElement,
  type PathElement,
  valueElement,
} from '../fieldpath/path-element.js';
import { atomFor, type ListType, TypedValueError } from './schema.js';

export function listItemElement(list: ListType, index: number, item: JsonValue): PathElement {
  if (list.relationship !== 'associative') return indexElement(index);
  if (list.keys.length > 0) return keyedItemElement(list, item);
  if (isJsonObject(item))
    throw new TypedValueError("associative list without keys has an element that's a map type");
  if (Array.isArray(item))
    throw new TypedValueError('not supported: associative list with lists as elements');
  if (item === null)
    throw new TypedValueError("associative list without keys has an element that's an explicit null");
  return valueElement(item);
}

function keyedItemElement(list: ListType, item: JsonValue): PathElement {
  if (item === null) throw new TypedValueError('associative list with keys may not have a null element');
  if (!isJsonObject(item))
    throw new TypedValueError('associative list with keys may not have non-map elements');
  const fields: KeyField[] = [];
  for (const name of list.keys) {
    if (Object.hasOwn(item, name)) {
      fields.push({ name, value: item[name] as JsonValue });
      continue;
    }
    const elementAtom = atomFor(list.element, item);
    if (elementAtom.kind !== 'map') {
      throw new TypedValueError(
        `couldn't find default value for ${name}: associative list may not have non-map types`,
      );
    }
    const fallback = elementAtom.defaults.get(name);
    if (fallback === undefined) {
      throw new TypedValueError(
        `associative list with keys has an element that omits key field "${name}" (and doesn't have default value)`,
      );
    }
    fields.push({ name, value: fallback });
  }
  return keyElement(fields);
}
