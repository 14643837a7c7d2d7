// @kubernetes/client-node against a real control plane (in this process, real TLS): CRUD,
// paginated lists, watch bookmarks, and an informer that survives a 410 by relisting.
import {
  CoreV1Api,
  type KubeConfig,
  ListWatch,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientNodeControlPlane, startClientNodeControlPlane } from '../../support/client-node.js';

let cluster: ClientNodeControlPlane;
let kubeConfig: KubeConfig;
let core: CoreV1Api;

beforeAll(async () => {
  cluster = await startClientNodeControlPlane({
    // Short watches and a small history window, so that a 410 can be provoked in seconds.
    watch: { minRequestTimeoutSeconds: 1, bookmarkIntervalMs: 200 },
    historyRevisions: 20,
  });
  kubeConfig = cluster.kubeConfig;
  core = kubeConfig.makeApiClient(CoreV1Api);
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

/** Test objects carry a label, so lists leave out what the cluster adds (kube-root-ca.crt). */
function configMap(name: string, data: Record<string, string> = {}): V1ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { test: 'client-node' } }, data };
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('@kubernetes/client-node', () => {
  it('creates, reads, updates, patches and deletes', async () => {
    await core.createNamespace({ body: { metadata: { name: 'crud' } } });
    const created = await core.createNamespacedConfigMap({
      namespace: 'crud',
      body: configMap('c1', { a: '1' }),
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    const read = await core.readNamespacedConfigMap({ name: 'c1', namespace: 'crud' });
    expect(read.data).toEqual({ a: '1' });
    read.data = { a: '2' };
    const replaced = await core.replaceNamespacedConfigMap({ name: 'c1', namespace: 'crud', body: read });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(
      Number(read.metadata?.resourceVersion),
    );
    // A stale resourceVersion is a 409 Conflict.
    await expect(
      core.replaceNamespacedConfigMap({ name: 'c1', namespace: 'crud', body: read }),
    ).rejects.toMatchObject({
      code: 409,
    });
    // Patches of each type, with the content type set as client-node's docs show.
    const jsonPatched = await core.patchNamespacedConfigMap(
      { name: 'c1', namespace: 'crud', body: [{ op: 'add', path: '/data/b', value: '3' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    expect(jsonPatched.data).toEqual({ a: '2', b: '3' });
    const mergePatched = await core.patchNamespacedConfigMap(
      { name: 'c1', namespace: 'crud', body: { data: { a: null, c: '4' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(mergePatched.data).toEqual({ b: '3', c: '4' });
    const strategicPatched = await core.patchNamespacedConfigMap(
      { name: 'c1', namespace: 'crud', body: { metadata: { labels: { patched: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(strategicPatched.metadata?.labels).toEqual({ test: 'client-node', patched: 'yes' });
    // A JSON patch whose test fails is refused with the server's 422, as Kubernetes answers.
    await expect(
      core.patchNamespacedConfigMap(
        { name: 'c1', namespace: 'crud', body: [{ op: 'test', path: '/data/b', value: 'other' }] },
        setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
      ),
    ).rejects.toMatchObject({ code: 422 });
    await core.deleteNamespacedConfigMap({ name: 'c1', namespace: 'crud' });
    await expect(core.readNamespacedConfigMap({ name: 'c1', namespace: 'crud' })).rejects.toMatchObject({
      code: 404,
    });
  });

  it('applies server-side with a field manager, also on the status subresource', async () => {
    await core.createNamespace({ body: { metadata: { name: 'apply' } } });
    const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
    const applied = await core.patchNamespacedConfigMap(
      {
        name: 'settings',
        namespace: 'apply',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'on' } },
        fieldManager: 'operator',
        force: true,
      },
      apply,
    );
    expect(applied.data).toEqual({ mode: 'on' });
    expect(applied.metadata?.managedFields).toEqual([
      expect.objectContaining({
        manager: 'operator',
        operation: 'Apply',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:mode': {} } },
      }),
    ]);
    await core.createNamespacedPod({
      namespace: 'apply',
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    });
    const status = await core.patchNamespacedPodStatus(
      {
        name: 'p',
        namespace: 'apply',
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p' },
          status: { conditions: [{ type: 'Example', status: 'True' }] },
        },
        fieldManager: 'status-writer',
      },
      apply,
    );
    expect(status.status?.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Example', status: 'True' })]),
    );
    expect(status.metadata?.managedFields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ manager: 'status-writer', operation: 'Apply', subresource: 'status' }),
      ]),
    );
    // Without a field manager the server refuses the apply, as Kubernetes does.
    await expect(
      core.patchNamespacedConfigMap(
        { name: 'settings', namespace: 'apply', body: { apiVersion: 'v1', kind: 'ConfigMap' } },
        apply,
      ),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('lists page by page with limit and continue', async () => {
    await core.createNamespace({ body: { metadata: { name: 'pages' } } });
    for (let i = 0; i < 25; i++) {
      await core.createNamespacedConfigMap({
        namespace: 'pages',
        body: configMap(`cm-${String(i).padStart(2, '0')}`),
      });
    }
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedConfigMap({
        namespace: 'pages',
        limit: 10,
        _continue: token,
        labelSelector: 'test=client-node',
      });
      names.push(...page.items.map((item) => item.metadata!.name!));
      token = page.metadata?._continue;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(names).toEqual(Array.from({ length: 25 }, (_, i) => `cm-${String(i).padStart(2, '0')}`));
  });

  it('receives watch bookmarks carrying a resourceVersion', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    const bookmarks: string[] = [];
    const controller = await new Watch(kubeConfig).watch(
      '/api/v1/namespaces/default/configmaps',
      { allowWatchBookmarks: true, resourceVersion: list.metadata!.resourceVersion, timeoutSeconds: 5 },
      (phase, object: { metadata?: { resourceVersion?: string } }) => {
        if (phase === 'BOOKMARK') bookmarks.push(object.metadata!.resourceVersion!);
      },
      () => {},
    );
    await until(() => bookmarks.length >= 1);
    controller.abort();
    expect(Number(bookmarks[0])).toBeGreaterThanOrEqual(Number(list.metadata!.resourceVersion));
  });

  it('keeps an informer correct across a 410 Gone by relisting', async () => {
    await core.createNamespace({ body: { metadata: { name: 'watched' } } });
    await core.createNamespace({ body: { metadata: { name: 'busy' } } });
    await core.createNamespacedConfigMap({ namespace: 'watched', body: configMap('first') });
    let lists = 0;
    // ListWatch is what makeInformer builds: list, then watch from the list's resourceVersion.
    const informer = new ListWatch<V1ConfigMap>(
      '/api/v1/namespaces/watched/configmaps',
      new Watch(kubeConfig),
      () => {
        lists++;
        return core.listNamespacedConfigMap({ namespace: 'watched', labelSelector: 'test=client-node' });
      },
      false,
      'test=client-node',
    );
    const errors: unknown[] = [];
    informer.on('error', (error) => errors.push(error));
    await informer.start();
    await until(() => informer.list().length === 1);
    expect(lists).toBe(1);
    // Writes elsewhere move the cluster far past the informer's last resourceVersion and
    // compaction drops that history; its next watch (after the 1 s timeout) gets a 410.
    for (let i = 0; i < 60; i++) {
      await core.createNamespacedConfigMap({ namespace: 'busy', body: configMap(`noise-${i}`) });
    }
    await until(() => lists >= 2, 15_000);
    await core.createNamespacedConfigMap({ namespace: 'watched', body: configMap('second') });
    await until(() => informer.list().length === 2);
    expect(
      informer
        .list()
        .map((cm) => cm.metadata!.name)
        .sort(),
    ).toEqual(['first', 'second']);
    // No error reached the informer's handlers: the 410 was absorbed by a relist.
    expect(errors).toEqual([]);
    await informer.stop();
  }, 30_000);
});
