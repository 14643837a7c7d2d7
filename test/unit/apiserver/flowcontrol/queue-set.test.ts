// The fair queuing of one priority level: seats, widths, fair dispatch between flows, and the
// refusals (queue full, Reject levels, time-out, a client gone while waiting).
import { describe, expect, it } from 'vitest';
import { QueueSet, RequestRejected } from '../../../../src/apiserver/flowcontrol/queue-set.js';

const never = () => {};
const queuing = { queues: 8, handSize: 2, queueLengthLimit: 4 };

describe('QueueSet', () => {
  it('runs up to its limit at once and queues the rest until a seat frees', async () => {
    const set = new QueueSet(2, queuing, 10_000);
    const first = await set.acquire('a', 1, never);
    await set.acquire('a', 1, never);
    let third = false;
    const waiting = set.acquire('a', 1, never).then((release) => {
      third = true;
      return release;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    expect(set.waiting).toBe(1);
    first();
    (await waiting)();
    expect(third).toBe(true);
    expect(set.executing).toBe(1);
  });

  it('gives a freed seat to the flow with fewer requests running, however many another queued', async () => {
    const set = new QueueSet(2, { queues: 64, handSize: 1, queueLengthLimit: 50 }, 10_000);
    const releases = [await set.acquire('flooder', 1, never), await set.acquire('flooder', 1, never)];
    const order: string[] = [];
    const flooded = Array.from({ length: 10 }, () =>
      set.acquire('flooder', 1, never).then((release) => {
        order.push('flooder');
        return release;
      }),
    );
    const polite = set.acquire('polite', 1, never).then((release) => {
      order.push('polite');
      return release;
    });
    releases[0]!();
    await Promise.resolve();
    await Promise.resolve();
    expect(order[0]).toBe('polite');
    set.rejectAll();
    await Promise.allSettled([...flooded, polite]);
  });

  it('holds a wide request until enough seats are free', async () => {
    const set = new QueueSet(4, queuing, 10_000);
    const narrow = await set.acquire('a', 1, never);
    let wideRunning = false;
    const wide = set.acquire('b', 4, never).then((release) => {
      wideRunning = true;
      return release;
    });
    await Promise.resolve();
    expect(wideRunning).toBe(false);
    narrow();
    (await wide)();
    expect(wideRunning).toBe(true);
    expect(set.executing).toBe(0);
  });

  it('refuses when the flow’s shortest queue is full, and at once on a Reject level', async () => {
    const set = new QueueSet(1, { queues: 1, handSize: 1, queueLengthLimit: 2 }, 10_000);
    await set.acquire('a', 1, never);
    const queued = [set.acquire('a', 1, never), set.acquire('a', 1, never)];
    await expect(set.acquire('a', 1, never)).rejects.toMatchObject({ reason: 'queue-full' });
    set.rejectAll();
    await Promise.allSettled(queued);
    const reject = new QueueSet(1, undefined, 10_000);
    await reject.acquire('a', 1, never);
    await expect(reject.acquire('a', 1, never)).rejects.toMatchObject({ reason: 'concurrency-limit' });
  });

  it('times a waiting request out and drops one whose client went away', async () => {
    const set = new QueueSet(1, queuing, 20);
    await set.acquire('a', 1, never);
    await expect(set.acquire('a', 1, never)).rejects.toBeInstanceOf(RequestRejected);
    let cancel = () => {};
    const gone = set.acquire('a', 1, (onCancel) => {
      cancel = onCancel;
    });
    cancel();
    await expect(gone).rejects.toMatchObject({ reason: 'cancelled' });
    expect(set.waiting).toBe(0);
  });
});
