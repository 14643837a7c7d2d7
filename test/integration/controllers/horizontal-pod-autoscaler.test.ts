// The HPA controller on `tkube up --nodes 0 --fake-nodes 1` with real kubectl and the built-in
// metrics API: `kubectl autoscale` HPAs first bring their Deployments within min/max (upstream
// does so before reading any metric), then scale on CPU utilization. A simulated node reports
// each container using its requests, so the pods run at 100 % of a 50 % target: the HPA doubles
// the Deployment until maxReplicas holds it (ScalingLimited, TooManyReplicas), and `kubectl get
// hpa` shows `cpu: 100%/50%`. Missing metrics are covered by the controller's own test. The
// cluster config shortens the sync period to 5 s and the metrics' resolution to 10 s (metrics-
// server's minimum), so each step takes seconds rather than upstream's 15 s periods.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HorizontalPodAutoscaler } from '../../../src/api/types/autoscaling-v2.generated.js';
import type { Event } from '../../../src/api/types/core-v1.generated.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';
import { eventsAbout } from '../../support/events.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('hp-autoscaling', {
    fakeNodes: 1,
    config: `apiVersion: tkube.dev/v1alpha1
kind: Cluster
nodes: []
controllerManager:
  extraArgs:
    horizontal-pod-autoscaler-sync-period: 5s
metricsServer:
  extraArgs:
    metric-resolution: 10s
`,
  });
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

async function ok(args: string[]): Promise<string> {
  const result = await cluster.kubectl(args);
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Two sync periods (5 s each) and some slack. */
const until = <T>(check: () => Promise<T | undefined>): Promise<T> => eventually(check, 30_000, 500);

const hpa = async (name: string): Promise<HorizontalPodAutoscaler> =>
  JSON.parse(await ok(['get', 'hpa.v2.autoscaling', name, '-o', 'json'])) as HorizontalPodAutoscaler;

const events = (name: string): Promise<Event[]> => eventsAbout(ok, 'HorizontalPodAutoscaler', name);

const replicas = async (name: string): Promise<number> =>
  Number(await ok(['get', 'deployment', name, '-o', 'jsonpath={.spec.replicas}']));

describe('HorizontalPodAutoscaler on simulated usage', () => {
  it('clamps Deployments to min and max, then scales on CPU utilization up to maxReplicas', async () => {
    await ok(['create', 'deployment', 'small', '--image=nginx:1.27', '--replicas=1']);
    await ok(['create', 'deployment', 'big', '--image=nginx:1.27', '--replicas=6']);
    await ok(['set', 'resources', 'deployment', 'small', 'big', '--requests=cpu=100m']);
    await ok(['autoscale', 'deployment', 'small', '--cpu-percent=50', '--min=2', '--max=5']);
    await ok(['autoscale', 'deployment', 'big', '--cpu-percent=50', '--min=1', '--max=3']);

    const rescales = async (name: string) =>
      (await events(name))
        .filter((event) => event.reason === 'SuccessfulRescale')
        .map((event) => event.message);
    expect(
      await until(async () => ((await rescales('big')).length > 0 ? rescales('big') : undefined)),
    ).toEqual(['New size: 3; reason: Current number of replicas above Spec.MaxReplicas']);
    expect(
      (await until(async () => ((await rescales('small')).length > 0 ? rescales('small') : undefined)))[0],
    ).toBe('New size: 2; reason: Current number of replicas below Spec.MinReplicas');

    // Two scrapes (10 s apart) give each new pod its usage; each sync (every 5 s) then doubles what runs.
    const limited = await eventually(
      async () => {
        const object = await hpa('small');
        const conditions = object.status?.conditions ?? [];
        const atMax = conditions.some((c) => c.type === 'ScalingLimited' && c.reason === 'TooManyReplicas');
        return object.status?.currentReplicas === 5 && atMax ? object : undefined;
      },
      120_000,
      1_000,
    );
    expect(await replicas('small')).toBe(5);
    const conditions = Object.fromEntries((limited.status?.conditions ?? []).map((c) => [c.type, c]));
    expect(conditions.AbleToScale).toMatchObject({ status: 'True' });
    expect(conditions.ScalingActive).toMatchObject({ status: 'True', reason: 'ValidMetricFound' });
    expect(conditions.ScalingLimited).toMatchObject({
      status: 'True',
      reason: 'TooManyReplicas',
      message: 'the desired replica count is more than the maximum replica count',
    });
    expect(limited.status?.currentMetrics?.[0]).toMatchObject({
      type: 'Resource',
      resource: { name: 'cpu', current: { averageUtilization: 100, averageValue: '100m' } },
    });
    expect(await rescales('small')).toContain(
      'New size: 5; reason: cpu resource utilization (percentage of request) above target',
    );
    expect(await replicas('big')).toBe(3);

    const table = await ok(['get', 'hpa', 'small']);
    expect(table).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE/);
    expect(table).toMatch(/small\s+Deployment\/small\s+cpu: 100%\/50%\s+2\s+5\s+5\s/);
  }, 180_000);
});
