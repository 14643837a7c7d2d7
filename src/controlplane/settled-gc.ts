// One full garbage collection once the control plane's start-up has settled. Start-up's burst of
// allocation grows the apiserver thread's young generation to 16 MiB; V8 shrinks it again only in
// a collection that finds allocation slow, and an idle control plane allocates too little to
// cause one: a fresh cluster then held the 16 MiB (and start-up's garbage) for minutes. Upstream
// has no counterpart (Go's runtime returns idle heap by itself).
import { exposedGc } from '../api/heap-release.js';

/** Long enough for fake nodes and the system namespaces' accounts; short of a user's first look. */
export const SETTLED_GC_DELAY_MS = 10_000;

/**
 * Runs one full collection `delayMs` from now if the process runs with `--expose-gc`
 * (CONTROL_PLANE_NODE_FLAGS); the timer keeps nothing alive. Measured: 20-40 ms on the
 * apiserver's thread, new space 16 MiB -> 1.
 */
export function collectGarbageWhenSettled(delayMs = SETTLED_GC_DELAY_MS): NodeJS.Timeout | undefined {
  const gc = exposedGc();
  if (gc === undefined) return undefined;
  return setTimeout(() => void gc(), delayMs).unref();
}
