/**
 * One queued write of a kine-style store and how it applies to a key's live state: the
 * preconditions (exists, absent, revision match) kine's and etcd's compare-and-swap check,
 * the revision it takes and the watch event it makes. Both log stores commit batches of these.
 */
import { ConflictError, KeyExistsError, KeyNotFoundError } from '../errors.js';
import type { DeleteResult, KeyValue, UpdateResult, WatchEvent } from '../types.js';

export type WriteOp =
  | { kind: 'create'; key: string; value: string; expiresAt: number | null }
  | { kind: 'update'; key: string; value: string; expiresAt: number | null; expectedRevision?: number }
  | { kind: 'delete'; key: string; expectedRevision?: number };

export type WriteResult = KeyValue | UpdateResult | DeleteResult;

export interface PendingWrite {
  op: WriteOp;
  resolve: (result: WriteResult) => void;
  reject: (error: unknown) => void;
}

export type Outcome = { ok: true; result: WriteResult } | { ok: false; error: unknown };

/**
 * Checks `op` against the key's live state (`current`, absent when the key is not live),
 * takes a revision from `nextRevision` when it succeeds and appends its event. A failed
 * precondition takes no revision and makes no event.
 */
export function applyWriteOp(
  op: WriteOp,
  current: KeyValue | undefined,
  nextRevision: () => number,
  events: WatchEvent[],
): Outcome {
  if (op.kind === 'create') {
    if (current) return { ok: false, error: new KeyExistsError(op.key) };
    const revision = nextRevision();
    events.push({ type: 'create', key: op.key, revision, value: op.value, createRevision: revision });
    return {
      ok: true,
      result: { key: op.key, value: op.value, createRevision: revision, modRevision: revision },
    };
  }
  if (!current) return { ok: false, error: new KeyNotFoundError(op.key) };
  if (op.expectedRevision !== undefined && op.expectedRevision !== current.modRevision) {
    return { ok: false, error: new ConflictError(op.key, op.expectedRevision, current.modRevision) };
  }
  const revision = nextRevision();
  const { createRevision } = current;
  const prev = { prevValue: current.value, prevRevision: current.modRevision };
  if (op.kind === 'update') {
    events.push({ type: 'update', key: op.key, revision, value: op.value, createRevision, ...prev });
    const updated = { key: op.key, value: op.value, createRevision, modRevision: revision };
    return { ok: true, result: { current: updated, previous: current } };
  }
  events.push({ type: 'delete', key: op.key, revision, createRevision, ...prev });
  return { ok: true, result: { revision, previous: current } };
}

/** Settles each queued write with its outcome (same order). */
export function settle(batch: readonly PendingWrite[], outcomes: readonly Outcome[]): void {
  batch.forEach((write, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) write.resolve(outcome.result);
    else write.reject(outcome.error);
  });
}
