// The client runtime against a real ApiServer (SQLite store, RBAC, admission) over the in-process
// loopback: an informer and a controller reconciling config maps, events counted by PATCH, a
// relist after the server answers 410 for a compacted resourceVersion, and leader election on
// a real Lease.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/api/types/coordination-v1.generated.js';
import type { ConfigMap, Event } from '../../../src/api/types/core-v1.generated.js';
import { ApiServer } from '../../../src/apiserver/api-server.js';
import { patchSchemaForKind } from '../../../src/apiserver/openapi/patch-schema.js';
import { Controller } from '../../../src/client/controller.js';
import { EventBroadcaster } from '../../../src/client/events/index.js';
import {
  DeletedFinalStateUnknown,
  isNotFoundError,
  SharedInformer,
  SharedInformerFactory,
  splitKey,
} from '../../../src/client/informers/index.js';
import { LeaderElector } from '../../../src/client/leader-election/index.js';
import { CONFIG_MAPS, EVENTS, LEASES } from '../../../src/client/resources.js';
import type {
  ApiObject,
  Client,
  ResourceClient,
  WatchEvent,
  WatchOptions,
} from '../../../src/client/types.js';
import { bootstrapCluster, reconcileBootstrapPolicy } from '../../../src/controlplane/bootstrap.js';
import { Loopback } from '../../../src/controlplane/loopback.js';
import { generateRsaKeyPair } from '../../../src/pki/keys.js';
import { SqliteStore } from '../../../src/storage/index.js';
import { eventually } from './fake-client.js';

const dir = mkdtempSync(join(tmpdir(), 'tkube-client-runtime-'));
let store: SqliteStore;
let apiServer: ApiServer;
let loopback: Loopback;
let admin: Client;

beforeAll(async () => {
  store = SqliteStore.open({
    path: join(dir, 'state.db'),
    historyRevisions: 5,
    maintenanceIntervalMs: 3_600_000,
  });
  const keys = await generateRsaKeyPair();
  apiServer = new ApiServer({
    store,
    patchSchemaFor: patchSchemaForKind,
    serviceAccountTokens: { ...keys, issuer: 'https://test', audiences: ['https://test'] },
  });
  await bootstrapCluster(apiServer, 6443);
  await reconcileBootstrapPolicy(apiServer);
  await apiServer.start();
  loopback = new Loopback(apiServer);
  admin = loopback.client({ name: 'test-admin', groups: ['system:masters'] }, 'test');
}, 30_000);

afterAll(async () => {
  await loopback?.close();
  apiServer?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const configMap = (
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
  data,
});

describe('client runtime over the loopback', () => {
  it('an informer-fed controller reconciles objects and records counted events', async () => {
    const factory = new SharedInformerFactory(admin);
    const informer = factory.informerFor<ConfigMap>(CONFIG_MAPS, {
      namespace: 'default',
      labelSelector: 'role=source',
    });
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    const broadcaster = new EventBroadcaster(admin);
    const recorder = broadcaster.newRecorder({ component: 'mirror-controller' });
    const copies = factory.informerFor<ConfigMap>(CONFIG_MAPS, { namespace: 'default' });
    expect(copies).not.toBe(informer);

    // Keeps `<name>-copy` holding the data of every `role=source` config map.
    const controller = new Controller({
      name: 'mirror',
      workers: 2,
      sync: async (key) => {
        const { namespace, name } = splitKey(key);
        const source = informer.lister.get(namespace, name);
        if (source === undefined) return;
        const existing = copies.lister.get(namespace, `${name}-copy`);
        if (existing === undefined) {
          await configMaps.create(configMap(`${name}-copy`, source.data ?? {}));
        } else if (JSON.stringify(existing.data) !== JSON.stringify(source.data)) {
          await configMaps.update({ ...existing, data: source.data ?? {} });
        } else {
          return;
        }
        recorder.event(source, 'Normal', 'Mirrored', `copied to ${name}-copy`);
      },
    });
    controller.watch(informer);
    controller.watch(copies, (cm) => {
      const name = cm.metadata?.name ?? '';
      return name.endsWith('-copy') ? `default/${name.slice(0, -'-copy'.length)}` : undefined;
    });

    await configMaps.create(configMap('settings', { a: '1' }, { role: 'source' }));
    const abort = new AbortController();
    factory.start(abort.signal);
    const running = controller.run(abort.signal);
    try {
      const copy = async () =>
        (await configMaps.get('default', 'settings-copy').catch(() => undefined))?.data;
      await until(async () => (await copy())?.a === '1');

      const source = await configMaps.get('default', 'settings');
      await configMaps.update({ ...source, data: { a: '2' } });
      await until(async () => (await copy())?.a === '2');

      // Two identical events: one Event object, its count raised by a strategic merge patch.
      const eventsAbout = async () =>
        (await admin.resource<Event>(EVENTS).list('default')).items.filter(
          (e) => e.involvedObject.name === 'settings',
        );
      await until(async () => (await eventsAbout())[0]?.count === 2);
      const events = await eventsAbout();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        reason: 'Mirrored',
        message: 'copied to settings-copy',
        count: 2,
        type: 'Normal',
        source: { component: 'mirror-controller' },
        reportingComponent: 'mirror-controller',
        involvedObject: { kind: 'ConfigMap', apiVersion: 'v1', namespace: 'default', name: 'settings' },
      });
      expect(events[0]!.metadata.name).toMatch(/^settings\.[0-9a-f]+$/);
    } finally {
      abort.abort();
      await running;
      await factory.stop();
      await broadcaster.shutdown();
    }
  });

  it('relists after the server answers 410 for a compacted resourceVersion, with tombstones', async () => {
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    await configMaps.create(configMap('stays', {}, { set: 'relist' }));
    await configMaps.create(configMap('goes', {}, { set: 'relist' }));
    const gated = new GatedWatches(configMaps);
    const informer = new SharedInformer<ConfigMap>(gated, {
      namespace: 'default',
      labelSelector: 'set=relist',
      backoff: { initialMs: 10, jitter: 0 },
      log: () => {},
    });
    const deleted: { name: string; tombstone: boolean }[] = [];
    informer.addEventHandler({
      onDelete: (object) =>
        deleted.push({
          name: (object instanceof DeletedFinalStateUnknown ? object.obj : object).metadata!.name!,
          tombstone: object instanceof DeletedFinalStateUnknown,
        }),
    });
    const abort = new AbortController();
    const running = informer.run(abort.signal);
    try {
      await informer.whenSynced();
      await eventually(() => gated.open === 1);
      await configMaps.create(configMap('seen', {}, { set: 'relist' }));
      await eventually(() => informer.lister.get('default', 'seen') !== undefined);

      // Cut the watch while the informer is not looking: a deletion, then compaction past it.
      gated.closed = true;
      gated.cut();
      await eventually(() => gated.open === 0);
      await configMaps.delete('default', 'goes');
      for (let i = 0; i < 8; i++) await configMaps.create(configMap(`filler-${i}`, {}));
      await store.maintain();
      expect(store.compactedRevision()).toBeGreaterThan(Number(informer.lastSyncResourceVersion));
      gated.release();

      await eventually(() => deleted.length === 1, 5000);
      expect(deleted).toEqual([{ name: 'goes', tombstone: true }]);
      expect(gated.watchErrors.some((e) => e === 410)).toBe(true);
      expect(
        informer.lister
          .list()
          .map((c) => c.metadata?.name)
          .sort(),
      ).toEqual(['seen', 'stays']);
    } finally {
      abort.abort();
      await running;
    }
  });

  it('elects a leader on a real Lease and releases it on stop', async () => {
    const events: string[] = [];
    const abort = new AbortController();
    const elector = new LeaderElector({
      client: admin,
      namespace: 'kube-system',
      name: 'client-runtime-test',
      identity: 'candidate-1',
      releaseOnCancel: true,
      log: () => {},
      callbacks: {
        onStartedLeading: () => events.push('started'),
        onStoppedLeading: () => events.push('stopped'),
      },
    });
    const running = elector.run(abort.signal);
    await eventually(() => events.includes('started'));
    const leases = admin.resource<Lease>(LEASES);
    const held = await leases.get('kube-system', 'client-runtime-test');
    expect(held.spec).toMatchObject({
      holderIdentity: 'candidate-1',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
    });
    expect(held.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    abort.abort();
    await running;
    const released = await leases.get('kube-system', 'client-runtime-test');
    expect(released.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    expect(events).toEqual(['started', 'stopped']);
    await expect(leases.get('kube-system', 'absent')).rejects.toSatisfy(isNotFoundError);
  });
});

async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A real resource client whose watches the test can cut and hold back, so the informer misses
 * events and comes back after compaction.
 */
class GatedWatches<T extends ApiObject> implements ResourceClient<T> {
  closed = false;
  open = 0;
  readonly watchErrors: (number | undefined)[] = [];
  private readonly cuts = new Set<AbortController>();
  private waiters: (() => void)[] = [];

  constructor(private readonly inner: ResourceClient<T>) {}

  get ref() {
    return this.inner.ref;
  }

  cut(): void {
    for (const cut of this.cuts) cut.abort();
  }

  release(): void {
    this.closed = false;
    for (const resume of this.waiters.splice(0)) resume();
  }

  watch(namespace: string, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        if (self.closed) await new Promise<void>((resolve) => self.waiters.push(resolve));
        const cut = new AbortController();
        const signal = options.signal ? AbortSignal.any([options.signal, cut.signal]) : cut.signal;
        self.cuts.add(cut);
        self.open++;
        try {
          for await (const event of self.inner.watch(namespace, { ...options, signal })) {
            if (event.type === 'ERROR') self.watchErrors.push(event.object.code);
            yield event;
          }
        } catch (error) {
          self.watchErrors.push((error as { code?: number }).code);
          throw error;
        } finally {
          self.open--;
          self.cuts.delete(cut);
        }
      },
    };
  }

  get = (namespace: string, name: string) => this.inner.get(namespace, name);
  list: ResourceClient<T>['list'] = (namespace, options) => this.inner.list(namespace, options);
  create: ResourceClient<T>['create'] = (object, options) => this.inner.create(object, options);
  update: ResourceClient<T>['update'] = (object, options) => this.inner.update(object, options);
  updateStatus: ResourceClient<T>['updateStatus'] = (object, options) =>
    this.inner.updateStatus(object, options);
  patch: ResourceClient<T>['patch'] = (...args) => this.inner.patch(...args);
  delete: ResourceClient<T>['delete'] = (...args) => this.inner.delete(...args);
  deleteCollection: ResourceClient<T>['deleteCollection'] = (...args) => this.inner.deleteCollection(...args);
  createSubresource: ResourceClient<T>['createSubresource'] = (...args) =>
    this.inner.createSubresource(...args);
  getSubresource: ResourceClient<T>['getSubresource'] = (...args) => this.inner.getSubresource(...args);
}
