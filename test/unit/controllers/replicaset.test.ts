// The ReplicaSet controller through the whole control plane: pods created from the template with a
// controller reference, replaced when deleted, deleted by rank on scale-down, orphans adopted and
// pods that stop matching released, status counted, quota failures reported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplicaSet } from '../../../src/api/types/apps-v1.generated.js';
import type {
  Binding,
  Pod,
  ReplicationController,
  ServiceAccount,
} from '../../../src/api/types/core-v1.generated.js';
import {
  PODS,
  REPLICA_SETS,
  REPLICATION_CONTROLLERS,
  SERVICE_ACCOUNTS,
} from '../../../src/client/resources.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';
import { eventRecorded, markPodReady, ownedPodsBecome, podsOwnedBy } from './workload-support.js';

let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane();
}, 30_000);
afterAll(() => cp?.stop());

const NS = 'default';
const replicaSets = () => cp.admin.resource<ReplicaSet>(REPLICA_SETS);
const pods = () => cp.admin.resource<Pod>(PODS);

function replicaSet(name: string, replicas: number, app = name): ReplicaSet {
  return {
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app, tier: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      },
    },
  };
}

const statusBecomes = (name: string, check: (rs: ReplicaSet) => boolean, timeoutMs?: number) =>
  eventually(async () => {
    const rs = await replicaSets().get(NS, name);
    return check(rs) ? rs : undefined;
  }, timeoutMs);

describe('replicaset controller', () => {
  it('creates the pods from the template, owned by the ReplicaSet, and counts them in its status', async () => {
    const rs = await replicaSets().create(replicaSet('web', 3));
    const uid = rs.metadata!.uid!;
    const created = await ownedPodsBecome(cp.admin, NS, uid, 3);
    for (const pod of created) {
      expect(pod.metadata!.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(pod.metadata!.generateName).toBe('web-');
      expect(pod.metadata!.labels).toEqual({ app: 'web', tier: 'web' });
      expect(pod.metadata!.ownerReferences).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web',
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    await eventRecorded(cp.admin, rs, 'SuccessfulCreate', `Created pod: ${created[0]!.metadata!.name}`);
    const counted = await statusBecomes('web', (r) => r.status?.replicas === 3);
    expect(counted.status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 1 });

    for (const pod of created) await markPodReady(cp.admin, pod);
    const ready = await statusBecomes('web', (r) => r.status?.availableReplicas === 3);
    expect(ready.status).toMatchObject({ readyReplicas: 3, availableReplicas: 3, fullyLabeledReplicas: 3 });
  });

  it('replaces a deleted pod', async () => {
    const rs = await replicaSets().get(NS, 'web');
    const before = await podsOwnedBy(cp.admin, NS, rs.metadata!.uid!);
    const victim = before[0]!.metadata!.name!;
    await pods().delete(NS, victim);
    const after = await eventually(async () => {
      const owned = await podsOwnedBy(cp.admin, NS, rs.metadata!.uid!);
      return owned.length === 3 && !owned.some((p) => p.metadata!.name === victim) ? owned : undefined;
    });
    expect(after.filter((p) => !before.some((b) => b.metadata!.name === p.metadata!.name))).toHaveLength(1);
  });

  it('deletes unready pods first on scale-down, then unassigned ones', async () => {
    const rs = await replicaSets().create(replicaSet('rank', 4));
    const uid = rs.metadata!.uid!;
    const created = await ownedPodsBecome(cp.admin, NS, uid, 4);
    const [notReady, unassigned, assignedA, assignedB] = created.map((p) => p.metadata!.name!);
    for (const [name, node] of [
      [assignedA, 'node-a'],
      [assignedB, 'node-b'],
    ] as const) {
      const binding: Binding = {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name },
        target: { apiVersion: 'v1', kind: 'Node', name: node },
      };
      await pods().createSubresource(NS, name!, 'binding', binding);
    }
    for (const pod of created.slice(1))
      await markPodReady(cp.admin, await pods().get(NS, pod.metadata!.name!));

    await replicaSets().patch(NS, 'rank', 'merge', { spec: { replicas: 3 } });
    let left = await ownedPodsBecome(cp.admin, NS, uid, 3);
    expect(left.map((p) => p.metadata!.name).sort()).toEqual([unassigned, assignedA, assignedB].sort());
    await eventRecorded(cp.admin, rs, 'SuccessfulDelete', `Deleted pod: ${notReady}`);

    await replicaSets().patch(NS, 'rank', 'merge', { spec: { replicas: 2 } });
    left = await ownedPodsBecome(cp.admin, NS, uid, 2);
    expect(left.map((p) => p.metadata!.name).sort()).toEqual([assignedA, assignedB].sort());
    await replicaSets().delete(NS, 'rank');
  });

  it('adopts matching orphans and creates only the missing pods', async () => {
    const orphan = await pods().create({
      metadata: { name: 'orphan-1', namespace: NS, labels: { app: 'adopt', tier: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
    });
    const rs = await replicaSets().create(replicaSet('adopt', 2));
    const owned = await ownedPodsBecome(cp.admin, NS, rs.metadata!.uid!, 2);
    const adopted = owned.find((p) => p.metadata!.name === 'orphan-1');
    expect(adopted?.metadata?.uid).toBe(orphan.metadata!.uid);
    expect(adopted?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'adopt',
        uid: rs.metadata!.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('releases a pod whose labels stop matching, and replaces it', async () => {
    const rs = await replicaSets().get(NS, 'adopt');
    await pods().patch(NS, 'orphan-1', 'merge', { metadata: { labels: { app: 'elsewhere' } } });
    const released = await eventually(async () => {
      const pod = await pods().get(NS, 'orphan-1');
      return (pod.metadata?.ownerReferences ?? []).length === 0 ? pod : undefined;
    });
    expect(released.metadata?.labels).toEqual({ app: 'elsewhere', tier: 'web' });
    const owned = await ownedPodsBecome(cp.admin, NS, rs.metadata!.uid!, 2);
    expect(owned.map((p) => p.metadata!.name)).not.toContain('orphan-1');
  });

  it('reports pods it cannot create in a ReplicaFailure condition and FailedCreate events', async () => {
    const template = replicaSet('capped', 2);
    template.spec!.template!.spec!.serviceAccountName = 'builder';
    const rs = await replicaSets().create(template);
    const failing = await eventually(async () => {
      const current = await replicaSets().get(NS, 'capped');
      return current.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
    });
    expect(failing).toMatchObject({ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate' });
    expect(failing.message).toMatch(
      /^pods "capped-" is forbidden: error looking up service account default\/builder: serviceaccount "builder" not found$/,
    );
    await eventRecorded(cp.admin, rs, 'FailedCreate', `Error creating: ${failing.message}`);
    // Slow start: one failed creation stops the batch, so no second request was sent.
    expect(await podsOwnedBy(cp.admin, NS, rs.metadata!.uid!)).toEqual([]);

    // Once pods can be created, they are, and the condition goes.
    await cp.admin
      .resource<ServiceAccount>(SERVICE_ACCOUNTS)
      .create({ metadata: { name: 'builder', namespace: NS } });
    const healed = await statusBecomes('capped', (r) => r.status?.replicas === 2, 20_000);
    expect(healed.status?.conditions).toBeUndefined();
  });
});

describe('replication controller (the same manager for ReplicationControllers)', () => {
  it('keeps the pods of a ReplicationController, owned with its v1 kind, and counts them', async () => {
    const controllers = cp.admin.resource<ReplicationController>(REPLICATION_CONTROLLERS);
    const rc = await controllers.create({
      metadata: { name: 'legacy', namespace: NS },
      spec: {
        replicas: 2,
        selector: { app: 'legacy' },
        template: {
          metadata: { labels: { app: 'legacy' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    });
    const uid = rc.metadata!.uid!;
    const created = await ownedPodsBecome(cp.admin, NS, uid, 2);
    for (const pod of created) {
      expect(pod.metadata!.name).toMatch(/^legacy-[a-z0-9]{5}$/);
      expect(pod.metadata!.ownerReferences).toEqual([
        {
          apiVersion: 'v1',
          kind: 'ReplicationController',
          name: 'legacy',
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      await markPodReady(cp.admin, pod);
    }
    const ready = await eventually(async () => {
      const current = await controllers.get(NS, 'legacy');
      return current.status?.readyReplicas === 2 ? current : undefined;
    });
    expect(ready.status).toEqual({
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      observedGeneration: 1,
    });
    await eventRecorded(cp.admin, rc, 'SuccessfulCreate', `Created pod: ${created[0]!.metadata!.name}`);

    await controllers.patch(NS, 'legacy', 'merge', { spec: { replicas: 1 } });
    await ownedPodsBecome(cp.admin, NS, uid, 1);
    await eventRecorded(cp.admin, rc, 'SuccessfulDelete', /^Deleted pod: legacy-[a-z0-9]{5}$/);
  });
});
