// No upstream counterpart: Go's runtime hands freed memory back to the OS on its own schedule
// (and debug.FreeOSMemory on demand). V8 sizes each heap for the allocation rate it has seen and
// shrinks it only once its memory reducer finds the isolate idle: after a one-off big object (a
// 2 MB pod parsed, copied and encoded a dozen times) the control plane stayed 350-400 MiB
// resident for tens of seconds. A big write asks for one major collection once it is over.
// Needs `--expose-gc` (CONTROL_PLANE_NODE_FLAGS); without it this does nothing.

/** V8's gc() as `--expose-gc` gives it: a full collection now, or as asked. */
type Collect = (options?: { type: 'major' | 'minor'; execution: 'sync' | 'async' }) => void | Promise<void>;

/** This process's gc() when it runs with `--expose-gc`, else undefined. */
export function exposedGc(): Collect | undefined {
  return (globalThis as { gc?: Collect }).gc;
}

/** How long after the last big write the collection runs: its response and watch events are sent by then. */
const AFTER_MS = 500;
/**
 * At most one collection in this long (the big-object bench writes one every 3-4 s): a controller rewriting a big object every second should
 * not cost a full collection each time (V8's own schedule is right for steady work).
 */
const MIN_INTERVAL_MS = 2_000;

let timer: NodeJS.Timeout | undefined;
let lastCollected = Number.NEGATIVE_INFINITY;

/** Asks for a major collection of this thread's heap shortly (once for a burst of calls). */
export function releaseHeapSoon(): void {
  const collect = exposedGc();
  if (collect === undefined) return;
  clearTimeout(timer);
  const delay = Math.max(AFTER_MS, lastCollected + MIN_INTERVAL_MS - performance.now());
  timer = setTimeout(() => {
    timer = undefined;
    lastCollected = performance.now();
    // Asynchronous: V8 runs it as a task of its own rather than inside this one.
    void collect({ type: 'major', execution: 'async' });
  }, delay).unref();
}
