import { afterEach, describe, expect, it, vi } from 'vitest';
import { keyOf, splitKey } from '../../../src/client/informers/index.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  RateLimitingQueue,
  TokenBucket,
  WorkQueue,
} from '../../../src/client/workqueue/index.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('WorkQueue', () => {
  it('de-duplicates items waiting for a worker and keeps FIFO order', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
    expect(queue.metrics()).toMatchObject({ depth: 0, processing: 2, adds: 2 });
  });

  it('never hands one item to two workers: an add during processing waits for done', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    const first = await queue.get();
    queue.add('a');
    queue.add('a');
    expect(queue.length).toBe(0);
    let second: string | undefined;
    void queue.get().then((item) => {
      second = item;
    });
    await Promise.resolve();
    expect(second).toBeUndefined();
    queue.done(first!);
    await Promise.resolve();
    expect(second).toBe('a');
    expect(queue.metrics().adds).toBe(2);
  });

  it('runs concurrent workers without ever overlapping on a key', async () => {
    const queue = new WorkQueue<string>();
    const inFlight = new Set<string>();
    let overlaps = 0;
    let processed = 0;
    const worker = async () => {
      for (;;) {
        const key = await queue.get();
        if (key === undefined) return;
        if (inFlight.has(key)) overlaps++;
        inFlight.add(key);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight.delete(key);
        processed++;
        queue.done(key);
      }
    };
    const workers = [worker(), worker(), worker(), worker()];
    for (let round = 0; round < 20; round++) {
      for (const key of ['x', 'y', 'z']) queue.add(key);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await queue.shutDownWithDrain();
    queue.shutDown();
    await Promise.all(workers);
    expect(overlaps).toBe(0);
    expect(processed).toBeGreaterThanOrEqual(3);
  });

  it('addAfter queues after the delay; a second add keeps the earlier time', async () => {
    vi.useFakeTimers();
    const queue = new WorkQueue<string>();
    queue.addAfter('a', 1000);
    queue.addAfter('a', 300);
    queue.addAfter('a', 5000);
    expect(queue.metrics()).toMatchObject({ delayed: 1, retries: 3, depth: 0 });
    await vi.advanceTimersByTimeAsync(299);
    expect(queue.length).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(queue.length).toBe(1);
    expect(queue.metrics().delayed).toBe(0);
    queue.addAfter('b', 0);
    expect(queue.length).toBe(2);
  });

  it('shutDown: refuses adds, hands out what is queued, then undefined to every waiter', async () => {
    const queue = new WorkQueue<string>();
    const waiting = queue.get();
    queue.add('a');
    expect(await waiting).toBe('a');
    queue.add('b');
    queue.addAfter('c', 10);
    queue.shutDown();
    queue.add('d');
    expect(queue.shuttingDown).toBe(true);
    expect(await queue.get()).toBe('b');
    expect(await queue.get()).toBeUndefined();
    expect(queue.metrics().delayed).toBe(0);
  });

  it('waiting workers are released by shutDown', async () => {
    const queue = new WorkQueue<string>();
    const waiters = [queue.get(), queue.get()];
    queue.shutDown();
    expect(await Promise.all(waiters)).toEqual([undefined, undefined]);
  });

  it('shutDownWithDrain resolves once every handed-out item is done', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    const item = await queue.get();
    let drained = false;
    const drain = queue.shutDownWithDrain().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    queue.done(item!);
    await drain;
    expect(drained).toBe(true);
  });

  it('whenIdle resolves once nothing is queued or processing; a delayed item does not count', async () => {
    const queue = new WorkQueue<string>();
    await queue.whenIdle();
    queue.add('a');
    queue.add('b');
    let idle = false;
    const whenIdle = queue.whenIdle().then(() => {
      idle = true;
    });
    const a = await queue.get();
    queue.done(a!);
    await Promise.resolve();
    // b is still queued.
    expect(idle).toBe(false);
    const b = await queue.get();
    // Added again while processed: queued anew by done, so not idle yet.
    queue.add('b');
    queue.done(b!);
    await Promise.resolve();
    expect(idle).toBe(false);
    queue.done((await queue.get())!);
    queue.addAfter('later', 60_000);
    await whenIdle;
    expect(idle).toBe(true);
    queue.add('c');
    const waiting = queue.whenIdle();
    queue.shutDown();
    await waiting;
  });
});

describe('rate limiters', () => {
  it('per-item exponential: 5 ms doubling up to the cap, forget starts over', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    expect([1, 2, 3, 4, 5].map(() => limiter.when('a'))).toEqual([5, 10, 20, 40, 80]);
    expect(limiter.when('b')).toBe(5);
    expect(limiter.numRequeues('a')).toBe(5);
    for (let i = 0; i < 30; i++) limiter.when('a');
    expect(limiter.when('a')).toBe(1_000_000);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(5);
  });

  it('token bucket: burst at once, then one per 1/qps, refilled over time', () => {
    let now = 0;
    const limiter = new BucketRateLimiter<string>(10, 100, () => now);
    for (let i = 0; i < 100; i++) expect(limiter.when(`k${i}`)).toBe(0);
    expect(limiter.when('x')).toBe(100);
    expect(limiter.when('y')).toBe(200);
    now += 1000; // ten tokens back, two of them already promised
    expect(limiter.when('z')).toBe(0);
    expect(limiter.numRequeues('z')).toBe(0);
  });

  it('TokenBucket.tryAccept takes only available tokens', () => {
    let now = 0;
    const bucket = new TokenBucket(1 / 300, 2, () => now);
    expect([bucket.tryAccept(), bucket.tryAccept(), bucket.tryAccept()]).toEqual([true, true, false]);
    now += 299_000;
    expect(bucket.tryAccept()).toBe(false);
    now += 1_000;
    expect(bucket.tryAccept()).toBe(true);
  });

  it('default controller limiter: the larger of backoff and the overall bucket', () => {
    let now = 0;
    const limiter = defaultControllerRateLimiter<string>(() => now);
    expect(limiter.when('a')).toBe(5);
    expect(limiter.when('a')).toBe(10);
    for (let i = 0; i < 98; i++) limiter.when(`k${i}`);
    // Burst spent: a fresh key now waits for the bucket (100 ms), not its 5 ms backoff.
    expect(limiter.when('fresh')).toBe(100);
    expect(limiter.numRequeues('a')).toBe(2);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    now += 60_000;
    expect(limiter.when('a')).toBe(5);
  });
});

describe('RateLimitingQueue', () => {
  it('addRateLimited waits per the limiter and counts retries', async () => {
    vi.useFakeTimers();
    const queue = new RateLimitingQueue<string>(new ItemExponentialFailureRateLimiter(5, 1000));
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    expect(queue.numRequeues('a')).toBe(2);
    await vi.advanceTimersByTimeAsync(4);
    expect(queue.length).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(queue.length).toBe(1); // the earlier (5 ms) of the two delays won
    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
    expect(queue.metrics().retries).toBe(2);
  });
});

describe('keys', () => {
  it('keyOf and splitKey', () => {
    expect(keyOf({ metadata: { namespace: 'ns', name: 'a' } })).toBe('ns/a');
    expect(keyOf({ metadata: { name: 'node-1' } })).toBe('node-1');
    expect(splitKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(splitKey('node-1')).toEqual({ namespace: '', name: 'node-1' });
    expect(() => splitKey('a/b/c')).toThrow('unexpected key format: "a/b/c"');
  });
});
