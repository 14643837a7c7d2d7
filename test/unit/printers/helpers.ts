// Shared fixtures for the printer tests: a fixed server clock and relative timestamps.
import type { KubeObject } from '../../../src/api/object.js';
import { printTable } from '../../../src/apiserver/printers/index.js';

export const NOW = new Date('2025-06-01T12:00:00Z');

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** An RFC 3339 timestamp (whole seconds, as Kubernetes writes them) this long before NOW. */
export function ago(amount: { d?: number; h?: number; m?: number; s?: number }): string {
  const ms =
    (amount.d ?? 0) * DAY + (amount.h ?? 0) * HOUR + (amount.m ?? 0) * MINUTE + (amount.s ?? 0) * SECOND;
  return `${new Date(NOW.getTime() - ms).toISOString().slice(0, 19)}Z`;
}

/** The cells of the one row kube-apiserver would print for this object. */
export function cellsOf(group: string, kind: string, object: KubeObject): unknown[] {
  const table = printTable(group, kind, [object], { now: NOW, includeObject: 'None' });
  return table.rows?.[0]?.cells ?? [];
}

/** The cells of the column with this name, one per object. */
export function columnCells(group: string, kind: string, column: string, objects: KubeObject[]): unknown[] {
  const table = printTable(group, kind, objects, { now: NOW, includeObject: 'None' });
  const index = (table.columnDefinitions ?? []).findIndex((definition) => definition.name === column);
  if (index < 0) throw new Error(`no column ${column}`);
  return (table.rows ?? []).map((row) => row.cells[index]);
}
