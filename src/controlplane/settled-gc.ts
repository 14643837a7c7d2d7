// One full garbage collection once the control plane's start-up has settled. Start-up's burst of
// allocation grows the apiserver thread's young generation to 16-32 MiB; V8 shrinks it again only in
// a collection that finds allocation slow, and an idle control plane allocates too little to
// cause one: a fresh cluster then held the young generation (and start-up's garbage) for minutes.
// Upstream has no counterpart (Go's runtime returns idle heap by itself).
import { getHeapSpaceStatistics } from 'node:v8';
import { exposedGc } from '../api/heap-release.js';

/** Long enough for fake nodes and the system namespaces' accounts; short of a user's first look. */
export const SETTLED_GC_DELAY_MS = 10_000;
/**
 * Collections tried in all, the later ones SETTLED_GC_RETRY_MS apart. V8 shrinks the young generation in a full
 * collection only when the allocation rate of the last seconds is low: on a loaded machine the
 * nodes' start-up sometimes still ran at the first one, and the apiserver's thread kept its
 * 16-32 MiB young generation (measured 116-125 MiB resident with three idle nodes, 97-104 when it shrank).
 */
export const SETTLED_GC_ATTEMPTS = 4;
/** Long enough for V8's allocation rate (of the last 5 s) to show the calm that followed. */
export const SETTLED_GC_RETRY_MS = 5_000;
/** A young generation committed beyond this after a collection was not shrunk (it shrinks to 1 MiB). */
export const SHRUNK_YOUNG_GENERATION_BYTES = 4 * 1024 * 1024;

/** The memory the young generation (V8's new space) holds now. */
export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.physical_space_size ?? 0;
}

/** Stops the collections not yet run. */
export interface SettledGc {
  cancel(): void;
}

export interface SettledGcOptions {
  readonly delayMs?: number;
  readonly retryMs?: number;
  readonly attempts?: number;
  /** The young generation's size after a collection (youngGenerationBytes). */
  readonly youngBytes?: () => number;
}

/**
 * Runs one full collection `delayMs` from now if the process runs with `--expose-gc`
 * (CONTROL_PLANE_NODE_FLAGS), and again every `retryMs` while the young generation stays big,
 * `attempts` times at most; the timers keep nothing alive. Measured: 20-40 ms on the apiserver's
 * thread each, new space 16 MiB -> 1.
 */
export function collectGarbageWhenSettled(options: SettledGcOptions = {}): SettledGc | undefined {
  const {
    delayMs = SETTLED_GC_DELAY_MS,
    retryMs = SETTLED_GC_RETRY_MS,
    attempts = SETTLED_GC_ATTEMPTS,
    youngBytes = youngGenerationBytes,
  } = options;
  const gc = exposedGc();
  if (gc === undefined) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (wait: number, left: number): void => {
    timer = setTimeout(() => {
      void gc();
      if (left > 1 && youngBytes() > SHRUNK_YOUNG_GENERATION_BYTES) schedule(retryMs, left - 1);
    }, wait).unref();
  };
  schedule(delayMs, attempts);
  return { cancel: () => clearTimeout(timer) };
}
