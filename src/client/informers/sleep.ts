/**
 * Waits `ms` milliseconds, or less when the signal aborts first (never rejects). The timer does
 * not keep the process alive by itself.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    timer.unref();
    signal?.addEventListener('abort', done, { once: true });
  });
}
