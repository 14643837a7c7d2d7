// The HPA controller on `tkube up --nodes 0 --fake-nodes 1` with real kubectl, while no metrics
// API is served: `kubectl autoscale` HPAs still bring their Deployments within min/max (upstream
// does so before reading any metric), then report the missing metrics as upstream does —
// ScalingActive False with FailedGetResourceMetric — and `kubectl get hpa` shows `<unknown>`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HorizontalPodAutoscaler } from '../../../src/api/types/autoscaling-v2.generated.js';
import type { Event } from '../../../src/api/types/core-v1.generated.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('hp-autoscaling', { fakeNodes: 1 });
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

async function ok(args: string[]): Promise<string> {
  const result = await cluster.kubectl(args);
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Two sync periods (15 s each) and some slack. */
const until = <T>(check: () => Promise<T | undefined>): Promise<T> => eventually(check, 60_000, 500);

const hpa = async (name: string): Promise<HorizontalPodAutoscaler> =>
  JSON.parse(await ok(['get', 'hpa.v2.autoscaling', name, '-o', 'json'])) as HorizontalPodAutoscaler;

const events = async (name: string): Promise<Event[]> =>
  (
    JSON.parse(
      await ok([
        'get',
        'events',
        '--field-selector',
        `involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=${name}`,
        '-o',
        'json',
      ]),
    ) as { items: Event[] }
  ).items;

const replicas = async (name: string): Promise<number> =>
  Number(await ok(['get', 'deployment', name, '-o', 'jsonpath={.spec.replicas}']));

describe('HorizontalPodAutoscaler without a metrics API', () => {
  it('clamps Deployments to min and max, then reports the metrics as unavailable', async () => {
    await ok(['create', 'deployment', 'small', '--image=nginx:1.27', '--replicas=1']);
    await ok(['create', 'deployment', 'big', '--image=nginx:1.27', '--replicas=6']);
    await ok(['set', 'resources', 'deployment', 'small', 'big', '--requests=cpu=100m']);
    await ok(['autoscale', 'deployment', 'small', '--cpu-percent=50', '--min=2', '--max=5']);
    await ok(['autoscale', 'deployment', 'big', '--cpu-percent=50', '--min=1', '--max=3']);

    await until(async () =>
      (await replicas('small')) === 2 && (await replicas('big')) === 3 ? true : undefined,
    );
    const rescales = async (name: string) =>
      (await events(name))
        .filter((event) => event.reason === 'SuccessfulRescale')
        .map((event) => event.message);
    expect(
      await until(async () => ((await rescales('small')).length > 0 ? rescales('small') : undefined)),
    ).toEqual(['New size: 2; reason: Current number of replicas below Spec.MinReplicas']);
    expect(
      await until(async () => ((await rescales('big')).length > 0 ? rescales('big') : undefined)),
    ).toEqual(['New size: 3; reason: Current number of replicas above Spec.MaxReplicas']);

    // The next sync reads the metrics: the resource metrics API is not there.
    const failed = await until(async () => {
      const object = await hpa('small');
      return object.status?.conditions?.some((c) => c.type === 'ScalingActive') ? object : undefined;
    });
    expect(failed.status).toMatchObject({ currentReplicas: 2, desiredReplicas: 2 });
    const conditions = Object.fromEntries((failed.status?.conditions ?? []).map((c) => [c.type, c]));
    expect(conditions.AbleToScale).toMatchObject({ status: 'True', reason: 'SucceededGetScale' });
    expect(conditions.ScalingActive).toMatchObject({ status: 'False', reason: 'FailedGetResourceMetric' });
    const prefix =
      'failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: ';
    expect(conditions.ScalingActive?.message).toMatch(
      new RegExp(`^the HPA was unable to compute the replica count: ${prefix}.+`),
    );
    const warnings = await until(async () => {
      const found = (await events('small')).filter((event) => event.type === 'Warning');
      return found.length >= 2 ? found : undefined;
    });
    const byReason = Object.fromEntries(warnings.map((event) => [event.reason, event.message]));
    expect(byReason.FailedGetResourceMetric?.startsWith(prefix)).toBe(true);
    expect(
      byReason.FailedComputeMetricsReplicas?.startsWith(
        'invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ',
      ),
    ).toBe(true);

    const table = await ok(['get', 'hpa', 'small']);
    expect(table).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE/);
    expect(table).toMatch(/small\s+Deployment\/small\s+cpu: <unknown>\/50%\s+2\s+5\s+2\s/);
    expect(await replicas('small')).toBe(2);
  }, 120_000);
});
