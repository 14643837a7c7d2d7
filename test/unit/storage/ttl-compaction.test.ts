import { expect, it } from 'vitest';
import { collect, describeEachStore, kb } from './support.js';

describeEachStore('store TTL', (backend) => {
  // etcd's leases run on the server's clock: a test's clock cannot move them.
  const clockTtl = backend.clockDrivenTtl !== false;

  it.runIf(clockTtl)('expires a key as a normal delete that watchers see', async () => {
    let clock = 1_000_000;
    const { store } = await backend.open({ now: () => clock });
    const created = await store.create('/r/events/e1', 'v', { ttlSeconds: 3600 });
    await store.create('/r/events/keep', 'v');
    const watch = store.watch('/r/events/', { afterRevision: store.currentRevision(), prefix: true });
    clock += 3599_000;
    await store.maintain();
    expect(await store.get('/r/events/e1')).toBeDefined();
    clock += 2_000;
    await store.maintain();
    expect(await store.get('/r/events/e1')).toBeUndefined();
    expect(await store.get('/r/events/keep')).toBeDefined();
    const [event] = await collect(watch, 1);
    expect(event).toMatchObject({ type: 'delete', key: '/r/events/e1', prevRevision: created.modRevision });
    watch.close();
  });

  it.runIf(clockTtl)('an update with a TTL restarts the clock; one without clears it', async () => {
    let clock = 0;
    const { store } = await backend.open({ now: () => clock });
    await store.create('/r/a', '1', { ttlSeconds: 10 });
    await store.create('/r/b', '1', { ttlSeconds: 10 });
    clock = 8_000;
    await store.update('/r/a', '2', { ttlSeconds: 10 });
    await store.update('/r/b', '2');
    clock = 15_000;
    await store.maintain();
    expect((await store.get('/r/a'))?.value).toBe('2');
    expect((await store.get('/r/b'))?.value).toBe('2');
    clock = 18_001;
    await store.maintain();
    expect(await store.get('/r/a')).toBeUndefined();
    clock = 10_000_000;
    await store.maintain();
    expect(await store.get('/r/b')).toBeDefined();
  });

  it.runIf(!clockTtl)(
    'a lease expires a key as a delete that watchers see; an update without a TTL keeps it',
    async () => {
      const { store } = await backend.open();
      const created = await store.create('/r/events/e1', 'v', { ttlSeconds: 2 });
      await store.create('/r/events/kept', 'v', { ttlSeconds: 2 });
      await store.update('/r/events/kept', 'w');
      const watch = store.watch('/r/events/', { afterRevision: store.currentRevision(), prefix: true });
      const [event] = await collect(watch, 1, 10_000);
      expect(event).toMatchObject({ type: 'delete', key: '/r/events/e1', prevRevision: created.modRevision });
      expect(await store.get('/r/events/e1')).toBeUndefined();
      expect((await store.get('/r/events/kept'))?.value).toBe('w');
      watch.close();
    },
  );

  it('expiry survives a restart', async () => {
    let clock = 5_000;
    const { store: first, reopen } = await backend.open({ now: () => clock });
    const created = await first.create('/r/lease', 'v', { ttlSeconds: 1 });
    await first.close();
    clock += 1_500;
    const second = await reopen({ now: () => clock });
    try {
      const watch = second.watch('/r/', { afterRevision: created.modRevision, prefix: true });
      const [event] = await collect(watch, 1);
      expect(event).toMatchObject({ type: 'delete', key: '/r/lease', revision: created.modRevision + 1 });
      expect(await second.get('/r/lease')).toBeUndefined();
      watch.close();
    } finally {
      await second.close();
    }
  });
});

describeEachStore('store compaction', (backend) => {
  it('keeps the configured window readable and drops what is older', async () => {
    const { store } = await backend.open({ historyRevisions: 50 });
    const values = new Map<number, string>();
    for (let i = 0; i < 200; i++) {
      const op =
        i === 0 ? store.create('/r/a', `v${i}`) : store.update('/r/a', `v${i}`).then((r) => r.current);
      values.set((await op).modRevision, `v${i}`);
    }
    await store.maintain();
    const current = store.currentRevision();
    expect(store.compactedRevision()).toBe(current - 50);
    for (let rev = current - 50; rev <= current; rev++) {
      expect((await store.get('/r/a', { revision: rev }))?.value).toBe(values.get(rev));
    }
  });

  it('resumes compaction where it stopped after a restart', async () => {
    const { store: first, reopen } = await backend.open({ historyRevisions: 10 });
    for (let i = 0; i < 100; i++) await first.create(`/r/${i}`, 'x');
    await first.maintain();
    const compacted = first.compactedRevision();
    const revision = first.currentRevision();
    await first.close();
    const second = await reopen({ historyRevisions: 10 });
    try {
      expect(second.compactedRevision()).toBe(compacted);
      expect(second.currentRevision()).toBe(revision);
      expect((await second.create('/r/next', 'x')).modRevision).toBe(revision + 1);
    } finally {
      await second.close();
    }
  });

  // Measures SQLite's file and WAL; a server's disk use is its own to manage.
  it.runIf(backend.name === 'sqlite')(
    'keeps the database and its WAL bounded under endless churn',
    async () => {
      const { store } = await backend.open({ historyRevisions: 200 });
      const keys = 200;
      const value = kb(1);
      for (let i = 0; i < keys; i++) await store.create(`/registry/configmaps/default/cm-${i}`, value);
      const liveBytes = keys * (value.length + 40);
      const sizes: number[] = [];
      for (let round = 0; round < 4; round++) {
        const writes: Promise<unknown>[] = [];
        for (let i = 0; i < 5000; i++) {
          writes.push(
            store.update(`/registry/configmaps/default/cm-${(i * 7) % keys}`, kb(1, String(i % 10))),
          );
          if (writes.length === 64) await Promise.all(writes.splice(0));
        }
        await Promise.all(writes);
        await store.maintain();
        await store.maintain();
        const { databaseBytes, walBytes } = store.stats();
        sizes.push(databaseBytes + walBytes);
      }
      for (const size of sizes) expect(size).toBeLessThanOrEqual(3 * liveBytes);
      // Steady state: the last round is no larger than the first.
      expect(sizes[3]).toBeLessThanOrEqual(sizes[0]! * 1.1);
    },
  );
});
