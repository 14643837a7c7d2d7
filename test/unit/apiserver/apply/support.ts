// Helpers of the field manager's unit tests: an object's managedFields entries, and the conflict an
// apply is expected to refuse with.
import type { ManagedFieldsEntry } from '../../../../src/api/object.js';
import { ApplyConflictError } from '../../../../src/apiserver/apply/merge/conflicts.js';
import type { JsonObject } from '../../../../src/apiserver/patch/json-value.js';

export function managedEntries(object: JsonObject): ManagedFieldsEntry[] {
  return ((object.metadata as JsonObject).managedFields ?? []) as unknown as ManagedFieldsEntry[];
}

export function conflictOf(run: () => unknown): ApplyConflictError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApplyConflictError) return error;
    throw error;
  }
  throw new Error('expected a conflict');
}
