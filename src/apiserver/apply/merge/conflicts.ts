// structured-merge-diff's merge.Conflicts and apimachinery's NewConflictError: who owns the fields
// an apply would change, and the 409 message kube-apiserver words from them.
import { compareGoStrings, goQuote } from '../../../api/selectors/go-text.js';
import { type Path, type PathElement, pathToString } from '../fieldpath/path-element.js';
import type { FieldSet } from '../fieldpath/set.js';

export interface Conflict {
  /** The manager identifier (the JSON of its managedFields entry without fields and time). */
  readonly manager: string;
  readonly path: Path;
}

/** An apply refused because other managers own fields it changes. */
export class ApplyConflictError extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(conflictMessage(conflicts));
  }

  /** The Status causes: one FieldManagerConflict per path. */
  causes(): { reason: 'FieldManagerConflict'; message: string; field: string }[] {
    return this.conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${printManager(c.manager)}`,
      field: pathToString(c.path),
    }));
  }
}

/**
 * ConflictsFromManagers, managers in sorted order, each manager's paths in set order. Upstream
 * collects the paths Set.Iterate hands out, which are appended to one shared prefix slice; where
 * that slice had spare capacity, later paths overwrite the last element of earlier ones, so a
 * message can name one field twice. The paths are built the same way here, so messages and
 * causes match kube-apiserver's.
 */
export function conflictsFromManagers(sets: ReadonlyMap<string, FieldSet>): Conflict[] {
  const out: { manager: string; slice: GoSlice }[] = [];
  for (const manager of [...sets.keys()].sort(compareGoStrings)) {
    const set = sets.get(manager);
    if (set)
      iterateLikeGo(set, { array: [], length: 0, capacity: 0 }, (slice) => out.push({ manager, slice }));
  }
  return out.map(({ manager, slice }) => ({ manager, path: slice.array.slice(0, slice.length) }));
}

/** A Go slice of path elements: a shared backing array, a length and a capacity. */
interface GoSlice {
  readonly array: PathElement[];
  readonly length: number;
  readonly capacity: number;
}

// Go's append: in place while capacity lasts, else a copy with doubled capacity (PathElement is
// 32 bytes, so the allocator's size classes keep capacities at powers of two).
function appendLikeGo(slice: GoSlice, pe: PathElement): GoSlice {
  if (slice.length < slice.capacity) {
    slice.array[slice.length] = pe;
    return { array: slice.array, length: slice.length + 1, capacity: slice.capacity };
  }
  const array = slice.array.slice(0, slice.length);
  array.push(pe);
  return { array, length: slice.length + 1, capacity: slice.capacity === 0 ? 1 : slice.capacity * 2 };
}

function iterateLikeGo(set: FieldSet, prefix: GoSlice, visit: (slice: GoSlice) => void): void {
  for (const pe of set.members) visit(appendLikeGo(prefix, pe));
  for (const node of set.children) iterateLikeGo(node.set, appendLikeGo(prefix, node.element), visit);
}

/** printManager: the manager's name, its subresource, and for updates its apiVersion and time. */
export function printManager(identifier: string): string {
  let entry: {
    manager?: unknown;
    operation?: unknown;
    apiVersion?: unknown;
    time?: unknown;
    subresource?: unknown;
  };
  try {
    entry = JSON.parse(identifier) as typeof entry;
  } catch {
    return goQuote(identifier);
  }
  if (entry === null || typeof entry !== 'object') return goQuote(identifier);
  let text = goQuote(typeof entry.manager === 'string' ? entry.manager : '');
  if (typeof entry.subresource === 'string' && entry.subresource !== '') {
    text = `${text} with subresource ${goQuote(entry.subresource)}`;
  }
  if (entry.operation === 'Update') {
    const apiVersion = typeof entry.apiVersion === 'string' ? entry.apiVersion : '';
    if (typeof entry.time !== 'string') return `${text} using ${apiVersion}`;
    return `${text} using ${apiVersion} at ${entry.time}`;
  }
  return text;
}

/** getConflictMessage. */
export function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const [only] = conflicts as [Conflict];
    return `Apply failed with 1 conflict: conflict with ${printManager(only.manager)}: ${pathToString(only.path)}`;
  }
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort(compareGoStrings)) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const path of byManager.get(manager) ?? []) lines.push(`- ${pathToString(path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
