// V8's heap limits for the control plane's worker threads (Node's Worker resourceLimits). The
// process runs with `--max-semi-space-size=32` for the apiserver's request churn, and that flag,
// the whole process's, overrides a Worker's own limits: every thread's young generation could grow
// to 64 MiB too. After a burst of big objects each had (the scheduler's with 0.3 MiB in use): the
// big-object test's peak was 550-590 MiB, 482-500 with these limits.
import { setFlagsFromString } from 'node:v8';
import type { ResourceLimits } from 'node:worker_threads';

/**
 * A thread's young generation: 16 MiB semi-spaces, Node's default (V8 counts three). The field
 * manager's thread with the apiserver's 32 MiB ones spent 10 % less CPU on a big create, and
 * brought the peak back to 540-555 MiB.
 */
const THREAD_YOUNG_GENERATION_MB = 48;

/**
 * Clears the process's semi-space flag for the isolates created from now on; the main thread's
 * heap was sized when the process started and keeps its 32 MiB. The control plane's entry calls
 * this before it compiles its bundle: V8 takes a code cache only under the flags it was made
 * with, and the cache is made seconds after start, when the threads have cleared the flag.
 */
export function clearThreadSemiSpaceFlag(): void {
  setFlagsFromString('--max-semi-space-size=0');
}

/** Limits for a new worker thread. */
export function workerResourceLimits(): ResourceLimits {
  clearThreadSemiSpaceFlag();
  return { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB };
}
