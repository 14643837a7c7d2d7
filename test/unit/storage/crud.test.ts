import { expect, it } from 'vitest';
import {
  ConflictError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  StoreClosedError,
} from '../../../src/storage/index.js';
import { describeEachStore } from './support.js';

describeEachStore('store writes', (backend) => {
  it('gives every write the next global revision, gap-free', async () => {
    const { store } = await backend.open();
    const start = store.currentRevision();
    const a = await store.create('/r/a', '1');
    const b = await store.create('/r/b', '1');
    const a2 = await store.update('/r/a', '2');
    const del = await store.delete('/r/b');
    expect([a.modRevision, b.modRevision, a2.current.modRevision, del.revision]).toEqual([
      start + 1,
      start + 2,
      start + 3,
      start + 4,
    ]);
    expect(store.currentRevision()).toBe(start + 4);
  });

  it('commits 64 concurrent writes with distinct consecutive revisions', async () => {
    const { store } = await backend.open();
    const start = store.currentRevision();
    const results = await Promise.all(Array.from({ length: 64 }, (_, i) => store.create(`/r/${i}`, `${i}`)));
    const revisions = results.map((r) => r.modRevision).sort((x, y) => x - y);
    expect(revisions).toEqual(Array.from({ length: 64 }, (_, i) => start + 1 + i));
    expect(await store.count('/r/')).toBe(64);
  });

  it('create fails when the key exists, without taking a revision', async () => {
    const { store } = await backend.open();
    await store.create('/r/a', '1');
    const before = store.currentRevision();
    await expect(store.create('/r/a', '2')).rejects.toBeInstanceOf(KeyExistsError);
    expect(store.currentRevision()).toBe(before);
    expect((await store.get('/r/a'))?.value).toBe('1');
  });

  it('update and delete compare-and-swap on the modification revision', async () => {
    const { store } = await backend.open();
    const created = await store.create('/r/a', 'v1');
    const updated = await store.update('/r/a', 'v2', { expectedRevision: created.modRevision });
    expect(updated.previous).toEqual(created);
    expect(updated.current).toMatchObject({ value: 'v2', createRevision: created.createRevision });

    const stale = store.update('/r/a', 'v3', { expectedRevision: created.modRevision });
    await expect(stale).rejects.toBeInstanceOf(ConflictError);
    await expect(stale).rejects.toMatchObject({
      expectedRevision: created.modRevision,
      actualRevision: updated.current.modRevision,
    });
    await expect(store.delete('/r/a', { expectedRevision: created.modRevision })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect((await store.get('/r/a'))?.value).toBe('v2');

    const deleted = await store.delete('/r/a', { expectedRevision: updated.current.modRevision });
    expect(deleted.previous).toEqual(updated.current);
    expect(await store.get('/r/a')).toBeUndefined();
  });

  it('unconditional update and delete fail only on a missing key', async () => {
    const { store } = await backend.open();
    await expect(store.update('/r/missing', 'x')).rejects.toBeInstanceOf(KeyNotFoundError);
    await expect(store.delete('/r/missing')).rejects.toBeInstanceOf(KeyNotFoundError);
    await store.create('/r/a', '1');
    await store.update('/r/a', '2');
    await store.update('/r/a', '3');
    expect((await store.delete('/r/a')).previous.value).toBe('3');
  });

  it('a key re-created after delete starts a new incarnation', async () => {
    const { store } = await backend.open();
    const first = await store.create('/r/a', '1');
    await store.delete('/r/a');
    const second = await store.create('/r/a', '2');
    expect(second.createRevision).toBeGreaterThan(first.createRevision);
    expect(second.createRevision).toBe(second.modRevision);
  });

  it('in one batch, later writes see earlier ones', async () => {
    const { store } = await backend.open();
    const create = store.create('/r/a', '1');
    const dup = store.create('/r/a', '2');
    const update = store.update('/r/a', '3');
    const del = store.delete('/r/a');
    await expect(create).resolves.toMatchObject({ value: '1' });
    await expect(dup).rejects.toBeInstanceOf(KeyExistsError);
    await expect(update).resolves.toMatchObject({ previous: { value: '1' } });
    await expect(del).resolves.toMatchObject({ previous: { value: '3' } });
  });

  // Fault injection reaches into SQLite's prepared statements.
  it.runIf(backend.name === 'sqlite')(
    'a batch that fails to commit leaves reads and later writes on the committed state',
    async () => {
      const { store } = await backend.open();
      await store.create('/r/a', '1');
      // Fault injection: SQLite refusing the log insert of the batch's second write.
      const statements = (
        store as unknown as { statements: { insertLog: { run: (...a: unknown[]) => unknown } } }
      ).statements;
      const insert = statements.insertLog.run.bind(statements.insertLog);
      let calls = 0;
      statements.insertLog.run = (...args: unknown[]) => {
        if (++calls === 2) throw new Error('disk I/O error');
        return insert(...args);
      };
      const update = store.update('/r/a', '2');
      const create = store.create('/r/b', 'x');
      await expect(update).rejects.toThrow('disk I/O error');
      await expect(create).rejects.toThrow('disk I/O error');
      statements.insertLog.run = insert;
      expect(await store.get('/r/a')).toMatchObject({ value: '1' });
      expect(await store.get('/r/b')).toBeUndefined();
      await expect(store.update('/r/a', '3')).resolves.toMatchObject({ previous: { value: '1' } });
    },
  );

  it('reads at older revisions and refuses future ones', async () => {
    const { store } = await backend.open();
    const v1 = await store.create('/r/a', 'v1');
    const v2 = await store.update('/r/a', 'v2');
    const gone = await store.delete('/r/a');
    expect((await store.get('/r/a', { revision: v1.modRevision }))?.value).toBe('v1');
    expect((await store.get('/r/a', { revision: v2.current.modRevision }))?.value).toBe('v2');
    expect(await store.get('/r/a', { revision: gone.revision })).toBeUndefined();
    expect(await store.get('/r/a', { revision: v1.modRevision - 1 })).toBeUndefined();
    await expect(store.get('/r/a', { revision: store.currentRevision() + 1 })).rejects.toBeInstanceOf(
      FutureRevisionError,
    );
  });

  it('refuses work after close', async () => {
    const { store } = await backend.open();
    await store.close();
    await expect(store.create('/r/a', '1')).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.get('/r/a')).rejects.toBeInstanceOf(StoreClosedError);
  });
});
