// The apiserver's side of cascading deletion: which finalizers a DELETE leaves for the garbage
// collector (propagationPolicy, finalizers already present, the per-resource default), and the
// collector finishing the job for the legacy kinds that orphan by default.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../../src/api/types/apps-v1.generated.js';
import type { Job } from '../../../src/api/types/batch-v1.generated.js';
import type {
  ConfigMap,
  Namespace,
  Pod,
  ReplicationController,
  ServiceAccount,
} from '../../../src/api/types/core-v1.generated.js';
import {
  defaultGarbageCollectionPolicy,
  deletionFinalizersForGarbageCollection,
} from '../../../src/apiserver/registry/garbage-collection-policy.js';
import {
  CONFIG_MAPS,
  DEPLOYMENTS,
  JOBS,
  NAMESPACES,
  PODS,
  REPLICATION_CONTROLLERS,
  SERVICE_ACCOUNTS,
} from '../../../src/client/resources.js';
import { isNotFound } from '../../../src/client/rest/index.js';
import type { ApiObject } from '../../../src/client/types.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

describe('deletion finalizers for garbage collection', () => {
  it('follows the policy, then the finalizers present, then the default', () => {
    const deleteDependents = 'DeleteDependents' as const;
    expect(deletionFinalizersForGarbageCollection([], 'Foreground', deleteDependents)).toEqual([
      'foregroundDeletion',
    ]);
    expect(deletionFinalizersForGarbageCollection(['a', 'orphan'], 'Foreground', deleteDependents)).toEqual([
      'a',
      'foregroundDeletion',
    ]);
    expect(
      deletionFinalizersForGarbageCollection(['foregroundDeletion', 'a'], 'Background', deleteDependents),
    ).toEqual(['a']);
    // Unchanged sets leave the list alone.
    expect(
      deletionFinalizersForGarbageCollection(['orphan', 'a'], 'Orphan', deleteDependents),
    ).toBeUndefined();
    expect(deletionFinalizersForGarbageCollection(['a'], undefined, deleteDependents)).toBeUndefined();
    // No policy: a finalizer already there wins over the default.
    expect(
      deletionFinalizersForGarbageCollection(['foregroundDeletion'], undefined, 'OrphanDependents'),
    ).toBeUndefined();
    expect(deletionFinalizersForGarbageCollection([], undefined, 'OrphanDependents')).toEqual(['orphan']);
  });

  it('orphans by default only for ReplicationControllers and Jobs', () => {
    expect(defaultGarbageCollectionPolicy({ group: '', version: 'v1', kind: 'ReplicationController' })).toBe(
      'OrphanDependents',
    );
    expect(defaultGarbageCollectionPolicy({ group: 'batch', version: 'v1', kind: 'Job' })).toBe(
      'OrphanDependents',
    );
    expect(defaultGarbageCollectionPolicy({ group: 'apps', version: 'v1', kind: 'ReplicaSet' })).toBe(
      'DeleteDependents',
    );
    expect(defaultGarbageCollectionPolicy({ group: 'batch', version: 'v1', kind: 'CronJob' })).toBe(
      'DeleteDependents',
    );
  });
});

describe('DELETE with a propagation policy', () => {
  let cp: InProcessControlPlane;
  const ns = 'gc-propagation';
  const HOLD = 'example.com/hold';
  beforeAll(async () => {
    cp = await startInProcessControlPlane();
    await cp.admin.resource<Namespace>(NAMESPACES).create({ metadata: { name: ns } });
    await eventually(() =>
      cp.admin
        .resource<ServiceAccount>(SERVICE_ACCOUNTS)
        .get(ns, 'default')
        .catch(() => undefined),
    );
  }, 30_000);
  afterAll(() => cp?.stop());

  const ownedBy = (owner: ApiObject) => ({
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata!.name!,
    uid: owner.metadata!.uid!,
    controller: true,
    blockOwnerDeletion: true,
  });

  const gone = (check: () => Promise<unknown>) =>
    eventually(() =>
      check().then(
        () => undefined,
        (error: unknown) => {
          if (isNotFound(error)) return true;
          throw error;
        },
      ),
    );

  it('sets, swaps and drops the finalizers of an object that stays for another finalizer', async () => {
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    await maps.create({ metadata: { name: 'held', namespace: ns, finalizers: [HOLD] } });
    const foreground = (await maps.delete(ns, 'held', { propagationPolicy: 'Foreground' })) as ConfigMap;
    expect(foreground.metadata?.deletionTimestamp).toBeDefined();
    expect(foreground.metadata?.deletionGracePeriodSeconds).toBe(0);
    expect(foreground.metadata?.finalizers).toEqual([HOLD, 'foregroundDeletion']);
    // While it is being deleted (not gracefully), a new policy still replaces the old one.
    const orphan = (await maps.delete(ns, 'held', { propagationPolicy: 'Orphan' })) as ConfigMap;
    expect(orphan.metadata?.finalizers).toEqual([HOLD, 'orphan']);
    expect(orphan.metadata?.deletionTimestamp).toBe(foreground.metadata?.deletionTimestamp);
    const background = (await maps.delete(ns, 'held', { propagationPolicy: 'Background' })) as ConfigMap;
    expect(background.metadata?.finalizers).toEqual([HOLD]);
    await maps.patch(ns, 'held', 'merge', { metadata: { finalizers: null } });
    await gone(() => maps.get(ns, 'held'));
  });

  it('deletes at once when a Background delete removes the last finalizer', async () => {
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    await maps.create({ metadata: { name: 'orphan-only', namespace: ns, finalizers: ['orphan'] } });
    await maps.delete(ns, 'orphan-only', { propagationPolicy: 'Background' });
    await expect(maps.get(ns, 'orphan-only')).rejects.toSatisfy(isNotFound);
  });

  it('leaves the finalizers of a pod in its grace period alone', async () => {
    const pods = cp.admin.resource<Pod>(PODS);
    await pods.create({
      metadata: { name: 'graceful', namespace: ns },
      spec: { nodeName: 'node-a', containers: [{ name: 'app', image: 'busybox' }] },
    });
    const first = (await pods.delete(ns, 'graceful')) as Pod;
    expect(first.metadata?.deletionGracePeriodSeconds).toBe(30);
    const second = (await pods.delete(ns, 'graceful', { propagationPolicy: 'Orphan' })) as Pod;
    expect(second.metadata?.finalizers).toBeUndefined();
    expect((await pods.get(ns, 'graceful')).metadata?.finalizers).toBeUndefined();
    await pods.delete(ns, 'graceful', { gracePeriodSeconds: 0 });
    await gone(() => pods.get(ns, 'graceful'));
  });

  it('orphans the dependents of a Job deleted without a policy, and deletes them with Background', async () => {
    const jobs = cp.admin.resource<Job>(JOBS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const job = (name: string): Job => ({
      metadata: { name, namespace: ns },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox' }] } },
      },
    });
    const legacy = await jobs.create(job('legacy'));
    await maps.create({
      metadata: { name: 'legacy-output', namespace: ns, ownerReferences: [ownedBy(legacy)] },
    });
    const marked = (await jobs.delete(ns, 'legacy')) as Job;
    expect(marked.metadata?.finalizers).toEqual(['orphan']);
    await gone(() => jobs.get(ns, 'legacy'));
    const kept = await maps.get(ns, 'legacy-output');
    expect(kept.metadata?.ownerReferences ?? []).toEqual([]);

    const cascading = await jobs.create(job('cascading'));
    await maps.create({
      metadata: { name: 'cascading-output', namespace: ns, ownerReferences: [ownedBy(cascading)] },
    });
    await jobs.delete(ns, 'cascading', { propagationPolicy: 'Background' });
    await gone(() => maps.get(ns, 'cascading-output'));
  });

  it('orphans the pods of a ReplicationController deleted without a policy', async () => {
    const controllers = cp.admin.resource<ReplicationController>(REPLICATION_CONTROLLERS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const rc = await controllers.create({
      metadata: { name: 'legacy-rc', namespace: ns },
      spec: {
        replicas: 0,
        selector: { app: 'legacy-rc' },
        template: {
          metadata: { labels: { app: 'legacy-rc' } },
          spec: { containers: [{ name: 'app', image: 'busybox' }] },
        },
      },
    });
    await maps.create({ metadata: { name: 'rc-output', namespace: ns, ownerReferences: [ownedBy(rc)] } });
    const marked = (await controllers.delete(ns, 'legacy-rc')) as ReplicationController;
    expect(marked.metadata?.finalizers).toEqual(['orphan']);
    await gone(() => controllers.get(ns, 'legacy-rc'));
    expect((await maps.get(ns, 'rc-output')).metadata?.ownerReferences ?? []).toEqual([]);
  });

  it('deletes the dependents of a Deployment deleted without a policy', async () => {
    const deployments = cp.admin.resource<Deployment>(DEPLOYMENTS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const deployment = await deployments.create({
      metadata: { name: 'modern', namespace: ns },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'modern' } },
        template: {
          metadata: { labels: { app: 'modern' } },
          spec: { containers: [{ name: 'app', image: 'busybox' }] },
        },
      },
    });
    await maps.create({
      metadata: { name: 'modern-output', namespace: ns, ownerReferences: [ownedBy(deployment)] },
    });
    const result = await deployments.delete(ns, 'modern');
    expect((result as Deployment).metadata?.finalizers).toBeUndefined();
    await gone(() => deployments.get(ns, 'modern'));
    await gone(() => maps.get(ns, 'modern-output'));
  });
});
