import type { SyncSource } from './shared-informer.js';

/**
 * Resolves true once every source has synced, or false when the signal aborts first
 * (client-go's `cache.WaitForCacheSync`).
 */
export async function waitForCacheSync(
  signal: AbortSignal | undefined,
  sources: readonly SyncSource[],
): Promise<boolean> {
  if (sources.every((source) => source.hasSynced())) return true;
  if (signal?.aborted) return false;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      Promise.all(sources.map((source) => source.whenSynced())).then(() => true),
      aborted,
    ]);
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
