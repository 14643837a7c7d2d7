// The one collection once start-up has settled: only with `--expose-gc`, after the delay, once.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectGarbageWhenSettled } from '../../../src/controlplane/settled-gc.js';

const globals = globalThis as { gc?: () => void };
const exposed = globals.gc;

afterEach(() => {
  vi.useRealTimers();
  globals.gc = exposed;
});

describe('collectGarbageWhenSettled', () => {
  it('collects once, after the delay, when the process exposes gc', () => {
    vi.useFakeTimers();
    const gc = vi.fn();
    globals.gc = gc;
    expect(collectGarbageWhenSettled(10_000)).toBeDefined();
    vi.advanceTimersByTime(9_999);
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(60_000);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('does nothing without --expose-gc', () => {
    globals.gc = undefined;
    expect(collectGarbageWhenSettled(10)).toBeUndefined();
  });
});
