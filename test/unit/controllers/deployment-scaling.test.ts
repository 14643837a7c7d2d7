// The Deployment controller beyond a plain rollout: pausing and resuming, proportional scaling of
// a rollout in progress, pruning old ReplicaSets past revisionHistoryLimit, and the progress
// deadline. A stand-in kubelet marks pods Ready (only some images, where a rollout must stall).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, ReplicaSet } from '../../../src/api/types/apps-v1.generated.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { DEPLOYMENTS, REPLICA_SETS } from '../../../src/client/resources.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';
import {
  createNamespace,
  deploymentBecomes,
  rolledOut,
  simpleDeployment,
  startFakeKubelet,
} from './workload-support.js';

let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane();
}, 30_000);
afterAll(() => cp?.stop());

const deployments = () => cp.admin.resource<Deployment>(DEPLOYMENTS);
const replicaSets = () => cp.admin.resource<ReplicaSet>(REPLICA_SETS);

async function sizesByImage(namespace: string): Promise<Record<string, number>> {
  const { items } = await replicaSets().list(namespace);
  return Object.fromEntries(
    items.map((rs) => [rs.spec!.template!.spec!.containers[0]!.image, rs.spec!.replicas ?? 0] as const),
  );
}

const setImage = (namespace: string, name: string, image: string) =>
  deployments().patch(namespace, name, 'strategic', {
    spec: { template: { spec: { containers: [{ name: 'main', image }] } } },
  });

const progressing = (d: Deployment) => d.status?.conditions?.find((c) => c.type === 'Progressing');
const onlyImage = (image: string) => (pod: Pod) => pod.spec?.containers[0]?.image === image;

describe('deployment controller: scaling and rollout control', () => {
  it('holds a paused Deployment (scaling still applies) and rolls out once resumed', async () => {
    await createNamespace(cp.admin, 'd-pause');
    const kubelet = startFakeKubelet(cp.admin, 'd-pause');
    await deployments().create(simpleDeployment('d-pause', 'api', 2, 'api:1'));
    await deploymentBecomes(cp.admin, 'd-pause', 'api', rolledOut);

    await deployments().patch('d-pause', 'api', 'merge', { spec: { paused: true } });
    const paused = await deploymentBecomes(
      cp.admin,
      'd-pause',
      'api',
      (d) => progressing(d)?.reason === 'DeploymentPaused',
    );
    expect(progressing(paused)).toMatchObject({ status: 'Unknown', message: 'Deployment is paused' });
    await setImage('d-pause', 'api', 'api:2');
    await deployments().patch('d-pause', 'api', 'merge', { spec: { replicas: 4 } });
    await deploymentBecomes(
      cp.admin,
      'd-pause',
      'api',
      (d) => d.status?.observedGeneration === d.metadata?.generation && rolledOut(d) === false,
    );
    await deploymentBecomes(cp.admin, 'd-pause', 'api', (d) => d.status?.availableReplicas === 4);
    // Scaled, but the template change waits.
    expect(await sizesByImage('d-pause')).toEqual({ 'api:1': 4 });

    await deployments().patch('d-pause', 'api', 'merge', { spec: { paused: false } });
    const done = await deploymentBecomes(
      cp.admin,
      'd-pause',
      'api',
      (d) => rolledOut(d) && d.status?.updatedReplicas === 4,
    );
    await kubelet.stop();
    expect(await sizesByImage('d-pause')).toEqual({ 'api:1': 0, 'api:2': 4 });
    expect(progressing(done)?.reason).toBe('NewReplicaSetAvailable');
  });

  it('scales a rollout in progress proportionally across its ReplicaSets', async () => {
    await createNamespace(cp.admin, 'd-proportional');
    // New pods (image :2) never become ready, so the rollout stalls half way.
    const kubelet = startFakeKubelet(cp.admin, 'd-proportional', onlyImage('app:1'));
    const spec = simpleDeployment('d-proportional', 'app', 10, 'app:1');
    spec.spec!.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } };
    await deployments().create(spec);
    await deploymentBecomes(cp.admin, 'd-proportional', 'app', rolledOut);
    await setImage('d-proportional', 'app', 'app:2');
    // 13 pods at most, 8 available at least: the old ReplicaSet goes to 8, the new one to 5.
    await eventually(async () => {
      const sizes = await sizesByImage('d-proportional');
      return sizes['app:1'] === 8 && sizes['app:2'] === 5 ? sizes : undefined;
    });
    // 5 more replicas (18 allowed, 13 now) are shared 3 : 2 by size.
    await deployments().patch('d-proportional', 'app', 'merge', { spec: { replicas: 15 } });
    const sizes = await eventually(async () => {
      const current = await sizesByImage('d-proportional');
      return (current['app:1'] ?? 0) + (current['app:2'] ?? 0) === 18 ? current : undefined;
    });
    await kubelet.stop();
    expect(sizes).toEqual({ 'app:1': 11, 'app:2': 7 });
    const { items } = await replicaSets().list('d-proportional');
    for (const rs of items) {
      expect(rs.metadata!.annotations).toMatchObject({
        'deployment.kubernetes.io/desired-replicas': '15',
        'deployment.kubernetes.io/max-replicas': '18',
      });
    }
  });

  it('keeps only revisionHistoryLimit old ReplicaSets', async () => {
    await createNamespace(cp.admin, 'd-history');
    const kubelet = startFakeKubelet(cp.admin, 'd-history');
    const spec = simpleDeployment('d-history', 'svc', 1, 'svc:1');
    spec.spec!.revisionHistoryLimit = 1;
    await deployments().create(spec);
    await deploymentBecomes(cp.admin, 'd-history', 'svc', rolledOut);
    for (const version of [2, 3, 4]) {
      await setImage('d-history', 'svc', `svc:${version}`);
      await deploymentBecomes(
        cp.admin,
        'd-history',
        'svc',
        (d) => rolledOut(d) && d.metadata?.generation === version,
      );
    }
    const kept = await eventually(async () => {
      const sizes = await sizesByImage('d-history');
      return Object.keys(sizes).length === 2 ? sizes : undefined;
    });
    await kubelet.stop();
    expect(kept).toEqual({ 'svc:3': 0, 'svc:4': 1 });
  });

  it('marks a rollout that makes no progress within progressDeadlineSeconds as failed', async () => {
    await createNamespace(cp.admin, 'd-deadline');
    const kubelet = startFakeKubelet(cp.admin, 'd-deadline', onlyImage('job:1'));
    const spec = simpleDeployment('d-deadline', 'job', 2, 'job:1');
    spec.spec!.progressDeadlineSeconds = 2;
    await deployments().create(spec);
    await deploymentBecomes(cp.admin, 'd-deadline', 'job', rolledOut);
    await setImage('d-deadline', 'job', 'job:broken');
    const failed = await deploymentBecomes(
      cp.admin,
      'd-deadline',
      'job',
      (d) => progressing(d)?.status === 'False',
      10_000,
    );
    await kubelet.stop();
    const { items } = await replicaSets().list('d-deadline');
    const stuck = items.find((rs) => rs.spec!.template!.spec!.containers[0]!.image === 'job:broken')!;
    expect(progressing(failed)).toMatchObject({
      reason: 'ProgressDeadlineExceeded',
      message: `ReplicaSet "${stuck.metadata!.name}" has timed out progressing.`,
    });
  });
});
