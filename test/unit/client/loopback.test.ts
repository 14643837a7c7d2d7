// The REST client driving a real ApiServer (SQLite store, RBAC bootstrap policy) over the
// in-process loopback: verbs, the four patch types, watch, and errors as ApiError.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplicaSet } from '../../../src/api/types/apps-v1.generated.js';
import type { TokenRequest } from '../../../src/api/types/authentication-v1.generated.js';
import type { ConfigMap, Pod, ServiceAccount } from '../../../src/api/types/core-v1.generated.js';
import { ApiServer } from '../../../src/apiserver/api-server.js';
import { patchSchemaForKind } from '../../../src/apiserver/openapi/patch-schema.js';
import { CONFIG_MAPS, PODS, REPLICA_SETS, SERVICE_ACCOUNTS } from '../../../src/client/resources.js';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isNotFound,
} from '../../../src/client/rest/index.js';
import type { ApiObject, Client, WatchEvent } from '../../../src/client/types.js';
import { bootstrapCluster, reconcileBootstrapPolicy } from '../../../src/controlplane/bootstrap.js';
import { controllerIdentity, Loopback, SCHEDULER_IDENTITY } from '../../../src/controlplane/loopback.js';
import { SocketLoopbackClients } from '../../../src/controlplane/socket-loopback.js';
import { generateRsaKeyPair } from '../../../src/pki/keys.js';
import { SqliteStore } from '../../../src/storage/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tkube-client-loopback-'));
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
  // No service-account controller here: pods need their namespace's default account.
  await admin
    .resource<ServiceAccount>(SERVICE_ACCOUNTS)
    .create({ metadata: { name: 'default', namespace: 'default' } });
}, 30_000);

afterAll(async () => {
  await loopback?.close();
  apiServer?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels },
  data,
});

async function thrown(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('verbs', () => {
  it('creates, gets, lists, updates and deletes config maps', async () => {
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    const created = await configMaps.create(configMap('crud', { a: '1' }, { suite: 'crud' }));
    expect(created.metadata?.uid).toBeTruthy();
    const got = await configMaps.get('default', 'crud');
    expect(got.data).toEqual({ a: '1' });
    const updated = await configMaps.update({ ...got, data: { a: '2' } });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(got.metadata?.resourceVersion));
    const list = await configMaps.list('default', { labelSelector: 'suite=crud' });
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((item) => item.data)).toEqual([{ a: '2' }]);
    const everywhere = await configMaps.list('', { fieldSelector: 'metadata.name=crud' });
    expect(everywhere.items).toHaveLength(1);
    const deleted = await configMaps.delete('default', 'crud');
    expect((deleted as ConfigMap).metadata?.name).toBe('crud');
    expect(isNotFound(await thrown(configMaps.get('default', 'crud')))).toBe(true);
  });

  it('pages through a list with limit and continue', async () => {
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    await Promise.all([1, 2, 3].map((i) => configMaps.create(configMap(`page-${i}`, {}, { suite: 'page' }))));
    const first = await configMaps.list('default', { labelSelector: 'suite=page', limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toBeTruthy();
    const rest = await configMaps.list('default', {
      labelSelector: 'suite=page',
      limit: 2,
      continue: first.metadata.continue,
    });
    expect([...first.items, ...rest.items].map((item) => item.metadata?.name)).toEqual([
      'page-1',
      'page-2',
      'page-3',
    ]);
    await configMaps.deleteCollection('default', { labelSelector: 'suite=page' });
    expect((await configMaps.list('default', { labelSelector: 'suite=page' })).items).toEqual([]);
  });

  it('posts and reads subresources, updates status and deletes gracefully, then at once', async () => {
    const token = await admin
      .resource<ServiceAccount>(SERVICE_ACCOUNTS)
      .createSubresource<TokenRequest>('default', 'default', 'token', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { audiences: ['https://test'], expirationSeconds: 600 },
      } as ApiObject);
    expect(token.status?.token.split('.')).toHaveLength(3);

    const pods = admin.resource<Pod>(PODS);
    await pods.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'on-node', namespace: 'default' },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] },
    });
    const pod = await pods.getSubresource<Pod>('default', 'on-node', 'status');
    const running = await pods.updateStatus({ ...pod, status: { ...pod.status, phase: 'Running' } });
    expect(running.status?.phase).toBe('Running');
    // On a node: deletion waits for the kubelet, unless the grace period is 0.
    const terminating = (await pods.delete('default', 'on-node')) as Pod;
    expect(terminating.metadata?.deletionTimestamp).toBeTruthy();
    expect(terminating.metadata?.deletionGracePeriodSeconds).toBe(30);
    await pods.delete('default', 'on-node', { gracePeriodSeconds: 0 });
    expect(isNotFound(await thrown(pods.get('default', 'on-node')))).toBe(true);
  });

  it('refuses a delete whose precondition does not hold', async () => {
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    await configMaps.create(configMap('guarded'));
    const error = await thrown(configMaps.delete('default', 'guarded', { preconditions: { uid: 'other' } }));
    expect(isConflict(error)).toBe(true);
    expect(error.message).toContain('Precondition failed: UID in precondition: other');
    await configMaps.delete('default', 'guarded');
  });
});

describe('patch', () => {
  it('applies JSON, merge, strategic and apply patches', async () => {
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    await configMaps.create(configMap('patched', { a: '1' }));
    const json = await configMaps.patch('default', 'patched', 'json', [
      { op: 'add', path: '/data/b', value: '2' },
    ]);
    expect(json.data).toEqual({ a: '1', b: '2' });
    const merge = await configMaps.patch('default', 'patched', 'merge', { data: { a: null, c: '3' } });
    expect(merge.data).toEqual({ b: '2', c: '3' });
    const applyPatch = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'patched', namespace: 'default' },
      data: { d: '4' },
    };
    const apply = configMaps.patch('default', 'patched', 'apply', applyPatch, {
      fieldManager: 'client-test',
      force: true,
    });
    expect((await apply).data).toMatchObject({ d: '4' });

    const pods = admin.resource<Pod>(PODS);
    await pods.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'strategic', namespace: 'default' },
      spec: {
        containers: [
          { name: 'a', image: 'busybox' },
          { name: 'b', image: 'busybox' },
        ],
      },
    });
    // Strategic merge matches containers by name: b changes, a stays.
    const strategic = await pods.patch('default', 'strategic', 'strategic', {
      spec: { containers: [{ name: 'b', image: 'nginx' }] },
    });
    expect(strategic.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual(['a=busybox', 'b=nginx']);
    const status = await pods.patch(
      'default',
      'strategic',
      'merge',
      { status: { phase: 'Failed' } },
      { subresource: 'status' },
    );
    expect(status.status?.phase).toBe('Failed');
    await pods.delete('default', 'strategic', { gracePeriodSeconds: 0 });
  });
});

describe('watch', () => {
  it('streams events from a resourceVersion until the signal aborts', async () => {
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    const created = await configMaps.create(configMap('watched', { v: '0' }, { suite: 'watch' }));
    const controller = new AbortController();
    const events: WatchEvent<ConfigMap>[] = [];
    const done = (async () => {
      for await (const event of configMaps.watch('default', {
        labelSelector: 'suite=watch',
        resourceVersion: created.metadata?.resourceVersion,
        signal: controller.signal,
      })) {
        events.push(event);
        if (event.type === 'DELETED') controller.abort();
      }
    })();
    await configMaps.patch('default', 'watched', 'merge', { data: { v: '1' } });
    await configMaps.delete('default', 'watched');
    await done;
    expect(events.map((event) => event.type)).toEqual(['MODIFIED', 'DELETED']);
    expect(events[0]!.type === 'MODIFIED' && events[0]!.object.data).toEqual({ v: '1' });
  });

  it('ends when the server ends the watch', async () => {
    const events: string[] = [];
    for await (const event of admin
      .resource<ConfigMap>(CONFIG_MAPS)
      .watch('kube-public', { timeoutSeconds: 1 })) {
      events.push(event.type);
    }
    expect(events).toEqual([]);
  });

  it('ends at once when the consumer stops reading', async () => {
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    await configMaps.create(configMap('early', {}, { suite: 'early' }));
    for await (const event of configMaps.watch('default', { labelSelector: 'suite=early' })) {
      expect(event.type).toBe('ADDED');
      break;
    }
    await configMaps.delete('default', 'early');
  });

  it('reports a compacted resourceVersion as 410 Gone', async () => {
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    const first = await configMaps.create(configMap('compacted'));
    for (let i = 0; i < 10; i++)
      await configMaps.patch('default', 'compacted', 'merge', { data: { i: `${i}` } });
    await store.maintain();
    const old = first.metadata!.resourceVersion!;
    const listError = await thrown(
      configMaps.list('default', { resourceVersion: old, resourceVersionMatch: 'Exact' }),
    );
    expect(isGone(listError)).toBe(true);
    expect(listError.code).toBe(410);
    const events: WatchEvent<ConfigMap>[] = [];
    for await (const event of configMaps.watch('default', { resourceVersion: old })) events.push(event);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event!.type).toBe('ERROR');
    expect(event!.type === 'ERROR' && event!.object.code).toBe(410);
    await configMaps.delete('default', 'compacted');
  });
});

describe('errors and identities', () => {
  it('maps 404 and 409 to ApiError with the Status', async () => {
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    const missing = await thrown(configMaps.get('default', 'nope'));
    expect(missing.code).toBe(404);
    expect(missing.message).toBe('configmaps "nope" not found');
    expect(missing.details).toMatchObject({ name: 'nope', kind: 'configmaps' });

    const current = await configMaps.create(configMap('twice'));
    const exists = await thrown(configMaps.create(configMap('twice')));
    expect([exists.code, isAlreadyExists(exists), isConflict(exists)]).toEqual([409, true, false]);
    await configMaps.update({ ...current, data: { x: '1' } });
    const stale = await thrown(configMaps.update({ ...current, data: { x: '2' } }));
    expect(isConflict(stale)).toBe(true);
    expect(stale.message).toBe(
      'Operation cannot be fulfilled on configmaps "twice": the object has been modified; please apply your changes to the latest version and try again',
    );
    await configMaps.delete('default', 'twice');
  });

  it('acts as a controller with its service-account identity', async () => {
    const client = loopback.client(controllerIdentity('deployment-controller'), 'deployment-controller');
    expect(client.identity).toBe('system:serviceaccount:kube-system:deployment-controller');
    const list = await client.resource<ReplicaSet>(REPLICA_SETS).list('');
    expect(list.kind).toBe('ReplicaSetList');
    // The deployment controller may not read config maps: RBAC says so in Kubernetes' words.
    const denied = await thrown(client.resource<ConfigMap>(CONFIG_MAPS).list('default'));
    expect(isForbidden(denied)).toBe(true);
    expect(denied.message).toBe(
      'configmaps is forbidden: User "system:serviceaccount:kube-system:deployment-controller" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    const watchDenied = await thrown(
      (async () => {
        for await (const _ of client.resource<ConfigMap>(CONFIG_MAPS).watch('')) break;
      })(),
    );
    expect(watchDenied.code).toBe(403);
    await client.close();
  });

  it('acts as the scheduler', async () => {
    const scheduler = loopback.client(SCHEDULER_IDENTITY, 'scheduler');
    expect((await scheduler.resource<Pod>(PODS).list('')).kind).toBe('PodList');
    const denied = await thrown(scheduler.resource<ConfigMap>(CONFIG_MAPS).get('default', 'x'));
    expect(denied.message).toContain('User "system:kube-scheduler" cannot get resource "configmaps"');
    await scheduler.close();
  });

  it('multiplexes many concurrent calls on one connection', async () => {
    const configMaps = admin.resource<ConfigMap>(CONFIG_MAPS);
    const results = await Promise.all(
      Array.from({ length: 300 }, () => configMaps.get('kube-system', 'nope').catch((e: unknown) => e)),
    );
    expect(results.every(isNotFound)).toBe(true);
  });

  it('listens on a socket file in the owner-only state directory, not an abstract socket', async () => {
    const socketDir = mkdtempSync(join(tmpdir(), 'tkube-sock-'));
    const other = new Loopback(apiServer, socketDir);
    const access = other.access();
    expect(access.socketPath).toBe(join(socketDir, 'loopback.sock'));
    expect(statSync(access.socketPath).isSocket()).toBe(true);
    const clients = new SocketLoopbackClients(access);
    const scheduler = clients.client(SCHEDULER_IDENTITY, 'scheduler');
    expect((await scheduler.resource<Pod>(PODS).list('')).kind).toBe('PodList');
    await clients.close();
    await other.close();
    expect(existsSync(access.socketPath)).toBe(false);
    rmSync(socketDir, { recursive: true, force: true });
  });

  it('falls back to a private temporary directory when the state path is too long for a socket', async () => {
    const other = new Loopback(apiServer, join(dir, 'x'.repeat(120)));
    const { socketPath } = other.access();
    expect(socketPath.startsWith('\0')).toBe(false);
    expect(statSync(join(socketPath, '..')).mode & 0o777).toBe(0o700);
    await other.close();
  });
});
