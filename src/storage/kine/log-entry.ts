/**
 * The log row of a kine-style store (k3s-io/kine's log table, shared by the SQLite and
 * PostgreSQL stores): one row per revision, turned into the watch event it stands for.
 */
import type { WatchEvent } from '../types.js';

/** Log row kinds, as both schemas store them. */
export const KIND_CREATE = 0;
export const KIND_UPDATE = 1;
export const KIND_DELETE = 2;

export interface LogEntry {
  readonly revision: number;
  readonly key: string;
  readonly kind: number;
  readonly value: string | null;
  readonly createRevision: number;
  readonly prevRevision: number | null;
  /** The value of the row at prevRevision (joined in by the reader). */
  readonly prevValue: string | null;
}

export function logEntryToEvent(entry: LogEntry): WatchEvent {
  const { revision, key, kind, value, createRevision } = entry;
  if (kind === KIND_CREATE) return { type: 'create', key, revision, value: value!, createRevision };
  const prev = { prevValue: entry.prevValue ?? undefined, prevRevision: entry.prevRevision ?? undefined };
  if (kind === KIND_UPDATE) return { type: 'update', key, revision, value: value!, createRevision, ...prev };
  return { type: 'delete', key, revision, createRevision, ...prev };
}

export function eventKind(event: WatchEvent): number {
  return event.type === 'create' ? KIND_CREATE : event.type === 'update' ? KIND_UPDATE : KIND_DELETE;
}
