// The collection once start-up has settled: only with `--expose-gc`, after the delay, and again
// only while the young generation stayed big.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  collectGarbageWhenSettled,
  SHRUNK_YOUNG_GENERATION_BYTES,
  youngGenerationBytes,
} from '../../../src/controlplane/settled-gc.js';

const globals = globalThis as { gc?: () => void };
const exposed = globals.gc;
const MiB = 1024 * 1024;

afterEach(() => {
  vi.useRealTimers();
  globals.gc = exposed;
});

/** A stand-in for --expose-gc's gc(), with fake timers to step the delays. */
function fakeGcOnFakeTimers() {
  vi.useFakeTimers();
  const gc = vi.fn();
  globals.gc = gc;
  return gc;
}

describe('collectGarbageWhenSettled', () => {
  it('collects once, after the delay, when the young generation shrank', () => {
    const gc = fakeGcOnFakeTimers();
    expect(collectGarbageWhenSettled({ delayMs: 10_000, youngBytes: () => MiB })).toBeDefined();
    vi.advanceTimersByTime(9_999);
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(60_000);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('collects again while the young generation stays big, up to the attempts', () => {
    const gc = fakeGcOnFakeTimers();
    const sizes = [32 * MiB, 16 * MiB, MiB];
    const youngBytes = () => sizes[gc.mock.calls.length - 1] ?? MiB;
    collectGarbageWhenSettled({ delayMs: 10_000, retryMs: 5_000, attempts: 5, youngBytes });
    vi.advanceTimersByTime(10_000);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(4_999);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(gc).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5_000);
    expect(gc).toHaveBeenCalledTimes(3);
    vi.advanceTimersByTime(60_000);
    expect(gc).toHaveBeenCalledTimes(3);

    const capped = vi.fn();
    globals.gc = capped;
    collectGarbageWhenSettled({ delayMs: 10_000, attempts: 2, youngBytes: () => 32 * MiB });
    vi.advanceTimersByTime(100_000);
    expect(capped).toHaveBeenCalledTimes(2);
  });

  it('collects no more once cancelled', () => {
    const gc = fakeGcOnFakeTimers();
    const settled = collectGarbageWhenSettled({ delayMs: 10_000, youngBytes: () => 32 * MiB });
    vi.advanceTimersByTime(10_000);
    settled?.cancel();
    vi.advanceTimersByTime(60_000);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('does nothing without --expose-gc', () => {
    globals.gc = undefined;
    expect(collectGarbageWhenSettled({ delayMs: 10 })).toBeUndefined();
  });

  it("measures this isolate's young generation", () => {
    const bytes = youngGenerationBytes();
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(SHRUNK_YOUNG_GENERATION_BYTES * 64);
  });
});
