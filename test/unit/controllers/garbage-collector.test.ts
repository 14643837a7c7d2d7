// The garbage collector through the whole control plane: owners and dependents are created by
// hand with ownerReferences, then the owner is deleted with each propagation policy; dangling
// and partly dangling references, foreground chains and invalid namespaces are covered too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplicaSet } from '../../../src/api/types/apps-v1.generated.js';
import type {
  ConfigMap,
  Event,
  Namespace,
  Pod,
  ServiceAccount,
} from '../../../src/api/types/core-v1.generated.js';
import type { OwnerReference } from '../../../src/api/types/meta-v1.generated.js';
import type { ClusterRole } from '../../../src/api/types/rbac-v1.generated.js';
import {
  CLUSTER_ROLES,
  CONFIG_MAPS,
  EVENTS,
  NAMESPACES,
  PODS,
  REPLICA_SETS,
  SERVICE_ACCOUNTS,
} from '../../../src/client/resources.js';
import { isNotFound } from '../../../src/client/rest/index.js';
import type { ApiObject, ResourceClient } from '../../../src/client/types.js';
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

const HOLD = 'example.com/hold';

async function namespace(name: string): Promise<string> {
  await cp.admin.resource<Namespace>(NAMESPACES).create({ metadata: { name } });
  return name;
}

function replicaSet(namespace: string, name: string, owners: OwnerReference[] = []): ReplicaSet {
  return {
    metadata: { name, namespace, ...(owners.length > 0 ? { ownerReferences: owners } : {}) },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'busybox' }] },
      },
    },
  };
}

function configMap(
  namespace: string,
  name: string,
  owners: OwnerReference[],
  finalizers?: string[],
): ConfigMap {
  return { metadata: { name, namespace, ownerReferences: owners, ...(finalizers ? { finalizers } : {}) } };
}

/** A reference to `owner` (its controller unless told otherwise), blocking its foreground deletion unless told otherwise. */
function ownedBy(owner: ApiObject, blockOwnerDeletion = true, controller = true): OwnerReference {
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata!.name!,
    uid: owner.metadata!.uid!,
    controller,
    blockOwnerDeletion,
  };
}

async function gone<T extends ApiObject>(
  client: ResourceClient<T>,
  namespace: string,
  name: string,
): Promise<void> {
  await eventually(() =>
    client.get(namespace, name).then(
      () => undefined,
      (error: unknown) => {
        if (isNotFound(error)) return true;
        throw error;
      },
    ),
  );
}

/** Lets the collector see recent changes before checking that something did not happen. */
const settle = (ms = 400) => new Promise((resolve) => setTimeout(resolve, ms));

describe('garbage collector', () => {
  it('deletes the dependents of an owner deleted in the background', async () => {
    const ns = await namespace('gc-background');
    const sets = cp.admin.resource<ReplicaSet>(REPLICA_SETS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const pods = cp.admin.resource<Pod>(PODS);
    await eventually(() =>
      cp.admin
        .resource<ServiceAccount>(SERVICE_ACCOUNTS)
        .get(ns, 'default')
        .catch(() => undefined),
    );
    const owner = await sets.create(replicaSet(ns, 'web'));
    for (const name of ['a', 'b', 'c']) await maps.create(configMap(ns, name, [ownedBy(owner)]));
    for (const name of ['p1', 'p2']) {
      await pods.create({
        // Not a controller reference: the ReplicaSet controller would release pods its selector misses.
        metadata: { name, namespace: ns, ownerReferences: [ownedBy(owner, true, false)] },
        spec: { containers: [{ name: 'app', image: 'busybox' }] },
      });
    }
    const unrelated = await maps.create({ metadata: { name: 'unrelated', namespace: ns } });
    await settle();
    expect((await maps.list(ns)).items.map((m) => m.metadata?.name).sort()).toEqual(
      expect.arrayContaining(['a', 'b', 'c']),
    );

    await sets.delete(ns, 'web', { propagationPolicy: 'Background' });
    await gone(sets, ns, 'web');
    for (const name of ['a', 'b', 'c']) await gone(maps, ns, name);
    for (const name of ['p1', 'p2']) await gone(pods, ns, name);
    expect((await maps.get(ns, 'unrelated')).metadata?.uid).toBe(unrelated.metadata?.uid);
  });

  it('keeps a foreground-deleted owner until its blocking dependents are gone', async () => {
    const ns = await namespace('gc-foreground');
    const sets = cp.admin.resource<ReplicaSet>(REPLICA_SETS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const owner = await sets.create(replicaSet(ns, 'web'));
    // The blocking dependent carries a finalizer of its own, so it lingers once deleted.
    await maps.create(configMap(ns, 'blocking', [ownedBy(owner)], [HOLD]));
    await maps.create(configMap(ns, 'non-blocking', [ownedBy(owner, false)]));
    await settle();

    const marked = (await sets.delete(ns, 'web', { propagationPolicy: 'Foreground' })) as ReplicaSet;
    expect(marked.metadata?.deletionTimestamp).toBeDefined();
    expect(marked.metadata?.finalizers).toEqual(['foregroundDeletion']);

    // The GC deletes the dependents first: the blocking one is marked, the other one gone.
    await eventually(async () =>
      (await maps.get(ns, 'blocking')).metadata?.deletionTimestamp ? true : undefined,
    );
    await gone(maps, ns, 'non-blocking');
    await settle();
    const waiting = await sets.get(ns, 'web');
    expect(waiting.metadata?.deletionTimestamp).toBeDefined();
    expect(waiting.metadata?.finalizers).toEqual(['foregroundDeletion']);

    await maps.patch(ns, 'blocking', 'merge', { metadata: { finalizers: null } });
    await gone(maps, ns, 'blocking');
    await gone(sets, ns, 'web');
  });

  it('orphans the dependents of an owner deleted with the Orphan policy', async () => {
    const ns = await namespace('gc-orphan');
    const sets = cp.admin.resource<ReplicaSet>(REPLICA_SETS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const owner = await sets.create(replicaSet(ns, 'web'));
    const other = await sets.create(replicaSet(ns, 'other'));
    await maps.create(configMap(ns, 'only', [ownedBy(owner)]));
    await maps.create(configMap(ns, 'shared', [ownedBy(owner), ownedBy(other, false, false)]));
    await settle();

    const marked = (await sets.delete(ns, 'web', { propagationPolicy: 'Orphan' })) as ReplicaSet;
    expect(marked.metadata?.finalizers).toEqual(['orphan']);
    await gone(sets, ns, 'web');
    expect((await maps.get(ns, 'only')).metadata?.ownerReferences ?? []).toEqual([]);
    expect((await maps.get(ns, 'shared')).metadata?.ownerReferences?.map((ref) => ref.name)).toEqual([
      'other',
    ]);
    await settle();
    expect((await maps.get(ns, 'only')).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('deletes a dependent whose owner does not exist, or exists with another uid', async () => {
    const ns = await namespace('gc-dangling');
    const sets = cp.admin.resource<ReplicaSet>(REPLICA_SETS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const namesake = await sets.create(replicaSet(ns, 'namesake'));
    const ghost: OwnerReference = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'ghost',
      uid: '00000000-0000-0000-0000-00000000dead',
    };
    await maps.create(configMap(ns, 'of-ghost', [ghost]));
    await maps.create(
      configMap(ns, 'of-namesake', [{ ...ownedBy(namesake), uid: '00000000-0000-0000-0000-00000000beef' }]),
    );
    await gone(maps, ns, 'of-ghost');
    await gone(maps, ns, 'of-namesake');
    expect((await sets.get(ns, 'namesake')).metadata?.uid).toBe(namesake.metadata?.uid);
  });

  it('keeps a dependent with a live owner, removing its reference to a dead one', async () => {
    const ns = await namespace('gc-half-dangling');
    const sets = cp.admin.resource<ReplicaSet>(REPLICA_SETS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const live = await sets.create(replicaSet(ns, 'live'));
    const dead: OwnerReference = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'dead',
      uid: '00000000-0000-0000-0000-0000000000ff',
    };
    const dependent = await maps.create(configMap(ns, 'dependent', [ownedBy(live, false), dead]));
    const refs = await eventually(async () => {
      const current = (await maps.get(ns, 'dependent')).metadata?.ownerReferences ?? [];
      return current.length === 1 ? current : undefined;
    });
    expect(refs.map((ref) => ref.uid)).toEqual([live.metadata?.uid]);
    await settle();
    const kept = await maps.get(ns, 'dependent');
    expect(kept.metadata?.uid).toBe(dependent.metadata?.uid);
    expect(kept.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('deletes a chain A → B → C in the foreground, deepest first', async () => {
    const ns = await namespace('gc-chain');
    const sets = cp.admin.resource<ReplicaSet>(REPLICA_SETS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const a = await sets.create(replicaSet(ns, 'a'));
    const b = await sets.create(replicaSet(ns, 'b', [ownedBy(a)]));
    await maps.create(configMap(ns, 'c', [ownedBy(b)], [HOLD]));
    await settle();

    await sets.delete(ns, 'a', { propagationPolicy: 'Foreground' });
    // B is deleted in the foreground too, and waits for C, which is held by its finalizer.
    const bWaiting = await eventually(async () => {
      const current = await sets.get(ns, 'b');
      return current.metadata?.deletionTimestamp ? current : undefined;
    });
    expect(bWaiting.metadata?.finalizers).toEqual(['foregroundDeletion']);
    await eventually(async () => ((await maps.get(ns, 'c')).metadata?.deletionTimestamp ? true : undefined));
    await settle();
    expect((await sets.get(ns, 'a')).metadata?.finalizers).toEqual(['foregroundDeletion']);
    expect((await sets.get(ns, 'b')).metadata?.finalizers).toEqual(['foregroundDeletion']);

    await maps.patch(ns, 'c', 'merge', { metadata: { finalizers: null } });
    await gone(maps, ns, 'c');
    await gone(sets, ns, 'b');
    await gone(sets, ns, 'a');
  });

  it('reports and deletes a dependent naming an owner from another namespace', async () => {
    const home = await namespace('gc-owner-home');
    const away = await namespace('gc-owner-away');
    const sets = cp.admin.resource<ReplicaSet>(REPLICA_SETS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const owner = await sets.create(replicaSet(home, 'web'));
    await settle();
    const stray = await maps.create(configMap(away, 'stray', [ownedBy(owner)]));
    await gone(maps, away, 'stray');
    const event = await eventually(async () => {
      const events = await cp.admin.resource<Event>(EVENTS).list(away);
      return events.items.find((e) => e.reason === 'OwnerRefInvalidNamespace');
    });
    expect(event.type).toBe('Warning');
    expect(event.involvedObject).toMatchObject({
      kind: 'ConfigMap',
      name: 'stray',
      uid: stray.metadata?.uid,
    });
    expect(event.source?.component).toBe('garbage-collector-controller');
    expect(event.message).toBe(
      `ownerRef [apps/v1/ReplicaSet, namespace: ${away}, name: web, uid: ${owner.metadata?.uid}] does not exist in namespace "${away}"`,
    );
    expect((await sets.get(home, 'web')).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('leaves a cluster-scoped object naming a namespaced owner alone', async () => {
    const roles = cp.admin.resource<ClusterRole>(CLUSTER_ROLES);
    await roles.create({
      metadata: {
        name: 'gc-cluster-scoped-dependent',
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'nowhere',
            uid: '00000000-0000-0000-0000-0000000000aa',
          },
        ],
      },
    });
    await settle(800);
    const kept = await roles.get('', 'gc-cluster-scoped-dependent');
    expect(kept.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('drops the reference to a deleted owner while another remains, then collects the dependent', async () => {
    const ns = await namespace('gc-owner-swap');
    const sets = cp.admin.resource<ReplicaSet>(REPLICA_SETS);
    const maps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    const first = await sets.create(replicaSet(ns, 'first'));
    const second = await sets.create(replicaSet(ns, 'second'));
    await maps.create(configMap(ns, 'dependent', [ownedBy(first, false), ownedBy(second, false, false)]));
    await settle();
    await sets.delete(ns, 'first');
    await settle();
    expect((await maps.get(ns, 'dependent')).metadata?.ownerReferences?.map((ref) => ref.name)).toEqual([
      'second',
    ]);
    await sets.delete(ns, 'second');
    await gone(maps, ns, 'dependent');
  });
});
