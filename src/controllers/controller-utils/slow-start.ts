// Slow-start batching (pkg/controller/replicaset slowStartBatch): calls `fn` `count` times in
// batches of 1, 2, 4 ... running each batch concurrently, and stops after the first batch with a
// failure, so that a doomed request (quota, admission) is not sent hundreds of times.

/** Batches start with this many calls (SlowStartInitialBatchSize). */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

export interface SlowStartResult {
  readonly successes: number;
  /** The first failure of the failed batch, if any. */
  readonly error?: unknown;
}

export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: () => Promise<void>,
): Promise<SlowStartResult> {
  let remaining = count;
  let successes = 0;
  for (let size = Math.min(remaining, initialBatchSize); size > 0; size = Math.min(2 * size, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: size }, () => fn()));
    const failures = results.filter(
      (result): result is PromiseRejectedResult => result.status === 'rejected',
    );
    successes += size - failures.length;
    if (failures.length > 0) return { successes, error: failures[0]!.reason };
    remaining -= size;
  }
  return { successes };
}
