// releaseHeapSoon (src/api/heap-release.ts): one asynchronous major collection 500 ms after the
// last of a burst of big objects, at most one per 2 s, and nothing at all without `--expose-gc`.
// V8's collector itself is not what is tested: `gc` is a recording stand-in.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { releaseHeapSoon } from '../../../src/api/heap-release.js';

type Options = { type: string; execution: string };
const holder = globalThis as { gc?: (options: Options) => Promise<void> };
const realGc = holder.gc;
let calls: Options[];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  calls = [];
  holder.gc = async (options) => {
    calls.push(options);
  };
});
afterEach(() => {
  vi.advanceTimersByTime(60_000);
  vi.useRealTimers();
  if (realGc === undefined) delete holder.gc;
  else holder.gc = realGc;
});

describe('releaseHeapSoon', () => {
  it('collects once, 500 ms after the last of a burst, then at most once per 2 s', () => {
    vi.advanceTimersByTime(10_000);
    releaseHeapSoon();
    vi.advanceTimersByTime(300);
    releaseHeapSoon();
    vi.advanceTimersByTime(499);
    expect(calls).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(calls).toEqual([{ type: 'major', execution: 'async' }]);
    // A big write every 600 ms from now on: the next collection waits out the 2 s.
    for (let write = 1; write <= 3; write++) {
      vi.advanceTimersByTime(600);
      releaseHeapSoon();
      expect(calls).toHaveLength(1);
    }
    // The last one came 1.8 s after the collection: 500 ms after it is past the 2 s.
    vi.advanceTimersByTime(499);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(2);
  });

  it('does nothing when the process has no gc (no --expose-gc)', () => {
    delete holder.gc;
    expect(() => releaseHeapSoon()).not.toThrow();
    vi.advanceTimersByTime(10_000);
    expect(calls).toHaveLength(0);
  });
});
