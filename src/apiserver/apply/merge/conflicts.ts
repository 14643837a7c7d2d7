// structured-merge-diff's merge.Conflicts and apimachinery's NewConflictError: who owns the fields
// an apply would change, and the 409 message kube-apiserver words from them.
import { compareGoStrings, goQuote } from '../../../api/selectors/go-text.js';
import { type Path, pathToString } from '../fieldpath/path-element.js';
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

/** ConflictsFromManagers, managers in sorted order, each manager's paths in set order. */
export function conflictsFromManagers(sets: ReadonlyMap<string, FieldSet>): Conflict[] {
  const out: Conflict[] = [];
  for (const manager of [...sets.keys()].sort(compareGoStrings)) {
    sets.get(manager)?.iterate((path) => out.push({ manager, path }));
  }
  return out;
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
