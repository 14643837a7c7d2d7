// The namespace controller through the whole control plane: deleting a namespace deletes its
// content and then the namespace; an object held by a finalizer keeps the namespace Terminating,
// with the conditions Kubernetes reports, until the finalizer goes. Also the `finalize` subresource
// the controller releases namespaces through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../../src/api/types/apps-v1.generated.js';
import type {
  ConfigMap,
  Namespace,
  NamespaceCondition,
  Pod,
  Secret,
  ServiceAccount,
} from '../../../src/api/types/core-v1.generated.js';
import {
  CONFIG_MAPS,
  DEPLOYMENTS,
  NAMESPACES,
  PODS,
  SECRETS,
  SERVICE_ACCOUNTS,
} from '../../../src/client/resources.js';
import { ApiError, isNotFound } from '../../../src/client/rest/index.js';
import { deletableNamespacedResources } from '../../../src/controllers/namespace/deletable-resources.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane();
}, 30_000);
afterAll(() => cp?.stop());

const namespaces = () => cp.admin.resource<Namespace>(NAMESPACES);

async function createNamespace(name: string): Promise<void> {
  await namespaces().create({ metadata: { name } });
  // The default account comes with the namespace; pods need it.
  await eventually(() =>
    cp.admin
      .resource<ServiceAccount>(SERVICE_ACCOUNTS)
      .get(name, 'default')
      .catch(() => undefined),
  );
}

/** Resolves once the namespace is gone. */
function gone(name: string, timeoutMs = 10_000): Promise<true> {
  return eventually(
    () =>
      namespaces()
        .get('', name)
        .then(
          () => undefined,
          (error: unknown) => (isNotFound(error) ? true : undefined),
        ),
    timeoutMs,
  );
}

function condition(namespace: Namespace, type: string): NamespaceCondition | undefined {
  return namespace.status?.conditions?.find((c) => c.type === type);
}

describe('deletable namespaced resources', () => {
  it('lists each namespaced resource once, in its preferred version, and none cluster-scoped', () => {
    const resources = deletableNamespacedResources().map(
      ({ ref }) => `${ref.group}/${ref.version}/${ref.resource}`,
    );
    expect(resources).toContain('/v1/pods');
    expect(resources).toContain('apps/v1/deployments');
    expect(resources).toContain('autoscaling/v2/horizontalpodautoscalers');
    expect(resources).not.toContain('autoscaling/v1/horizontalpodautoscalers');
    expect(resources).not.toContain('/v1/namespaces');
    expect(resources).not.toContain('/v1/nodes');
    // Create-only resources (bindings, reviews) cannot be deleted.
    expect(resources).not.toContain('/v1/bindings');
    expect(new Set(resources).size).toBe(resources.length);
  });
});

describe('namespace controller', () => {
  it('deletes everything in a deleted namespace, then the namespace', async () => {
    await createNamespace('ns-full');
    await cp.admin
      .resource<ConfigMap>(CONFIG_MAPS)
      .create({ metadata: { name: 'cm', namespace: 'ns-full' } });
    await cp.admin
      .resource<Secret>(SECRETS)
      .create({ metadata: { name: 's', namespace: 'ns-full' }, stringData: { a: 'b' } });
    await cp.admin.resource<Pod>(PODS).create({
      metadata: { name: 'p', namespace: 'ns-full' },
      spec: { containers: [{ name: 'app', image: 'busybox' }] },
    });
    await cp.admin.resource<Deployment>(DEPLOYMENTS).create({
      metadata: { name: 'd', namespace: 'ns-full' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'd' } },
        template: {
          metadata: { labels: { app: 'd' } },
          spec: { containers: [{ name: 'app', image: 'busybox' }] },
        },
      },
    });

    await namespaces().delete('', 'ns-full');
    const terminating = await namespaces().get('', 'ns-full');
    expect(terminating.status?.phase).toBe('Terminating');
    await gone('ns-full');
    // Nothing of it outlives it.
    for (const ref of [CONFIG_MAPS, SECRETS, PODS, DEPLOYMENTS, SERVICE_ACCOUNTS]) {
      expect((await cp.admin.resource(ref).list('ns-full')).items, ref.resource).toEqual([]);
    }
  });

  it('keeps a namespace Terminating while an object in it has a finalizer, and says why', async () => {
    await createNamespace('ns-held');
    const configMaps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    await configMaps.create({
      metadata: { name: 'held', namespace: 'ns-held', finalizers: ['example.com/hold'] },
    });
    await configMaps.create({ metadata: { name: 'free', namespace: 'ns-held' } });
    await namespaces().delete('', 'ns-held');

    const held = await eventually(async () => {
      const namespace = await namespaces().get('', 'ns-held');
      return condition(namespace, 'NamespaceFinalizersRemaining')?.status === 'True' ? namespace : undefined;
    });
    expect(held.status?.phase).toBe('Terminating');
    expect(held.spec?.finalizers).toEqual(['kubernetes']);
    expect(condition(held, 'NamespaceFinalizersRemaining')).toMatchObject({
      reason: 'SomeFinalizerRemain',
      message: 'Some finalizers are remaining: example.com/hold in 1 resource instances',
    });
    expect(condition(held, 'NamespaceContentRemaining')).toMatchObject({
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: configmaps. has 1 resource instances',
    });
    expect(condition(held, 'NamespaceDeletionDiscoveryFailure')).toMatchObject({
      status: 'False',
      reason: 'ResourcesDiscovered',
      message: 'All resources successfully discovered',
    });
    expect(condition(held, 'NamespaceDeletionGroupVersionParsingFailure')).toMatchObject({
      status: 'False',
      reason: 'ParsedGroupVersions',
    });
    expect(condition(held, 'NamespaceDeletionContentFailure')).toMatchObject({
      status: 'False',
      reason: 'ContentDeleted',
      message: 'All content successfully deleted, may be waiting on finalization',
    });
    // Everything without a finalizer is gone already; the held object waits, marked for deletion.
    const left = (await configMaps.list('ns-held')).items;
    expect(left.map((cm) => cm.metadata?.name)).toEqual(['held']);
    expect(left[0]?.metadata?.deletionTimestamp).toBeDefined();

    await configMaps.patch('ns-held', 'held', 'merge', { metadata: { finalizers: null } });
    await gone('ns-held');
  });

  it('leaves a namespace that is not being deleted alone', async () => {
    await createNamespace('ns-alive');
    await cp.admin
      .resource<ConfigMap>(CONFIG_MAPS)
      .create({ metadata: { name: 'keep', namespace: 'ns-alive' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await namespaces().get('', 'ns-alive')).status?.phase).toBe('Active');
    expect((await cp.admin.resource<ConfigMap>(CONFIG_MAPS).get('ns-alive', 'keep')).metadata?.name).toBe(
      'keep',
    );
  });
});

describe('namespaces/finalize', () => {
  it('changes spec.finalizers, which a plain update cannot', async () => {
    await namespaces().create({ metadata: { name: 'ns-fin' } });
    const current = await namespaces().get('', 'ns-fin');
    const plain = await namespaces().update({ ...current, spec: { finalizers: ['example.com/x'] } });
    expect(plain.spec?.finalizers).toEqual(['kubernetes']);

    const finalized = await namespaces().update(
      { ...plain, spec: { finalizers: ['kubernetes', 'example.com/x'] }, status: { phase: 'Terminating' } },
      { subresource: 'finalize' },
    );
    expect(finalized.spec?.finalizers).toEqual(['kubernetes', 'example.com/x']);
    // The finalize subresource leaves status alone.
    expect(finalized.status?.phase).toBe('Active');

    const invalid = await namespaces()
      .update({ ...finalized, spec: { finalizers: ['not-standard'] } }, { subresource: 'finalize' })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ApiError);
    expect((invalid as ApiError).code).toBe(422);
    expect((invalid as ApiError).message).toContain(
      'spec.finalizers[0]: Invalid value: "not-standard": name is neither a standard finalizer name nor is it fully qualified',
    );
  });

  it('deletes a Terminating namespace once its last finalizer is released', async () => {
    await namespaces().create({
      metadata: { name: 'ns-release' },
      spec: { finalizers: ['kubernetes', 'example.com/mine'] },
    });
    await namespaces().delete('', 'ns-release');
    // The controller releases its own finalizer; the foreign one holds the namespace.
    const held = await eventually(async () => {
      const namespace = await namespaces().get('', 'ns-release');
      return namespace.spec?.finalizers?.includes('kubernetes') ? undefined : namespace;
    });
    expect(held.spec?.finalizers).toEqual(['example.com/mine']);
    await namespaces().update({ ...held, spec: { finalizers: [] } }, { subresource: 'finalize' });
    await gone('ns-release', 2_000);
  });
});
