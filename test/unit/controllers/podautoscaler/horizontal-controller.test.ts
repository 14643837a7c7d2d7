// The HPA controller through the whole control plane with fake nodes (pods run and turn Ready)
// and readings fed by a fake metrics source (the metrics server is not part of this test): a
// Deployment scaled up on cpu utilization and down on a memory average value, the status,
// conditions and events upstream writes, a failing metrics source, and a custom resource scaled
// through its CRD's scale subresource. The control plane's own HPA controller (no metrics API
// here) first looks at an HPA 15 s after it appears; every scenario is done well before that.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../../../src/api/types/apps-v1.generated.js';
import type { HorizontalPodAutoscaler } from '../../../../src/api/types/autoscaling-v2.generated.js';
import type { Event, Pod } from '../../../../src/api/types/core-v1.generated.js';
import { EventBroadcaster } from '../../../../src/client/events/index.js';
import { SharedInformerFactory } from '../../../../src/client/informers/index.js';
import {
  CUSTOM_RESOURCE_DEFINITIONS,
  DEPLOYMENTS,
  EVENTS,
  HPAS,
  PODS,
} from '../../../../src/client/resources.js';
import type { ApiObject, ResourceRef } from '../../../../src/client/types.js';
import { type ControllerContext, DEFAULT_CLUSTER_SETTINGS } from '../../../../src/controllers/context.js';
import { HorizontalController } from '../../../../src/controllers/podautoscaler/horizontal-controller.js';
import {
  type MetricsClient,
  resourceMetricsOf,
} from '../../../../src/controllers/podautoscaler/metrics-client.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../../support/control-plane.js';

const NAMESPACE = 'default';

/** Usage per container by app label, or a failure; read when the controller asks. */
const usage = new Map<string, Record<string, string> | Error>();

describe('HPA controller', () => {
  let cp: InProcessControlPlane;
  const abort = new AbortController();
  let broadcaster: EventBroadcaster;

  beforeAll(async () => {
    cp = await startInProcessControlPlane({ fakeNodes: { count: 1 } });
    const metrics: MetricsClient = {
      async getResourceMetric(resource, namespace, selector, container) {
        const pods = await cp.admin.resource<Pod>(PODS).list(namespace, { labelSelector: selector });
        const items = pods.items.flatMap((pod) => {
          const reading = usage.get(pod.metadata?.labels?.app ?? '');
          if (reading instanceof Error) throw reading;
          if (reading === undefined) return [];
          return [
            {
              metadata: { name: pod.metadata?.name, namespace },
              timestamp: new Date().toISOString(),
              window: '15s',
              containers: (pod.spec?.containers ?? []).map((entry) => ({ name: entry.name, usage: reading })),
            },
          ];
        });
        return resourceMetricsOf(items, resource, container);
      },
    };
    const informers = new SharedInformerFactory(cp.admin);
    broadcaster = new EventBroadcaster(cp.admin);
    const context: ControllerContext = {
      informers,
      settings: DEFAULT_CLUSTER_SETTINGS,
      rootClient: cp.admin,
      clientFor: () => cp.admin,
      recorderFor: (_account, component) => broadcaster.newRecorder({ component }),
    };
    const controller = new HorizontalController(context, {
      metricsClient: metrics,
      syncPeriodMs: 250,
      cpuInitializationPeriodMs: 0,
      downscaleStabilizationMs: 0,
    });
    informers.start(abort.signal);
    void controller.controller.run(abort.signal);
  }, 60_000);

  afterAll(async () => {
    abort.abort();
    await broadcaster?.shutdown();
    await cp?.stop();
  });

  async function deployment(
    name: string,
    replicas: number,
    resources: Record<string, string>,
  ): Promise<void> {
    await cp.admin.resource<Deployment>(DEPLOYMENTS).create({
      metadata: { name, namespace: NAMESPACE },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'main', image: 'busybox', resources: { requests: resources } }] },
        },
      },
    });
    await eventually(async () => {
      const pods = await cp.admin.resource<Pod>(PODS).list(NAMESPACE, { labelSelector: `app=${name}` });
      const ready = pods.items.filter((pod) =>
        pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === replicas ? true : undefined;
    }, 30_000);
  }

  async function hpa(name: string, spec: Partial<HorizontalPodAutoscaler['spec']> & { maxReplicas: number }) {
    await cp.admin.resource<HorizontalPodAutoscaler>(HPAS).create({
      metadata: { name, namespace: NAMESPACE },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, ...spec },
    });
  }

  const getHpa = (name: string) => cp.admin.resource<HorizontalPodAutoscaler>(HPAS).get(NAMESPACE, name);
  const condition = (object: HorizontalPodAutoscaler, type: string) =>
    object.status?.conditions?.find((entry) => entry.type === type);
  const replicasOf = async (name: string) =>
    (await cp.admin.resource<Deployment>(DEPLOYMENTS).get(NAMESPACE, name)).spec?.replicas;

  async function eventsOf(name: string): Promise<Event[]> {
    const list = await cp.admin.resource<Event>(EVENTS).list(NAMESPACE, {
      fieldSelector: `involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=${name}`,
    });
    return list.items;
  }

  it('scales a Deployment up on cpu utilization and reports it as upstream does', async () => {
    usage.set('cpu-up', { cpu: '200m', memory: '10Mi' });
    await deployment('cpu-up', 1, { cpu: '100m' });
    await hpa('cpu-up', {
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
        },
      ],
    });
    // 200 % of the request against 50 %: four times as many, within the first doubling limit (at least 4).
    await eventually(async () => ((await replicasOf('cpu-up')) === 4 ? true : undefined), 10_000);
    const scaled = await eventually(async () => {
      const current = await getHpa('cpu-up');
      return current.status?.currentMetrics?.length ? current : undefined;
    });
    expect(scaled.status).toMatchObject({
      currentReplicas: 1,
      desiredReplicas: 4,
      currentMetrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', current: { averageUtilization: 200, averageValue: '200m' } },
        },
      ],
    });
    expect(scaled.status?.lastScaleTime).toBeDefined();
    expect(condition(scaled, 'AbleToScale')).toMatchObject({
      status: 'True',
      reason: 'SucceededRescale',
      message: 'the HPA controller was able to update the target scale to 4',
    });
    expect(condition(scaled, 'ScalingActive')).toMatchObject({
      status: 'True',
      reason: 'ValidMetricFound',
      message:
        'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
    });
    expect(condition(scaled, 'ScalingLimited')).toMatchObject({
      status: 'False',
      reason: 'DesiredWithinRange',
    });
    const events = await eventually(async () => {
      const found = (await eventsOf('cpu-up')).filter((event) => event.reason === 'SuccessfulRescale');
      return found.length > 0 ? found : undefined;
    });
    expect(events[0]).toMatchObject({
      type: 'Normal',
      message: 'New size: 4; reason: cpu resource utilization (percentage of request) above target',
      source: { component: 'horizontal-pod-autoscaler' },
    });
    // The four new pods read the same: 16 wanted, at most double (8) per step.
    await eventually(async () => ((await replicasOf('cpu-up')) === 8 ? true : undefined), 30_000);
  }, 60_000);

  it('scales down on a memory average value, clamped by minReplicas', async () => {
    usage.set('mem-down', { cpu: '10m', memory: '10Mi' });
    await deployment('mem-down', 4, { cpu: '100m', memory: '100Mi' });
    await hpa('mem-down', {
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '50Mi' } },
        },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 0 } },
    });
    await eventually(async () => ((await replicasOf('mem-down')) === 2 ? true : undefined), 10_000);
    const current = await eventually(async () => {
      const object = await getHpa('mem-down');
      return condition(object, 'ScalingLimited')?.status === 'True' ? object : undefined;
    });
    expect(condition(current, 'ScalingLimited')).toMatchObject({
      reason: 'TooFewReplicas',
      message: 'the desired replica count is less than the minimum replica count',
    });
    expect(current.status?.currentMetrics?.[0]).toMatchObject({
      type: 'Resource',
      resource: { name: 'memory', current: { averageValue: '10485760' } },
    });
    const events = await eventsOf('mem-down');
    expect(events.map((event) => event.message)).toContain('New size: 2; reason: All metrics below target');
  }, 60_000);

  it('reports a metrics failure as ScalingActive False with upstream texts', async () => {
    usage.set(
      'broken',
      new Error('the server could not find the requested resource (get pods.metrics.k8s.io)'),
    );
    await deployment('broken', 1, { cpu: '100m' });
    await hpa('broken', {
      maxReplicas: 3,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
        },
      ],
    });
    const failed = await eventually(async () => {
      const object = await getHpa('broken');
      return condition(object, 'ScalingActive') ? object : undefined;
    });
    const inner =
      'failed to get cpu utilization: unable to get metrics for resource cpu: the server could not find the requested resource (get pods.metrics.k8s.io)';
    expect(condition(failed, 'ScalingActive')).toMatchObject({
      status: 'False',
      reason: 'FailedGetResourceMetric',
      message: `the HPA was unable to compute the replica count: ${inner}`,
    });
    expect(condition(failed, 'AbleToScale')).toMatchObject({ status: 'True', reason: 'SucceededGetScale' });
    expect(failed.status).toMatchObject({ currentReplicas: 1, desiredReplicas: 0 });
    const events = await eventually(async () => {
      const found = await eventsOf('broken');
      return found.length >= 2 ? found : undefined;
    });
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Warning', reason: 'FailedGetResourceMetric', message: inner }),
        expect.objectContaining({
          type: 'Warning',
          reason: 'FailedComputeMetricsReplicas',
          message: `invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${inner}`,
        }),
      ]),
    );
    expect(await replicasOf('broken')).toBe(1);
  }, 60_000);

  it('reports a target that does not exist as FailedGetScale', async () => {
    await hpa('missing', { maxReplicas: 3 });
    const failed = await eventually(async () => {
      const object = await getHpa('missing');
      return condition(object, 'AbleToScale') ? object : undefined;
    });
    expect(condition(failed, 'AbleToScale')).toMatchObject({
      status: 'False',
      reason: 'FailedGetScale',
      message: `the HPA controller was unable to get the target's current scale: deployments.apps "missing" not found`,
    });
  }, 30_000);

  it('scales a custom resource through its scale subresource', async () => {
    await cp.admin.resource<ApiObject>(CUSTOM_RESOURCE_DEFINITIONS).create({
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { replicas: { type: 'integer' }, selector: { type: 'string' } },
                  },
                  status: { type: 'object', properties: { replicas: { type: 'integer' } } },
                },
              },
            },
            subresources: {
              scale: {
                specReplicasPath: '.spec.replicas',
                statusReplicasPath: '.status.replicas',
                labelSelectorPath: '.spec.selector',
              },
            },
          },
        ],
      },
    } as ApiObject);
    const widgets: ResourceRef = {
      group: 'example.com',
      version: 'v1',
      resource: 'widgets',
      kind: 'Widget',
      namespaced: true,
    };
    const created = await eventually(async () => {
      try {
        return await cp.admin.resource<ApiObject>(widgets).create({
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w', namespace: NAMESPACE },
          spec: { replicas: 1, selector: 'app=widget' },
        } as ApiObject);
      } catch {
        return undefined;
      }
    });
    expect(created.metadata?.name).toBe('w');
    await cp.admin.resource<HorizontalPodAutoscaler>(HPAS).create({
      metadata: { name: 'w', namespace: NAMESPACE },
      spec: {
        scaleTargetRef: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' },
        minReplicas: 3,
        maxReplicas: 5,
      },
    });
    await eventually(async () => {
      const widget = await cp.admin
        .resource<ApiObject & { spec?: { replicas?: number } }>(widgets)
        .get(NAMESPACE, 'w');
      return widget.spec?.replicas === 3 ? true : undefined;
    }, 10_000);
    const events = await eventually(async () => {
      const found = await eventsOf('w');
      return found.length > 0 ? found : undefined;
    });
    expect(events[0]).toMatchObject({
      reason: 'SuccessfulRescale',
      message: 'New size: 3; reason: Current number of replicas below Spec.MinReplicas',
    });
  }, 60_000);
});
