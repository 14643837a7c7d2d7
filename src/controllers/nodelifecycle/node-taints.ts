// Taints the node lifecycle controller owns, and how it changes them (pkg/util/taints and
// controller.AddOrUpdateTaintOnNode / RemoveTaintOffNode): taints are matched by key and effect,
// and written with the node's resourceVersion, re-reading the node after a conflict.
import type { Node, Taint } from '../../api/types/core-v1.generated.js';
import { rfc3339 } from '../../client/events/time.js';
import { NODES } from '../../client/resources.js';
import { isConflict } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

export const UNREACHABLE_NO_EXECUTE: Taint = { key: TAINT_UNREACHABLE, effect: 'NoExecute' };
export const NOT_READY_NO_EXECUTE: Taint = { key: TAINT_NOT_READY, effect: 'NoExecute' };

/** Which NoSchedule taint each node condition status calls for (TaintNodesByCondition). */
export const CONDITION_TAINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: TAINT_NOT_READY, Unknown: TAINT_UNREACHABLE },
  MemoryPressure: { True: 'node.kubernetes.io/memory-pressure' },
  DiskPressure: { True: 'node.kubernetes.io/disk-pressure' },
  NetworkUnavailable: { True: 'node.kubernetes.io/network-unavailable' },
  PIDPressure: { True: 'node.kubernetes.io/pid-pressure' },
};

/** The taint keys that stand for a node condition. */
export const CONDITION_TAINT_KEYS: ReadonlySet<string> = new Set(
  Object.values(CONDITION_TAINTS).flatMap((byStatus) => Object.values(byStatus)),
);

/** Same key and effect: the identity of a taint on a node. */
export function taintMatches(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

export function taintExists(taints: readonly Taint[] | undefined, taint: Taint): boolean {
  return (taints ?? []).some((candidate) => taintMatches(candidate, taint));
}

/** The taints of `wanted` missing from `current`, and those of `current` not in `wanted`. */
export function taintSetDiff(
  wanted: readonly Taint[],
  current: readonly Taint[],
): { add: Taint[]; remove: Taint[] } {
  return {
    add: wanted.filter((taint) => !taintExists(current, taint)),
    remove: current.filter((taint) => !taintExists(wanted, taint)),
  };
}

const CONFLICT_RETRIES = 5;

/**
 * Adds (stamped with the time) and removes taints in one write. Starts from the cached node and
 * re-reads it after a conflict. False when the write failed.
 */
export async function swapNodeTaints(
  client: Client,
  node: Node,
  add: readonly Taint[],
  remove: readonly Taint[],
  log: (message: string) => void,
): Promise<boolean> {
  const timeAdded = rfc3339(Date.now());
  const stamped = add.map((taint) => ({ ...taint, timeAdded }));
  try {
    await writeTaints(client, node, (taints) => {
      let next = [...taints];
      for (const taint of stamped) {
        const index = next.findIndex((existing) => taintMatches(existing, taint));
        if (index < 0) next.push(taint);
        else if (!sameTaint(next[index]!, taint)) next[index] = taint;
      }
      next = next.filter((existing) => !remove.some((taint) => taintMatches(existing, taint)));
      return next;
    });
    return true;
  } catch (error) {
    log(`unable to change the taints of node ${node.metadata?.name}: ${String(error)}`);
    return false;
  }
}

/** Removes taints (matched by key and effect) if the node has them. */
export async function removeNodeTaints(client: Client, node: Node, remove: readonly Taint[]): Promise<void> {
  if (!remove.some((taint) => taintExists(node.spec?.taints, taint))) return;
  await writeTaints(client, node, (taints) =>
    taints.filter((existing) => !remove.some((taint) => taintMatches(existing, taint))),
  );
}

async function writeTaints(
  client: Client,
  cached: Node,
  change: (taints: Taint[]) => Taint[],
): Promise<void> {
  const nodes = client.resource<Node>(NODES);
  const name = cached.metadata?.name ?? '';
  let node = cached;
  for (let attempt = 1; ; attempt++) {
    const current = node.spec?.taints ?? [];
    const next = change(current);
    if (next.length === current.length && next.every((taint, i) => sameTaint(taint, current[i]!))) return;
    try {
      await nodes.patch('', name, 'merge', {
        metadata: { resourceVersion: node.metadata?.resourceVersion },
        spec: { taints: next.length > 0 ? next : null },
      });
      return;
    } catch (error) {
      if (!isConflict(error) || attempt >= CONFLICT_RETRIES) throw error;
      node = await nodes.get('', name);
    }
  }
}

function sameTaint(a: Taint, b: Taint): boolean {
  return (
    a.key === b.key &&
    a.effect === b.effect &&
    (a.value ?? '') === (b.value ?? '') &&
    a.timeAdded === b.timeAdded
  );
}
