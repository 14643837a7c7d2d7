import { describe, expect, it, onTestFinished } from 'vitest';
import { ObjectCache } from '../../../src/apiserver/admission/object-cache.js';
import { openStore } from '../storage/support.js';

const LIMIT_RANGES = '/registry/limitranges/';
const PRIORITY_CLASSES = '/registry/scheduling.k8s.io/priorityclasses/';

const limitRange = (namespace: string, name: string, cpu = '100m') =>
  JSON.stringify({
    kind: 'LimitRange',
    metadata: { namespace, name },
    spec: { limits: [{ type: 'Container', default: { cpu } }] },
  });

/** A cache on a fresh store; stopped when the test finishes, before the store closes. */
function cacheOn(prefix: string) {
  const { store } = openStore();
  const cache = new ObjectCache(store, prefix);
  onTestFinished(() => cache.stop());
  return { store, cache };
}

describe('ObjectCache', () => {
  it('reads the store live before start, then from memory', async () => {
    const { store, cache } = cacheOn(LIMIT_RANGES);
    await store.create(`${LIMIT_RANGES}team-a/defaults`, limitRange('team-a', 'defaults'));
    expect((await cache.list('team-a')).items).toEqual([limitRange('team-a', 'defaults')]);
    await cache.start();
    expect((await cache.list('team-a')).items).toEqual([limitRange('team-a', 'defaults')]);
    expect((await cache.list('team-b')).items).toEqual([]);
  });

  it('sees a write as soon as the write has completed, per namespace', async () => {
    const { store, cache } = cacheOn(LIMIT_RANGES);
    await cache.start();
    await store.create(`${LIMIT_RANGES}team-a/one`, limitRange('team-a', 'one'));
    expect((await cache.list('team-a')).items).toEqual([limitRange('team-a', 'one')]);
    await store.create(`${LIMIT_RANGES}team-b/two`, limitRange('team-b', 'two'));
    await store.update(`${LIMIT_RANGES}team-a/one`, limitRange('team-a', 'one', '250m'));
    expect((await cache.list('team-a')).items).toEqual([limitRange('team-a', 'one', '250m')]);
    expect((await cache.list('team-b')).items).toEqual([limitRange('team-b', 'two')]);
    await store.delete(`${LIMIT_RANGES}team-a/one`);
    expect((await cache.list('team-a')).items).toEqual([]);
    expect(await cache.find('team-b', 'two')).toMatchObject({ metadata: { name: 'two' } });
  });

  it('keeps cluster-scoped objects under the empty namespace', async () => {
    const { store, cache } = cacheOn(PRIORITY_CLASSES);
    await cache.start();
    await store.create(
      `${PRIORITY_CLASSES}high`,
      JSON.stringify({ metadata: { name: 'high' }, value: 1000 }),
    );
    expect((await cache.list('')).items.map((text) => JSON.parse(text).value)).toEqual([1000]);
    expect(await cache.find('', 'high')).toEqual({ metadata: { name: 'high' }, value: 1000 });
    expect(await cache.find('', 'low')).toBeUndefined();
  });

  it('hands out copies, so a caller cannot change what the next one reads', async () => {
    const { store, cache } = cacheOn(PRIORITY_CLASSES);
    await cache.start();
    await store.create(
      `${PRIORITY_CLASSES}high`,
      JSON.stringify({ metadata: { name: 'high' }, value: 1000 }),
    );
    const first = (await cache.find('', 'high')) as { value: number };
    first.value = 1;
    expect(await cache.find('', 'high')).toMatchObject({ value: 1000 });
  });
});
