import { expect, it } from 'vitest';
import { CompactedError, StoreClosedError, type WatchEvent } from '../../../src/storage/index.js';
import { collect, describeEachStore } from './support.js';

function summary(events: WatchEvent[]): string[] {
  return events.map((e) => `${e.revision}:${e.type}:${e.key}:${e.value ?? ''}:${e.prevValue ?? ''}`);
}

describeEachStore('store watch', (backend) => {
  it('delivers history, then live events, in revision order with previous values', async () => {
    const { store } = await backend.open();
    const start = store.currentRevision();
    await store.create('/r/a', 'a1');
    await store.update('/r/a', 'a2');
    const watch = store.watch('/r/', { afterRevision: start, prefix: true });
    const history = await collect(watch, 2);
    await store.create('/r/b', 'b1');
    await store.delete('/r/a');
    await store.create('/other', 'x');
    const live = await collect(watch, 2);
    expect(summary([...history, ...live])).toEqual([
      `${start + 1}:create:/r/a:a1:`,
      `${start + 2}:update:/r/a:a2:a1`,
      `${start + 3}:create:/r/b:b1:`,
      `${start + 4}:delete:/r/a::a2`,
    ]);
    expect(live[1]).toMatchObject({ prevRevision: start + 2, createRevision: start + 1 });
    expect(watch.lastRevision).toBe(start + 4);
    watch.close();
  });

  it('watches one exact key', async () => {
    const { store } = await backend.open();
    const watch = store.watch('/r/a', { afterRevision: store.currentRevision() });
    await store.create('/r/ab', 'no');
    await store.create('/r/a', 'yes');
    const events = await collect(watch, 1);
    expect(events.map((e) => e.key)).toEqual(['/r/a']);
    watch.close();
  });

  it('resumed from every revision of a range gives exactly the missing events', async () => {
    const { store } = await backend.open();
    const start = store.currentRevision();
    for (let i = 0; i < 30; i++) {
      const key = `/r/k${i % 7}`;
      if (i % 5 === 4) await store.delete(key).catch(() => store.create(key, `c${i}`));
      else await store.update(key, `u${i}`).catch(() => store.create(key, `c${i}`));
    }
    await store.create('/elsewhere', 'x');
    const end = store.currentRevision();
    const all = await collect(store.watch('/r/', { afterRevision: start, prefix: true }), 30);
    expect(all.map((e) => e.revision)).toEqual(Array.from({ length: 30 }, (_, i) => start + 1 + i));
    for (let from = start; from < end; from++) {
      const watch = store.watch('/r/', { afterRevision: from, prefix: true });
      const expected = all.filter((e) => e.revision > from);
      const got = await collect(watch, expected.length);
      watch.close();
      expect(got).toEqual(expected);
    }
  });

  it('fails at once when asked to start at a compacted revision', async () => {
    const { store } = await backend.open({ historyRevisions: 2 });
    const start = store.currentRevision();
    for (let i = 0; i < 10; i++) await store.create(`/r/${i}`, 'x');
    await store.maintain();
    expect(() => store.watch('/r/', { afterRevision: start, prefix: true })).toThrow(CompactedError);
  });

  it('demotes a slow watcher to reading history without losing events or blocking writers', async () => {
    const { store } = await backend.open({ watchBufferLimit: 10 });
    const slow = store.watch('/r/', { afterRevision: store.currentRevision(), prefix: true });
    const fast = store.watch('/r/', { afterRevision: store.currentRevision(), prefix: true });
    const first = await Promise.all([collect(slow, 0), collect(fast, 0)]);
    expect(first.flat()).toEqual([]);
    // Get both subscribed to live events.
    const slowIterator = slow[Symbol.asyncIterator]();
    const pendingSlow = slowIterator.next();
    await store.create('/r/first', '0');
    const firstBatch = await pendingSlow;
    expect(firstBatch.value).toHaveLength(1);
    // Bounded by the writes' own time (500 round trips to a server backend on a loaded machine).
    const fastEvents = collect(fast, 501, 120_000);
    for (let i = 0; i < 500; i++) {
      // Writers never wait for the slow watcher: each write completes on its own.
      await store.create(`/r/k${i}`, `${i}`);
    }
    expect((await fastEvents).length).toBe(501);
    const rest = await collect(slow, 500);
    expect(rest.map((e) => e.key)).toEqual(Array.from({ length: 500 }, (_, i) => `/r/k${i}`));
    slow.close();
    fast.close();
  });

  it('cuts off a slow watcher whose position was compacted, reporting where it stands', async () => {
    const { store } = await backend.open({ watchBufferLimit: 5, historyRevisions: 10 });
    const watch = store.watch('/r/', { afterRevision: store.currentRevision(), prefix: true });
    const iterator = watch[Symbol.asyncIterator]();
    const pending = iterator.next();
    await store.create('/r/0', 'x');
    await pending;
    const stoodAt = watch.lastRevision;
    for (let i = 1; i < 100; i++) await store.create(`/r/${i}`, 'x');
    await store.maintain();
    await expect(iterator.next()).rejects.toBeInstanceOf(CompactedError);
    expect(watch.lastRevision).toBe(stoodAt);
  });

  it('ends open watches when the store closes', async () => {
    const { store } = await backend.open();
    const watch = store.watch('/r/', { afterRevision: store.currentRevision(), prefix: true });
    const next = watch[Symbol.asyncIterator]().next();
    // Awaited from before close(): a server store's close() waits on its connections meanwhile.
    const ended = expect(next).rejects.toBeInstanceOf(StoreClosedError);
    await store.close();
    await ended;
  });

  it('close() ends the iteration of a consumer', async () => {
    const { store } = await backend.open();
    const watch = store.watch('/r/', { afterRevision: store.currentRevision(), prefix: true });
    const consumed: WatchEvent[] = [];
    const loop = (async () => {
      for await (const batch of watch) consumed.push(...batch);
    })();
    await store.create('/r/a', '1');
    // A server store delivers over its connection: wait for the event (bounded), then close.
    for (let waited = 0; consumed.length === 0 && waited < 5000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    watch.close();
    await loop;
    expect(consumed.map((e) => e.key)).toEqual(['/r/a']);
  });
});
