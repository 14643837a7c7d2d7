// structured-merge-diff's Set.EnsureNamedFieldsAreMembers: a set plus every declared struct field
// it reaches into (owning `spec.replicas` also owns `spec` as a member), not map entries; used
// where apply prunes so that a struct left empty is removed with its last owned field.
import { FieldSet, type SetNode } from '../fieldpath/set.js';
import { atomFor, type ListType, type MapType, type SchemaType } from './schema.js';

function mapView(type: SchemaType | undefined): MapType | undefined {
  if (!type) return undefined;
  if (type.kind === 'map') return type;
  if (type.kind === 'untyped') return atomFor(type, {}) as MapType;
  return undefined;
}

function listView(type: SchemaType | undefined): ListType | undefined {
  if (!type) return undefined;
  if (type.kind === 'list') return type;
  if (type.kind === 'untyped') return atomFor(type, []) as ListType;
  return undefined;
}

export function ensureNamedFieldsAreMembers(set: FieldSet, type: SchemaType | undefined): FieldSet {
  const map = mapView(type);
  const list = listView(type);
  const members = new FieldSet([...set.members]);
  const children: SetNode[] = [];
  for (const node of set.children) {
    let childType: SchemaType | undefined;
    if (node.element.kind === 'field' && map) {
      if (map.fields.has(node.element.name)) members.insertMember(node.element);
      childType = map.fields.get(node.element.name) ?? map.element;
    } else if (node.element.kind === 'key' && list) {
      childType = list.element;
    }
    children.push({ element: node.element, set: ensureNamedFieldsAreMembers(node.set, childType) });
  }
  return new FieldSet(members.members, children);
}
