// structured-merge-diff's ReconcileFieldSetWithSchema (typed/reconcile_schema.go): a manager's set
// recorded when a list or map was granular names its items; once the schema makes it atomic, the
// set owns the list or map as a whole instead. Undefined when nothing changes.
import type { PathElement } from '../fieldpath/path-element.js';
import { FieldSet } from '../fieldpath/set.js';
import { type MapType, type SchemaType, UNTYPED_DEDUCED } from './schema.js';

interface Reconciliation {
  toRemove: FieldSet | undefined;
  toAdd: FieldSet | undefined;
}

export function reconcileFieldSetWithSchema(set: FieldSet, type: SchemaType): FieldSet | undefined {
  const found: Reconciliation = { toRemove: undefined, toAdd: undefined };
  walk(type, set, [], false, found);
  if (!found.toRemove && !found.toAdd) return undefined;
  let out = set;
  if (found.toRemove) out = out.recursiveDifference(found.toRemove);
  if (found.toAdd) out = out.union(found.toAdd);
  return out;
}

function makeAtomic(path: readonly PathElement[], found: Reconciliation): void {
  const here = FieldSet.of([...path]);
  found.toRemove = found.toRemove ? found.toRemove.union(here) : here;
  found.toAdd = found.toAdd ? found.toAdd.union(here) : FieldSet.of([...path]);
}

// The whole atom, as handleAtom sees it without a value: untyped types walk as their map.
function mapOrList(type: SchemaType): MapType | Exclude<SchemaType, MapType> {
  if (type.kind !== 'untyped') return type;
  return {
    kind: 'map',
    fields: new Map(),
    defaults: new Map(),
    element: type.atomic ? type : UNTYPED_DEDUCED,
    relationship: type.atomic ? 'atomic' : 'granular',
  };
}

function walk(
  type: SchemaType,
  set: FieldSet | undefined,
  path: readonly PathElement[],
  isAtomic: boolean,
  found: Reconciliation,
): void {
  const atom = mapOrList(type);
  if (atom.kind === 'scalar' || atom.kind === 'untyped') return;
  if (atom.kind === 'list') {
    if (!isAtomic && atom.relationship === 'atomic') {
      makeAtomic(path, found);
      return;
    }
    if (set) visitItems(set, path, found, () => atom.element);
    return;
  }
  // An untyped map with deduced values has nothing a schema change could make atomic.
  if (atom.fields.size === 0 && atom.element === UNTYPED_DEDUCED) return;
  if (!isAtomic && atom.relationship === 'atomic') {
    if (set && set.size() > 0) makeAtomic(path, found);
    return;
  }
  if (set) {
    visitItems(set, path, found, (pe) =>
      pe.kind === 'field' ? (atom.fields.get(pe.name) ?? atom.element) : atom.element,
    );
  }
}

// Children that are not members first, then members, as upstream visits them.
function visitItems(
  set: FieldSet,
  path: readonly PathElement[],
  found: Reconciliation,
  typeOf: (pe: PathElement) => SchemaType | undefined,
): void {
  const handle = (pe: PathElement, isMember: boolean) => {
    const childType = typeOf(pe);
    if (!childType) return;
    const child = set.child(pe);
    walk(childType, child, [...path, pe], isMember && !child, found);
  };
  for (const node of set.children) if (!set.hasMember(node.element)) handle(node.element, false);
  for (const pe of set.members) handle(pe, true);
}
