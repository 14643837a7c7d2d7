// The StatefulSet controller with the whole control plane and simulated nodes in process: ordinal
// pods created one at a time (OrderedReady) or together (Parallel), their identity labels,
// hostname and subdomain, claims per ordinal and their retention, scale-down highest first, a
// RollingUpdate highest ordinal first honouring the partition, OnDelete, ordinals.start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControllerRevision, StatefulSet } from '../../../src/api/types/apps-v1.generated.js';
import type { PersistentVolumeClaim, Pod } from '../../../src/api/types/core-v1.generated.js';
import { CONTROLLER_REVISIONS, PODS, PVCS, STATEFUL_SETS } from '../../../src/client/resources.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';
import { eventRecorded } from './workload-support.js';

const NS = 'default';
let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane({ fakeNodes: { count: 2 } });
}, 30_000);
afterAll(() => cp?.stop());

const sets = () => cp.admin.resource<StatefulSet>(STATEFUL_SETS);
const pods = () => cp.admin.resource<Pod>(PODS);
const claims = () => cp.admin.resource<PersistentVolumeClaim>(PVCS);

function statefulSet(
  name: string,
  replicas: number,
  extra: Partial<NonNullable<StatefulSet['spec']>> = {},
): StatefulSet {
  return {
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      serviceName: `${name}-svc`,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'db', image: 'busybox:1.36' }] },
      },
      ...extra,
    },
  };
}

const livePods = async (app: string) =>
  (await pods().list(NS, { labelSelector: `app=${app}` })).items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));

const statusBecomes = (name: string, check: (s: StatefulSet) => boolean, timeoutMs = 30_000) =>
  eventually(async () => {
    const set = await sets().get(NS, name);
    return check(set) ? set : undefined;
  }, timeoutMs);

describe('statefulset controller', () => {
  it('creates ordinal pods in order with their identity and a claim per ordinal', async () => {
    const seen: string[] = [];
    await sets().create(
      statefulSet('db', 3, {
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      }),
    );
    // While the rollout runs, never is a higher ordinal present without every lower one ready.
    const set = await eventually(async () => {
      const now = await livePods('db');
      for (const pod of now) if (!seen.includes(pod.metadata!.name!)) seen.push(pod.metadata!.name!);
      const s = await sets().get(NS, 'db');
      return s.status?.readyReplicas === 3 ? s : undefined;
    }, 30_000);
    expect(seen).toEqual(['db-0', 'db-1', 'db-2']);
    expect(set.status).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
    });
    expect(set.status!.currentRevision).toBe(set.status!.updateRevision);
    const running = await livePods('db');
    for (const [ordinal, pod] of running.entries()) {
      expect(pod.metadata!.name).toBe(`db-${ordinal}`);
      expect(pod.metadata!.labels).toMatchObject({
        'statefulset.kubernetes.io/pod-name': `db-${ordinal}`,
        'apps.kubernetes.io/pod-index': String(ordinal),
        'controller-revision-hash': set.status!.updateRevision,
      });
      expect(pod.spec!.hostname).toBe(`db-${ordinal}`);
      expect(pod.spec!.subdomain).toBe('db-svc');
      expect(pod.spec!.volumes).toContainEqual({
        name: 'data',
        persistentVolumeClaim: { claimName: `data-db-${ordinal}` },
      });
    }
    const claimNames = (await claims().list(NS)).items.map((c) => c.metadata!.name).sort();
    expect(claimNames).toEqual(['data-db-0', 'data-db-1', 'data-db-2']);
    const revisions = (
      await cp.admin.resource<ControllerRevision>(CONTROLLER_REVISIONS).list(NS)
    ).items.filter((r) => r.metadata?.ownerReferences?.[0]?.uid === set.metadata!.uid);
    expect(revisions.map((r) => r.metadata!.name)).toEqual([set.status!.updateRevision]);
  }, 40_000);

  it('scales down from the highest ordinal and keeps the claims (Retain)', async () => {
    await sets().patch(NS, 'db', 'merge', { spec: { replicas: 1 } });
    await statusBecomes('db', (s) => s.status?.replicas === 1);
    expect((await livePods('db')).map((p) => p.metadata!.name)).toEqual(['db-0']);
    expect((await claims().list(NS)).items.map((c) => c.metadata!.name).sort()).toEqual([
      'data-db-0',
      'data-db-1',
      'data-db-2',
    ]);
    await sets().patch(NS, 'db', 'merge', { spec: { replicas: 3 } });
    await statusBecomes('db', (s) => s.status?.readyReplicas === 3);
  }, 40_000);

  it('rolls a new template highest ordinal first, stopping at the partition, then finishing', async () => {
    await sets().patch(NS, 'db', 'merge', {
      spec: {
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
        template: { spec: { containers: [{ name: 'db', image: 'busybox:1.37' }] } },
      },
    });
    const partial = await statusBecomes(
      'db',
      (s) => s.status?.updatedReplicas === 2 && s.status.readyReplicas === 3,
    );
    expect(partial.status!.currentRevision).not.toBe(partial.status!.updateRevision);
    const images = (await livePods('db')).map((p) => p.spec!.containers[0]!.image);
    expect(images).toEqual(['busybox:1.36', 'busybox:1.37', 'busybox:1.37']);
    await sets().patch(NS, 'db', 'merge', { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
    const done = await statusBecomes(
      'db',
      (s) =>
        s.status?.updatedReplicas === 3 &&
        s.status.readyReplicas === 3 &&
        s.status.currentRevision === s.status.updateRevision,
    );
    expect(done.status!.currentReplicas).toBe(3);
    expect((await livePods('db')).every((p) => p.spec!.containers[0]!.image === 'busybox:1.37')).toBe(true);
  }, 60_000);

  it('creates all pods at once with Parallel, from ordinals.start, and deletes claims when scaled (Delete)', async () => {
    await sets().create(
      statefulSet('par', 3, {
        podManagementPolicy: 'Parallel',
        ordinals: { start: 5 },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
        volumeClaimTemplates: [
          {
            metadata: { name: 'www' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      }),
    );
    await statusBecomes('par', (s) => s.status?.readyReplicas === 3);
    expect((await livePods('par')).map((p) => p.metadata!.name)).toEqual(['par-5', 'par-6', 'par-7']);
    await sets().patch(NS, 'par', 'merge', { spec: { replicas: 1 } });
    await statusBecomes('par', (s) => s.status?.replicas === 1);
    await eventually(async () => {
      const names = (await claims().list(NS)).items
        .map((c) => c.metadata!.name)
        .filter((n) => n!.startsWith('www-'));
      return names.length === 1 && names[0] === 'www-par-5' ? true : undefined;
    }, 20_000);
  }, 60_000);

  it('recreates a failed pod under the same name with a RecreatingFailedPod event', async () => {
    const before = await pods().get(NS, 'db-1');
    await pods().patch(NS, 'db-1', 'merge', { status: { phase: 'Failed' } }, { subresource: 'status' });
    const set = await sets().get(NS, 'db');
    await eventRecorded(
      cp.admin,
      { ...set, kind: 'StatefulSet' },
      'RecreatingFailedPod',
      `StatefulSet ${NS}/db is recreating failed Pod db-1`,
    );
    await eventually(async () => {
      const pod = await pods()
        .get(NS, 'db-1')
        .catch(() => undefined);
      return pod && pod.metadata!.uid !== before.metadata!.uid && pod.status?.phase === 'Running'
        ? pod
        : undefined;
    }, 20_000);
  }, 30_000);

  it('deletes the claims with the StatefulSet when whenDeleted is Delete', async () => {
    await sets().create(
      statefulSet('gone', 2, {
        podManagementPolicy: 'Parallel',
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
        volumeClaimTemplates: [
          {
            metadata: { name: 'tmp' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      }),
    );
    await statusBecomes('gone', (s) => s.status?.readyReplicas === 2);
    const owned = (await claims().list(NS)).items.filter((c) => c.metadata!.name!.startsWith('tmp-gone-'));
    expect(owned.map((c) => c.metadata!.ownerReferences?.[0]?.kind)).toEqual(['StatefulSet', 'StatefulSet']);
    await sets().delete(NS, 'gone');
    await eventually(
      async () =>
        (await claims().list(NS)).items.some((c) => c.metadata!.name!.startsWith('tmp-gone-'))
          ? undefined
          : true,
      20_000,
    );
  }, 40_000);

  it('applies a changed retention policy to the claims that exist', async () => {
    await sets().patch(NS, 'db', 'merge', {
      spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' } },
    });
    const set = await sets().get(NS, 'db');
    await eventually(async () => {
      const owned = (await claims().list(NS)).items.filter(
        (c) =>
          /^data-db-[0-2]$/.test(c.metadata!.name!) &&
          c.metadata!.ownerReferences?.some((r) => r.uid === set.metadata!.uid),
      );
      return owned.length === 3 ? true : undefined;
    }, 20_000);
    await sets().patch(NS, 'db', 'merge', {
      spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain' } },
    });
    await eventually(
      async () =>
        (await claims().list(NS)).items.some(
          (c) => (c.metadata!.ownerReferences ?? []).length > 0 && c.metadata!.name!.startsWith('data-db-'),
        )
          ? undefined
          : true,
      20_000,
    );
  }, 50_000);

  it('leaves pods alone with OnDelete until deleted', async () => {
    await sets().patch(NS, 'par', 'merge', {
      spec: {
        updateStrategy: { type: 'OnDelete', rollingUpdate: null },
        template: { spec: { containers: [{ name: 'db', image: 'busybox:1.38' }] } },
      },
    });
    await statusBecomes(
      'par',
      (s) => s.status?.observedGeneration === s.metadata!.generation && s.status?.updatedReplicas === 0,
    );
    await pods().delete(NS, 'par-5');
    await statusBecomes('par', (s) => s.status?.updatedReplicas === 1 && s.status.readyReplicas === 1);
    expect((await livePods('par'))[0]!.spec!.containers[0]!.image).toBe('busybox:1.38');
  }, 40_000);
});
