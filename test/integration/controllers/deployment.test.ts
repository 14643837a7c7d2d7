// Deployments with real kubectl: create, scale, set image, and every `kubectl rollout` verb
// (status, history, undo, restart, pause, resume). No kubelets run here: the test stands in for
// them, marking pods Running and Ready through pods/status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../../src/api/types/apps-v1.generated.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { computePodTemplateHash } from '../../../src/controllers/deployment/pod-template-hash.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;
let kubelet: { stop(): Promise<void> } | undefined;

beforeAll(async () => {
  cluster = await startTestCluster('deploy-kubectl');
  kubelet = startKubelet();
}, 60_000);

afterAll(async () => {
  await kubelet?.stop();
  await cluster?.down();
});

async function ok(args: string[]): Promise<string> {
  const result = await cluster.kubectl(args);
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Marks every pod that is not Ready yet Running and Ready, as a kubelet would report it. */
function startKubelet(): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const listed = await cluster.kubectl(['get', 'pods', '-o', 'json']);
      const pods: Pod[] = listed.exitCode === 0 ? JSON.parse(listed.stdout).items : [];
      for (const pod of pods) {
        const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        if (ready || pod.metadata?.deletionTimestamp || stopped) continue;
        const now = `${new Date().toISOString().slice(0, 19)}Z`;
        const status = {
          phase: 'Running',
          podIP: '10.244.0.7',
          conditions: [
            { type: 'Ready', status: 'True', lastTransitionTime: now },
            { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
          ],
        };
        await cluster.kubectl([
          'patch',
          'pod',
          pod.metadata!.name!,
          '--subresource=status',
          '--type=merge',
          '-p',
          JSON.stringify({ status }),
        ]);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

const rolloutStatus = () => ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);

async function deploymentJson(): Promise<Deployment> {
  return JSON.parse(await ok(['get', 'deployment', 'web', '-o', 'json']));
}

async function image(): Promise<string> {
  return (await deploymentJson()).spec!.template.spec!.containers[0]!.image!;
}

describe('deployments with kubectl', () => {
  it('creates a Deployment whose ReplicaSet is named by the template hash, and waits for its rollout', async () => {
    expect((await ok(['create', 'deployment', 'web', '--image=nginx:1.26', '--replicas=2'])).trim()).toBe(
      'deployment.apps/web created',
    );
    expect(await rolloutStatus()).toContain('deployment "web" successfully rolled out');
    const deployment = await deploymentJson();
    const hash = computePodTemplateHash(deployment.spec!.template);
    const names = await ok(['get', 'replicasets', '-l', 'app=web', '-o', 'name']);
    expect(names.trim()).toBe(`replicaset.apps/web-${hash}`);
    const pods = (await ok(['get', 'pods', '-l', `pod-template-hash=${hash}`, '-o', 'name']))
      .trim()
      .split('\n');
    expect(pods).toHaveLength(2);
    for (const pod of pods) expect(pod).toMatch(new RegExp(`^pod/web-${hash}-[a-z0-9]{5}$`));
    expect(deployment.status).toMatchObject({
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
    });
  });

  it('scales', async () => {
    expect((await ok(['scale', 'deployment', 'web', '--replicas=3'])).trim()).toBe(
      'deployment.apps/web scaled',
    );
    await rolloutStatus();
    expect((await deploymentJson()).status?.availableReplicas).toBe(3);
  });

  it('rolls out a new image and lists the revisions', async () => {
    expect((await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.27'])).trim()).toBe(
      'deployment.apps/web image updated',
    );
    expect(await rolloutStatus()).toContain('deployment "web" successfully rolled out');
    const history = await ok(['rollout', 'history', 'deployment/web']);
    expect(history.split('\n').map((line) => line.trim().split(/\s+/))).toEqual(
      expect.arrayContaining([
        ['REVISION', 'CHANGE-CAUSE'],
        ['1', '<none>'],
        ['2', '<none>'],
      ]),
    );
    expect(await ok(['rollout', 'history', 'deployment/web', '--revision=2'])).toContain(
      'Image:\tnginx:1.27',
    );
    const all = await ok([
      'get',
      'replicasets',
      '-l',
      'app=web',
      '-o',
      'jsonpath={range .items[*]}{.spec.replicas}{"\\n"}{end}',
    ]);
    expect(all.trim().split('\n').sort()).toEqual(['0', '3']);
  });

  it('undoes to the previous revision', async () => {
    expect((await ok(['rollout', 'undo', 'deployment/web'])).trim()).toBe('deployment.apps/web rolled back');
    await rolloutStatus();
    expect(await image()).toBe('nginx:1.26');
    const history = await ok(['rollout', 'history', 'deployment/web']);
    const revisions = history
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0])
      .filter((word) => /^\d+$/.test(word ?? ''));
    expect(revisions).toEqual(['2', '3']);
    expect((await deploymentJson()).metadata!.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
  });

  it('restarts the pods', async () => {
    const before = (await ok(['get', 'pods', '-l', 'app=web', '-o', 'name'])).trim().split('\n').sort();
    expect((await ok(['rollout', 'restart', 'deployment/web'])).trim()).toBe('deployment.apps/web restarted');
    await rolloutStatus();
    const template = (await deploymentJson()).spec!.template;
    expect(template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt']).toMatch(
      /^\d{4}-\d\d-\d\dT/,
    );
    const after = (await ok(['get', 'pods', '-l', 'app=web', '-o', 'name'])).trim().split('\n').sort();
    expect(after).toHaveLength(3);
    expect(after.filter((pod) => before.includes(pod))).toEqual([]);
  });

  it('pauses and resumes a rollout', async () => {
    expect((await ok(['rollout', 'pause', 'deployment/web'])).trim()).toBe('deployment.apps/web paused');
    await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.28']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const paused = await deploymentJson();
    expect(paused.status?.updatedReplicas ?? 0).toBe(0);
    expect(paused.status?.conditions?.find((c) => c.type === 'Progressing')?.reason).toBe('DeploymentPaused');
    const undo = await cluster.kubectl(['rollout', 'undo', 'deployment/web']);
    expect(undo.exitCode).toBe(1);
    expect(undo.stderr).toContain(
      "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again",
    );

    expect((await ok(['rollout', 'resume', 'deployment/web'])).trim()).toBe('deployment.apps/web resumed');
    expect(await rolloutStatus()).toContain('deployment "web" successfully rolled out');
    expect((await deploymentJson()).status).toMatchObject({ updatedReplicas: 3, availableReplicas: 3 });
  });
});
