// structured-merge-diff's TypedValue.ToFieldSet (tofieldset.go): the fields a value sets — every
// scalar, atomic list and atomic map; every list item; a map key when its value is null, an empty
// map, or the key is not a declared field (a map entry rather than a struct field).
import { isJsonObject, type JsonValue } from '../../patch/json-value.js';
import { fieldElement, type PathElement, pathToString } from '../fieldpath/path-element.js';
import { FieldSet } from '../fieldpath/set.js';
import { listItemElement } from './list-items.js';
import { atomFor, fieldType, type SchemaType, TypedValueError } from './schema.js';

export function toFieldSet(type: SchemaType, value: JsonValue): FieldSet {
  const set = new FieldSet();
  walk(type, value, [], set);
  return set;
}

function walk(type: SchemaType, value: JsonValue, path: PathElement[], set: FieldSet): void {
  const atom = atomFor(type, value);
  if (atom.kind === 'scalar') {
    set.insert(path);
    return;
  }
  if (atom.kind === 'list') {
    if (atom.relationship === 'atomic') {
      set.insert(path);
      return;
    }
    if (!Array.isArray(value)) return;
    value.forEach((item, index) => {
      let pe: PathElement;
      try {
        pe = listItemElement(atom, index, item);
      } catch (error) {
        throw new TypedValueError(`${pathToString(path)}: element ${index}: ${(error as Error).message}`);
      }
      const itemPath = [...path, pe];
      walk(atom.element, item, itemPath, set);
      set.insert(itemPath);
    });
    return;
  }
  if (atom.relationship === 'atomic') {
    set.insert(path);
    return;
  }
  if (!isJsonObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = [...path, fieldElement(key)];
    const childType = fieldType(atom, key);
    if (!childType) throw new TypedValueError(`${pathToString(childPath)}: field not declared in schema`);
    walk(childType, child as JsonValue, childPath, set);
    if (child === null || (isJsonObject(child) && Object.keys(child).length === 0) || !atom.fields.has(key)) {
      set.insert(childPath);
    }
  }
}
