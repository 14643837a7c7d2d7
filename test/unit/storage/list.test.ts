import { expect, it } from 'vitest';
import {
  CompactedError,
  decodeContinue,
  InvalidContinueError,
  type KeyValue,
  type Store,
} from '../../../src/storage/index.js';
import { describeEachStore, kb } from './support.js';

async function listAll(
  store: Store,
  prefix: string,
  limit: number,
  between?: () => Promise<void>,
): Promise<{ items: KeyValue[]; revisions: number[] }> {
  const items: KeyValue[] = [];
  const revisions: number[] = [];
  let token: string | undefined;
  do {
    const page = await store.list(prefix, { limit, continue: token });
    items.push(...page.items);
    revisions.push(page.revision);
    token = page.continue;
    if (between) await between();
  } while (token);
  return { items, revisions };
}

describeEachStore('store list', (backend) => {
  it('lists more than 4 MiB in one answer (a gRPC message limit must not cut it)', async () => {
    const { store } = await backend.open();
    const big = kb(900);
    for (let i = 0; i < 6; i++) await store.create(`/r/big/${i}`, big);
    const listed = await store.list('/r/big/');
    expect(listed.items.map((item) => item.value.length)).toEqual(Array(6).fill(big.length));
  });

  it('lists a prefix in key order and nothing outside it', async () => {
    const { store } = await backend.open();
    for (const key of ['/r/pods/b', '/r/pods/a', '/r/pods0', '/r/podsx/a', '/r/pod/a', '/r/pods/c']) {
      await store.create(key, key);
    }
    const { items, revision } = await store.list('/r/pods/');
    expect(items.map((i) => i.key)).toEqual(['/r/pods/a', '/r/pods/b', '/r/pods/c']);
    expect(revision).toBe(store.currentRevision());
    expect(await store.count('/r/pods/')).toBe(3);
  });

  it('paginates with limit and continue in kube-apiserver token format', async () => {
    const { store } = await backend.open();
    for (let i = 0; i < 25; i++) await store.create(`/r/cm/k${String(i).padStart(2, '0')}`, `${i}`);
    const first = await store.list('/r/cm/', { limit: 10 });
    expect(first.items).toHaveLength(10);
    expect(first.continue).toBeDefined();
    expect(decodeContinue(first.continue!)).toEqual({ revision: first.revision, start: 'k09\0' });
    const { items, revisions } = await listAll(store, '/r/cm/', 10);
    expect(items.map((i) => i.value)).toEqual(Array.from({ length: 25 }, (_, i) => `${i}`));
    expect(new Set(revisions)).toEqual(new Set([first.revision]));
    const exact = await store.list('/r/cm/', { limit: 25 });
    expect(exact.continue).toBeUndefined();
  });

  it('continues at the first page revision while writes go on', async () => {
    const { store } = await backend.open();
    for (let i = 0; i < 100; i++) await store.create(`/r/cm/k${String(i).padStart(3, '0')}`, 'v1');
    const snapshot = (await store.list('/r/cm/')).items;
    let n = 0;
    const { items } = await listAll(store, '/r/cm/', 7, async () => {
      // Between pages: update, delete and create keys before and after the cursor.
      n++;
      await store.update(`/r/cm/k${String(n * 3).padStart(3, '0')}`, `v${n + 1}`);
      await store.delete(`/r/cm/k${String(99 - n).padStart(3, '0')}`);
      await store.create(`/r/cm/k${String(n).padStart(3, '0')}x`, 'new');
    });
    expect(items).toEqual(snapshot);
  });

  it('lists at an explicit older revision', async () => {
    const { store } = await backend.open();
    await store.create('/r/a', 'a1');
    await store.create('/r/b', 'b1');
    const at = store.currentRevision();
    await store.update('/r/a', 'a2');
    await store.delete('/r/b');
    await store.create('/r/c', 'c1');
    const old = await store.list('/r/', { revision: at });
    expect(old.items.map((i) => [i.key, i.value])).toEqual([
      ['/r/a', 'a1'],
      ['/r/b', 'b1'],
    ]);
    expect(old.revision).toBe(at);
    const now = await store.list('/r/');
    expect(now.items.map((i) => [i.key, i.value])).toEqual([
      ['/r/a', 'a2'],
      ['/r/c', 'c1'],
    ]);
  });

  it('fails a continue, a get and a list whose revision was compacted', async () => {
    const { store } = await backend.open({ historyRevisions: 5 });
    for (let i = 0; i < 10; i++) await store.create(`/r/k${i}`, `${i}`);
    const page = await store.list('/r/', { limit: 3 });
    for (let i = 0; i < 20; i++) await store.update('/r/k0', `u${i}`);
    await store.maintain();
    expect(store.compactedRevision()).toBeGreaterThan(page.revision);
    await expect(store.list('/r/', { limit: 3, continue: page.continue })).rejects.toBeInstanceOf(
      CompactedError,
    );
    await expect(store.list('/r/', { revision: page.revision })).rejects.toBeInstanceOf(CompactedError);
    await expect(store.get('/r/k1', { revision: page.revision })).rejects.toBeInstanceOf(CompactedError);
    // The compacted revision itself stays readable.
    const atCompacted = await store.list('/r/', { revision: store.compactedRevision() });
    expect(atCompacted.items).toHaveLength(10);
  });

  it('rejects a malformed continue token', async () => {
    const { store } = await backend.open();
    await expect(store.list('/r/', { continue: 'not-a-token' })).rejects.toBeInstanceOf(InvalidContinueError);
    const wrongVersion = Buffer.from(JSON.stringify({ v: 'x', rv: 1, start: 'a' })).toString('base64url');
    await expect(store.list('/r/', { continue: wrongVersion })).rejects.toBeInstanceOf(InvalidContinueError);
  });
});
