// structured-merge-diff's TypedValue.Compare: the fields added, removed and modified between two
// values of a type (a changed leaf is modified; a node present on one side only is added/removed).
import type { JsonValue } from '../../patch/json-value.js';
import { FieldSet } from '../fieldpath/set.js';
import { mergeValues, valuesEqual } from './merge.js';
import type { SchemaType } from './schema.js';

export interface Comparison {
  readonly added: FieldSet;
  readonly removed: FieldSet;
  readonly modified: FieldSet;
}

export function compareTyped(type: SchemaType, lhs: JsonValue, rhs: JsonValue): Comparison {
  const comparison = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  mergeValues(
    type,
    lhs,
    rhs,
    (node) => {
      if (node.lhs === undefined) comparison.added.insert(node.path);
      else if (node.rhs === undefined) comparison.removed.insert(node.path);
      else if (!valuesEqual(node.rhs, node.lhs)) comparison.modified.insert(node.path);
    },
    (node) => {
      if (node.lhs === undefined) comparison.added.insert(node.path);
      else if (node.rhs === undefined) comparison.removed.insert(node.path);
    },
    true,
  );
  return comparison;
}

/** Comparison.IsSame. */
export function isSame(comparison: Comparison): boolean {
  return comparison.added.empty() && comparison.removed.empty() && comparison.modified.empty();
}

/** Comparison.ExcludeFields: drops fields (and everything below them) that are not tracked. */
export function excludeFields(comparison: Comparison, ignored: FieldSet | undefined): Comparison {
  if (!ignored || ignored.empty()) return comparison;
  return {
    added: comparison.added.recursiveDifference(ignored),
    removed: comparison.removed.recursiveDifference(ignored),
    modified: comparison.modified.recursiveDifference(ignored),
  };
}
