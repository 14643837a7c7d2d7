import { afterEach, describe, expect, it, vi } from 'vitest';
import { findResource } from '../../../src/api/resources/lookup.js';
import type { ConfigMap } from '../../../src/api/types/core-v1.generated.js';
import {
  DeletedFinalStateUnknown,
  type EventHandler,
  SharedInformer,
  SharedInformerFactory,
  type SharedInformerOptions,
  stripManagedFields,
} from '../../../src/client/informers/index.js';
import { eventually, FakeApiError, FakeClient, FakeResourceClient } from './fake-client.js';

const CONFIGMAPS = findResource('', 'v1', 'configmaps')!;
const SECRETS = findResource('', 'v1', 'secrets')!;

function configMap(name: string, data: Record<string, string> = {}, namespace = 'default'): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

type Seen = { type: string; name: string; initial?: boolean; tombstone?: boolean; value?: string };

function recorder(): { seen: Seen[]; handler: EventHandler<ConfigMap> } {
  const seen: Seen[] = [];
  return {
    seen,
    handler: {
      onAdd: (o, initial) => seen.push({ type: 'add', name: o.metadata!.name!, initial }),
      onUpdate: (_old, o) => seen.push({ type: 'update', name: o.metadata!.name!, value: o.data?.v }),
      onDelete: (o) =>
        seen.push({
          type: 'delete',
          name: (o instanceof DeletedFinalStateUnknown ? o.obj : o).metadata!.name!,
          tombstone: o instanceof DeletedFinalStateUnknown,
        }),
    },
  };
}

const quiet: SharedInformerOptions<ConfigMap> = {
  backoff: { initialMs: 5, maxMs: 20, jitter: 0 },
  log: () => {},
};

function start(client: FakeResourceClient<ConfigMap>, options = quiet) {
  const informer = new SharedInformer<ConfigMap>(client, options);
  const abort = new AbortController();
  const running = informer.run(abort.signal);
  return {
    informer,
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const stop of stops.splice(0)) await stop();
});

describe('reflector and shared informer', () => {
  it('lists in pages of 500 from the cache, then watches from the list version with bookmarks', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    for (let i = 0; i < 1200; i++) client.put(configMap(`cm-${String(i).padStart(4, '0')}`));
    const { seen, handler } = recorder();
    const { informer, stop } = start(client);
    stops.push(stop);
    informer.addEventHandler(handler);
    await informer.whenSynced();
    expect(informer.hasSynced()).toBe(true);
    expect(client.listCalls).toHaveLength(3);
    expect(client.listCalls[0]).toEqual({ resourceVersion: '0', limit: 500 });
    expect(client.listCalls[1]).toMatchObject({ limit: 500 });
    expect(client.listCalls[1]!.resourceVersion).toBeUndefined();
    expect(client.listCalls[1]!.continue).toBeTruthy();
    expect(informer.indexer.size).toBe(1200);
    expect(seen.filter((s) => s.type === 'add' && s.initial)).toHaveLength(1200);
    await eventually(() => client.watchCalls.length === 1);
    expect(client.watchCalls[0]).toMatchObject({
      resourceVersion: String(client.currentRevision),
      allowWatchBookmarks: true,
    });
    const timeout = client.watchCalls[0]!.timeoutSeconds!;
    expect(timeout).toBeGreaterThanOrEqual(300);
    expect(timeout).toBeLessThan(600);
  });

  it('delivers watch events after updating the cache', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    client.put(configMap('a'));
    const { informer, stop } = start(client);
    stops.push(stop);
    const cachedAtNotification: (string | undefined)[] = [];
    const { seen, handler } = recorder();
    informer.addEventHandler(handler);
    informer.addEventHandler({
      onUpdate: (_old, o) =>
        cachedAtNotification.push(informer.lister.get('default', o.metadata!.name!)?.data?.v),
    });
    await informer.whenSynced();
    await eventually(() => client.openWatches === 1);
    client.put(configMap('b'));
    client.put(configMap('a', { v: '2' }));
    client.remove('default', 'b');
    await eventually(() => seen.length === 4);
    expect(seen).toEqual([
      { type: 'add', name: 'a', initial: true },
      { type: 'add', name: 'b', initial: false },
      { type: 'update', name: 'a', value: '2' },
      { type: 'delete', name: 'b', tombstone: false },
    ]);
    expect(cachedAtNotification).toEqual(['2']);
    expect(informer.lister.list().map((c) => c.metadata?.name)).toEqual(['a']);
    expect(informer.lastSyncResourceVersion).toBe(String(client.currentRevision));
  });

  it('stores listed and watched objects as its transform returns them (managedFields stripped)', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    const managed = (object: ConfigMap): ConfigMap => ({
      ...object,
      metadata: { ...object.metadata, managedFields: [{ manager: 'kubectl', operation: 'Update' }] },
    });
    client.put(managed(configMap('listed', { v: '1' })));
    const { informer, stop } = start(client, { ...quiet, transform: stripManagedFields });
    stops.push(stop);
    const { seen, handler } = recorder();
    informer.addEventHandler(handler);
    await informer.whenSynced();
    await eventually(() => client.openWatches === 1);
    client.put(managed(configMap('watched', { v: '2' })));
    await eventually(() => seen.length === 2);
    for (const name of ['listed', 'watched']) {
      const cached = informer.lister.get('default', name)!;
      expect(cached.metadata).not.toHaveProperty('managedFields');
      expect(cached.metadata?.name).toBe(name);
      // The client's own object keeps them: the transform copies before it drops.
      expect(client.stored('default', name)?.metadata?.managedFields).toHaveLength(1);
    }
    expect(informer.lister.get('default', 'watched')?.data).toEqual({ v: '2' });
  });

  it('resumes a closed watch from the last version seen, without relisting', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    const { informer, stop } = start(client);
    stops.push(stop);
    await informer.whenSynced();
    await eventually(() => client.openWatches === 1);
    client.put(configMap('a'));
    await eventually(() => informer.indexer.size === 1);
    const seenVersion = informer.lastSyncResourceVersion;
    client.closeWatches();
    await eventually(() => client.watchCalls.length === 2 && client.openWatches === 1);
    expect(client.watchCalls[1]!.resourceVersion).toBe(seenVersion);
    expect(client.listCalls).toHaveLength(1);
    // Events written while no watch was open arrive through the resumed one.
    client.put(configMap('b'));
    await eventually(() => informer.indexer.size === 2);
  });

  it('moves its resourceVersion forward on bookmarks, so a resumed watch starts there', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    const { informer, stop } = start(client);
    stops.push(stop);
    await informer.whenSynced();
    await eventually(() => client.openWatches === 1);
    client.put(configMap('a'));
    await eventually(() => informer.indexer.size === 1);
    // Writes the watch does not match (another namespace's objects, say) advance the revision.
    client.deaf = true;
    client.put(configMap('elsewhere', {}, 'other'));
    client.deaf = false;
    client.bookmark();
    await eventually(() => informer.lastSyncResourceVersion === String(client.currentRevision));
    expect(informer.indexer.size).toBe(1);
    client.closeWatches();
    await eventually(() => client.watchCalls.length === 2);
    expect(client.watchCalls[1]!.resourceVersion).toBe(String(client.currentRevision));
  });

  for (const how of ['throw', 'event'] as const) {
    it(`relists after 410 Gone (${how === 'throw' ? 'thrown' : 'ERROR event'}), with tombstones for objects that vanished`, async () => {
      const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
      client.put(configMap('keep'));
      client.put(configMap('gone'));
      const { seen, handler } = recorder();
      const { informer, stop } = start(client);
      stops.push(stop);
      informer.addEventHandler(handler);
      await informer.whenSynced();
      await eventually(() => client.openWatches === 1);
      const listedAt = informer.lastSyncResourceVersion;
      // Unseen by the watch: one object is deleted, one changed, one added; then history is
      // compacted and the watch expires.
      client.deaf = true;
      client.remove('default', 'gone');
      client.put(configMap('keep', { v: 'new' }));
      client.put(configMap('fresh'));
      client.compact();
      client.deaf = false;
      client.expireWatches(how);
      await eventually(() => client.listCalls.length === 3 && client.openWatches === 1);
      // The relist asked for the last version seen; it was compacted, so it fell back to the latest.
      expect(client.listCalls[1]).toEqual({ resourceVersion: listedAt });
      expect(client.listCalls[2]).toEqual({ limit: 500 });
      expect(seen.slice(2)).toEqual([
        { type: 'add', name: 'fresh', initial: false },
        { type: 'update', name: 'keep', value: 'new' },
        { type: 'delete', name: 'gone', tombstone: true },
      ]);
      expect(
        informer.lister
          .list()
          .map((c) => c.metadata?.name)
          .sort(),
      ).toEqual(['fresh', 'keep']);
    });
  }

  it('backs off and retries when lists fail', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    client.put(configMap('a'));
    const boom = new Error('connection refused');
    client.failures.list = [boom, boom, new FakeApiError(500, 'InternalError', 'oops')];
    const logs: string[] = [];
    const { informer, stop } = start(client, { ...quiet, log: (line) => logs.push(line) });
    stops.push(stop);
    await informer.whenSynced();
    expect(client.listCalls).toHaveLength(4);
    expect(logs[0]).toBe('reflector configmaps: failed to list configmaps: connection refused');
  });

  it('treats a watch that closes at once with nothing in it as a failure and relists', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    const logs: string[] = [];
    const { informer, stop } = start(client, { ...quiet, log: (line) => logs.push(line) });
    stops.push(stop);
    await informer.whenSynced();
    await eventually(() => client.openWatches === 1);
    client.closeWatches();
    await eventually(() => client.listCalls.length === 2);
    expect(logs[0]).toContain('very short watch: configmaps: Unexpected watch close');
  });

  it('gives a handler added after sync synthetic adds of the cache, then live events', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    client.put(configMap('a'));
    client.put(configMap('b'));
    const { informer, stop } = start(client);
    stops.push(stop);
    await informer.whenSynced();
    await eventually(() => client.openWatches === 1);
    const { seen, handler } = recorder();
    const registration = informer.addEventHandler(handler);
    expect(seen).toEqual([]); // not before the caller's next line
    await registration.whenSynced();
    expect(registration.hasSynced()).toBe(true);
    expect(seen.map((s) => [s.name, s.initial])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    client.put(configMap('c'));
    await eventually(() => seen.length === 3);
    registration.remove();
    client.put(configMap('d'));
    await eventually(() => informer.indexer.size === 4);
    expect(seen).toHaveLength(3);
  });

  it('resyncs handlers: every cached object again as an update, each period', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    client.put(configMap('a'));
    const { informer, stop } = start(client, { ...quiet, resyncPeriodMs: 30_000 });
    stops.push(stop);
    const { seen, handler } = recorder();
    informer.addEventHandler(handler);
    const fast = recorder();
    informer.addEventHandler(fast.handler, { resyncPeriodMs: 10_000 });
    await informer.whenSynced();
    vi.advanceTimersByTime(30_000);
    expect(seen.filter((s) => s.type === 'update')).toHaveLength(1);
    expect(fast.seen.filter((s) => s.type === 'update')).toHaveLength(3);
  });

  it('passes selectors and the namespace to list and watch', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    client.put({
      ...configMap('x', {}, 'ns1'),
      metadata: { name: 'x', namespace: 'ns1', labels: { app: 'a' } },
    });
    client.put(configMap('y', {}, 'ns1'));
    client.put({
      ...configMap('z', {}, 'ns2'),
      metadata: { name: 'z', namespace: 'ns2', labels: { app: 'a' } },
    });
    const { informer, stop } = start(client, {
      ...quiet,
      namespace: 'ns1',
      labelSelector: 'app=a',
      fieldSelector: 'metadata.name!=q',
    });
    stops.push(stop);
    await informer.whenSynced();
    expect(informer.lister.list().map((c) => c.metadata?.name)).toEqual(['x']);
    await eventually(() => client.watchCalls.length === 1);
    expect(client.watchCalls[0]).toMatchObject({ labelSelector: 'app=a', fieldSelector: 'metadata.name!=q' });
    expect(client.listCalls[0]).toMatchObject({ labelSelector: 'app=a', fieldSelector: 'metadata.name!=q' });
  });
});

describe('SharedInformerFactory', () => {
  it('shares one informer per resource, namespace and selectors; starts, syncs and stops them', async () => {
    const client = new FakeClient();
    client.resource<ConfigMap>(CONFIGMAPS).put(configMap('a'));
    const factory = new SharedInformerFactory(client, { backoff: { initialMs: 5 }, log: () => {} });
    const first = factory.informerFor<ConfigMap>(CONFIGMAPS);
    expect(factory.informerFor(CONFIGMAPS)).toBe(first);
    expect(factory.informerFor(CONFIGMAPS, { labelSelector: 'app=x' })).not.toBe(first);
    expect(factory.informerFor(CONFIGMAPS, { namespace: 'default' })).not.toBe(first);
    const secrets = factory.informerFor(SECRETS, { indexers: { type: () => ['t'] } });
    expect(factory.informerFor(SECRETS, { indexers: { type: () => ['t'] } })).toBe(secrets);
    expect(secrets.indexer.listIndexNames()).toEqual(['namespace', 'type']);

    factory.start();
    expect(await factory.waitForCacheSync()).toBe(true);
    expect(first.lister.get('default', 'a')).toBeDefined();
    expect(client.resource(CONFIGMAPS).listCalls).toHaveLength(3);

    // Informers asked for later start on the next start().
    const late = factory.informerFor(CONFIGMAPS, { fieldSelector: 'metadata.name=a' });
    expect(late.isRunning).toBe(false);
    factory.start();
    expect(late.isRunning).toBe(true);
    await factory.stop();
    expect(first.isRunning).toBe(false);
    expect(client.resource(CONFIGMAPS).openWatches).toBe(0);
  });

  it('waitForCacheSync answers false when its signal aborts first', async () => {
    const client = new FakeClient();
    const configMaps = client.resource<ConfigMap>(CONFIGMAPS);
    configMaps.failures.list = Array.from({ length: 100 }, () => new Error('down'));
    const factory = new SharedInformerFactory(client, { backoff: { initialMs: 5, maxMs: 5 }, log: () => {} });
    factory.informerFor(CONFIGMAPS);
    factory.start();
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 30);
    expect(await factory.waitForCacheSync(abort.signal)).toBe(false);
    await factory.stop();
  });
});
