// The Deployment controller through the whole control plane, with a stand-in kubelet marking pods
// Ready: ReplicaSets named by the template hash Kubernetes computes, revisions, conditions and
// events of a rollout; rolling updates that keep maxSurge and maxUnavailable at every observed
// step; Recreate; and kubectl's client-side undo.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, ReplicaSet } from '../../../src/api/types/apps-v1.generated.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { DEPLOYMENTS, PODS, REPLICA_SETS } from '../../../src/client/resources.js';
import { computePodTemplateHash } from '../../../src/controllers/deployment/pod-template-hash.js';
import { type InProcessControlPlane, startInProcessControlPlane } from '../../support/control-plane.js';
import {
  createNamespace,
  deploymentBecomes,
  eventRecorded,
  eventsAbout,
  isReady,
  rolledOut,
  simpleDeployment,
  startFakeKubelet,
  watchAll,
} from './workload-support.js';

let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane();
}, 30_000);
afterAll(() => cp?.stop());

const deployments = () => cp.admin.resource<Deployment>(DEPLOYMENTS);
const replicaSets = () => cp.admin.resource<ReplicaSet>(REPLICA_SETS);

async function ownedReplicaSets(d: Deployment): Promise<ReplicaSet[]> {
  const { items } = await replicaSets().list(d.metadata!.namespace!);
  return items.filter((rs) => rs.metadata?.ownerReferences?.some((ref) => ref.uid === d.metadata!.uid));
}

const revisionOf = (rs: ReplicaSet) => rs.metadata?.annotations?.['deployment.kubernetes.io/revision'];

describe('deployment controller', () => {
  it('rolls out a new Deployment through a ReplicaSet named by the template hash', async () => {
    await createNamespace(cp.admin, 'd-basic');
    const kubelet = startFakeKubelet(cp.admin, 'd-basic');
    // The Deployment `kubectl create deployment nginx --image=nginx` creates: Kubernetes names its
    // ReplicaSet nginx-5869d7778c.
    const created = await deployments().create({
      metadata: { name: 'nginx', namespace: 'd-basic', labels: { app: 'nginx' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'nginx' } },
        template: {
          metadata: { labels: { app: 'nginx' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] },
        },
        strategy: {},
      },
    });
    const done = await deploymentBecomes(cp.admin, 'd-basic', 'nginx', rolledOut);
    await kubelet.stop();

    const [rs] = await ownedReplicaSets(created);
    expect(rs!.metadata!.name).toBe('nginx-5869d7778c');
    expect(computePodTemplateHash(created.spec!.template)).toBe('5869d7778c');
    expect(rs!.metadata!.labels).toEqual({ app: 'nginx', 'pod-template-hash': '5869d7778c' });
    expect(rs!.spec!.selector).toEqual({ matchLabels: { app: 'nginx', 'pod-template-hash': '5869d7778c' } });
    expect(rs!.spec!.template!.metadata!.labels).toEqual({ app: 'nginx', 'pod-template-hash': '5869d7778c' });
    expect(rs!.metadata!.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'nginx',
        uid: created.metadata!.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    // 25% of 3 surges up to 1.
    expect(rs!.metadata!.annotations).toEqual({
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });

    expect(done.metadata!.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(done.status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    expect(done.status!.unavailableReplicas).toBeUndefined();
    const conditions = done.status!.conditions!.map(({ type, status, reason, message }) => ({
      type,
      status,
      reason,
      message,
    }));
    expect(conditions).toEqual([
      {
        type: 'Available',
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      },
      {
        type: 'Progressing',
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        message: 'ReplicaSet "nginx-5869d7778c" has successfully progressed.',
      },
    ]);
    await eventRecorded(
      cp.admin,
      created,
      'ScalingReplicaSet',
      'Scaled up replica set nginx-5869d7778c from 0 to 3',
    );
  });

  it('reports an unavailable Deployment while its pods are not ready', async () => {
    await createNamespace(cp.admin, 'd-unready');
    const created = await deployments().create(simpleDeployment('d-unready', 'slow', 2, 'nginx:1.27'));
    const waiting = await deploymentBecomes(
      cp.admin,
      'd-unready',
      'slow',
      (d) => (d.status?.replicas ?? 0) === 2,
    );
    expect(waiting.status).toMatchObject({ replicas: 2, updatedReplicas: 2, unavailableReplicas: 2 });
    const byType = Object.fromEntries(waiting.status!.conditions!.map((c) => [c.type, c]));
    expect(byType.Available).toMatchObject({
      status: 'False',
      reason: 'MinimumReplicasUnavailable',
      message: 'Deployment does not have minimum availability.',
    });
    expect(byType.Progressing).toMatchObject({ status: 'True' });
    expect(['NewReplicaSetCreated', 'ReplicaSetUpdated']).toContain(byType.Progressing!.reason);
    const [rs] = await ownedReplicaSets(created);
    expect(byType.Progressing!.message).toMatch(
      new RegExp(`^(Created new replica set|ReplicaSet) "${rs!.metadata!.name}"`),
    );
  });

  it('rolls an image change with maxSurge and maxUnavailable respected at every observed step', async () => {
    await createNamespace(cp.admin, 'd-rolling');
    const kubelet = startFakeKubelet(cp.admin, 'd-rolling');
    // 10 replicas at 25%: surge rounds up to 3, unavailability down to 2.
    const created = await deployments().create(simpleDeployment('d-rolling', 'web', 10, 'nginx:1.26'));
    await deploymentBecomes(cp.admin, 'd-rolling', 'web', rolledOut);
    const [first] = await ownedReplicaSets(created);

    const violations: string[] = [];
    let peakTotal = 0;
    let lowestReady = Number.POSITIVE_INFINITY;
    const rsWatch = await watchAll<ReplicaSet>(cp.admin, REPLICA_SETS, 'd-rolling', (all) => {
      const total = [...all.values()].reduce((sum, rs) => sum + (rs.spec?.replicas ?? 0), 0);
      peakTotal = Math.max(peakTotal, total);
      if (total > 13) violations.push(`ReplicaSets want ${total} pods, more than 10 + 3`);
    });
    const podWatch = await watchAll<Pod>(cp.admin, PODS, 'd-rolling', (all) => {
      const ready = [...all.values()].filter((p) => isReady(p) && !p.metadata?.deletionTimestamp).length;
      lowestReady = Math.min(lowestReady, ready);
      if (ready < 8) violations.push(`only ${ready} pods ready, fewer than 10 - 2`);
    });
    await deployments().patch('d-rolling', 'web', 'strategic', {
      spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } } },
    });
    const done = await deploymentBecomes(
      cp.admin,
      'd-rolling',
      'web',
      (d) => rolledOut(d) && d.metadata?.generation === 2,
      30_000,
    );
    await rsWatch.stop();
    await podWatch.stop();
    await kubelet.stop();

    expect(violations).toEqual([]);
    expect(peakTotal).toBe(13);
    expect(lowestReady).toBeGreaterThanOrEqual(8);
    const all = await ownedReplicaSets(created);
    expect(all).toHaveLength(2);
    const second = all.find((rs) => rs.metadata!.uid !== first!.metadata!.uid)!;
    expect(second.spec!.template!.spec!.containers[0]!.image).toBe('nginx:1.27');
    expect(second.spec!.replicas).toBe(10);
    expect(revisionOf(second)).toBe('2');
    const old = all.find((rs) => rs.metadata!.uid === first!.metadata!.uid)!;
    expect(old.spec!.replicas).toBe(0);
    expect(revisionOf(old)).toBe('1');
    expect(done.metadata!.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    const messages = (await eventsAbout(cp.admin, created)).map((e) => e.message);
    expect(messages).toContain(`Scaled up replica set ${second.metadata!.name} from 0 to 3`);
    expect(
      messages.some((m) => m?.startsWith(`Scaled down replica set ${first!.metadata!.name} from 10 to `)),
    ).toBe(true);
  });

  it('undoes to the previous ReplicaSet the way kubectl does, raising its revision', async () => {
    const kubelet = startFakeKubelet(cp.admin, 'd-rolling');
    const current = await deployments().get('d-rolling', 'web');
    const previous = (await ownedReplicaSets(current)).find((rs) => revisionOf(rs) === '1')!;
    // kubectl rollout undo: the old ReplicaSet's template (without the hash label) and
    // annotations, in one JSON patch.
    const template = structuredClone(previous.spec!.template!);
    delete template.metadata!.labels!['pod-template-hash'];
    const annotations: Record<string, string> = {
      'deployment.kubernetes.io/revision':
        current.metadata!.annotations!['deployment.kubernetes.io/revision']!,
    };
    await deployments().patch('d-rolling', 'web', 'json', [
      { op: 'replace', path: '/spec/template', value: template },
      { op: 'replace', path: '/metadata/annotations', value: annotations },
    ]);
    const done = await deploymentBecomes(
      cp.admin,
      'd-rolling',
      'web',
      (d) => rolledOut(d) && d.metadata?.generation === 3,
      30_000,
    );
    await kubelet.stop();

    expect(done.spec!.template.spec!.containers[0]!.image).toBe('nginx:1.26');
    expect(done.metadata!.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    const all = await ownedReplicaSets(done);
    expect(all).toHaveLength(2);
    const restored = all.find((rs) => rs.metadata!.uid === previous.metadata!.uid)!;
    expect(restored.spec!.replicas).toBe(10);
    expect(restored.metadata!.annotations).toMatchObject({
      'deployment.kubernetes.io/revision': '3',
      'deployment.kubernetes.io/revision-history': '1',
    });
  });

  it('rolls back to the revision the deprecated rollbackTo annotation names', async () => {
    // A Deployment of its own: the controller's events about one object share a budget of 25
    // (client-go's spam filter), which the 10-replica rollouts above may spend, and then the
    // DeploymentRollback event is dropped as upstream would drop it.
    await createNamespace(cp.admin, 'd-rollback');
    const kubelet = startFakeKubelet(cp.admin, 'd-rollback');
    await deployments().create(simpleDeployment('d-rollback', 'api', 2, 'nginx:1.26'));
    await deploymentBecomes(cp.admin, 'd-rollback', 'api', rolledOut);
    const current = await deployments().get('d-rollback', 'api');
    current.spec!.template.spec!.containers[0]!.image = 'nginx:1.27';
    await deployments().update(current);
    await deploymentBecomes(
      cp.admin,
      'd-rollback',
      'api',
      (d) => rolledOut(d) && d.metadata?.annotations?.['deployment.kubernetes.io/revision'] === '2',
    );
    await deployments().patch('d-rollback', 'api', 'merge', {
      metadata: { annotations: { 'deprecated.deployment.rollback.to': '1' } },
    });
    const done = await deploymentBecomes(
      cp.admin,
      'd-rollback',
      'api',
      (d) => rolledOut(d) && d.spec?.template.spec?.containers[0]?.image === 'nginx:1.26',
      30_000,
    );
    await kubelet.stop();
    expect(done.metadata!.annotations?.['deprecated.deployment.rollback.to']).toBeUndefined();
    await eventRecorded(cp.admin, done, 'DeploymentRollback', 'Rolled back deployment "api" to revision 1');
    // Revision 1's ReplicaSet is the current one again, as revision 3.
    const revisions = (await ownedReplicaSets(done)).map((rs) => revisionOf(rs)).sort();
    expect(revisions).toEqual(['2', '3']);
  });

  it('Recreate: scales the old ReplicaSet to zero and waits for its pods before creating the new one', async () => {
    await createNamespace(cp.admin, 'd-recreate');
    const kubelet = startFakeKubelet(cp.admin, 'd-recreate');
    const spec = simpleDeployment('d-recreate', 'db', 3, 'postgres:16');
    spec.spec!.strategy = { type: 'Recreate' };
    const created = await deployments().create(spec);
    await deploymentBecomes(cp.admin, 'd-recreate', 'db', rolledOut);
    const [first] = await ownedReplicaSets(created);

    const violations: string[] = [];
    const podWatch = await watchAll<Pod>(cp.admin, PODS, 'd-recreate', (all) => {
      const hashes = new Set([...all.values()].map((p) => p.metadata?.labels?.['pod-template-hash']));
      if (hashes.size > 1) violations.push(`pods of ${[...hashes].join(' and ')} at once`);
    });
    const rsWatch = await watchAll<ReplicaSet>(cp.admin, REPLICA_SETS, 'd-recreate', (all) => {
      const old = all.get(first!.metadata!.name!);
      const others = [...all.values()].filter((rs) => rs.metadata!.name !== first!.metadata!.name);
      if (others.length > 0 && ((old?.spec?.replicas ?? 0) > 0 || (old?.status?.replicas ?? 0) > 0)) {
        violations.push('a new ReplicaSet while the old one still has pods');
      }
    });
    await deployments().patch('d-recreate', 'db', 'strategic', {
      spec: { template: { spec: { containers: [{ name: 'main', image: 'postgres:17' }] } } },
    });
    await deploymentBecomes(
      cp.admin,
      'd-recreate',
      'db',
      (d) => rolledOut(d) && d.metadata?.generation === 2,
    );
    await podWatch.stop();
    await rsWatch.stop();
    await kubelet.stop();

    expect(violations).toEqual([]);
    const all = await ownedReplicaSets(created);
    expect(all.map((rs) => [revisionOf(rs), rs.spec!.replicas]).sort()).toEqual([
      ['1', 0],
      ['2', 3],
    ]);
    await eventRecorded(
      cp.admin,
      created,
      'ScalingReplicaSet',
      `Scaled down replica set ${first!.metadata!.name} from 3 to 0`,
    );
  });

  it('keeps int64 revisions exact past 2^53', async () => {
    await createNamespace(cp.admin, 'd-int64');
    const created = await deployments().create(simpleDeployment('d-int64', 'web', 0, 'nginx'));
    await deploymentBecomes(cp.admin, 'd-int64', 'web', rolledOut);
    const [first] = await ownedReplicaSets(created);
    // A revision a double cannot hold exactly (the conformance suite's lifecycle test sets one).
    await replicaSets().patch('d-int64', first!.metadata!.name!, 'merge', {
      metadata: { annotations: { 'deployment.kubernetes.io/revision': '3546343826724305832' } },
    });
    const current = await deployments().get('d-int64', 'web');
    current.spec!.template!.spec!.containers[0]!.image = 'nginx:1.27';
    await deployments().update(current);
    const done = await deploymentBecomes(
      cp.admin,
      'd-int64',
      'web',
      (d) => d.metadata?.annotations?.['deployment.kubernetes.io/revision'] === '3546343826724305833',
    );
    expect(done.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('3546343826724305833');
    const second = (await ownedReplicaSets(created)).find((rs) => rs.metadata!.uid !== first!.metadata!.uid);
    expect(second && revisionOf(second)).toBe('3546343826724305833');
  });
});
