// A scavenge per few MB streamed (src/api/streamed-bytes-gc.ts): with V8's gc() exposed, as in the
// control plane, noteStreamedBytes runs one young-generation collection each time
// STREAMED_BYTES_PER_SCAVENGE bytes have gone by, and none in between.
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noteStreamedBytes, STREAMED_BYTES_PER_SCAVENGE } from '../../../src/api/streamed-bytes-gc.js';

/** V8's scavenge, as perf_hooks reports a collection's kind. */
const MINOR = 1;

const global = globalThis as { gc?: unknown };
const previous = global.gc;
beforeAll(() => {
  // The same collector --expose-gc gives the control plane.
  setFlagsFromString('--expose-gc');
  global.gc = runInNewContext('gc');
});
afterAll(() => {
  global.gc = previous;
});

/** The kinds of the collections `run` causes. */
async function collectionsDuring(run: () => void): Promise<number[]> {
  const kinds: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { detail: { kind: number } })[])
      kinds.push(entry.detail.kind);
  });
  observer.observe({ entryTypes: ['gc'] });
  run();
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return kinds;
}

describe('noteStreamedBytes', () => {
  it('scavenges once per STREAMED_BYTES_PER_SCAVENGE bytes', async () => {
    const chunk = 16 * 1024;
    // Start from a fresh count: pass a whole period first.
    noteStreamedBytes(STREAMED_BYTES_PER_SCAVENGE);
    const kinds = await collectionsDuring(() => {
      for (let sent = 0; sent < 3 * STREAMED_BYTES_PER_SCAVENGE; sent += chunk) noteStreamedBytes(chunk);
    });
    // Three of its own; V8 may add one of its schedule in the test's heap.
    const minors = kinds.filter((kind) => kind === MINOR).length;
    expect(minors).toBeGreaterThanOrEqual(3);
    expect(minors).toBeLessThanOrEqual(4);
  });

  it('collects nothing without an exposed gc(), as in the node agent', async () => {
    global.gc = undefined;
    try {
      const kinds = await collectionsDuring(() => {
        for (let i = 0; i < 4; i++) noteStreamedBytes(STREAMED_BYTES_PER_SCAVENGE);
      });
      expect(kinds.filter((kind) => kind === MINOR).length).toBeLessThanOrEqual(1);
    } finally {
      global.gc = runInNewContext('gc');
    }
  });
});
