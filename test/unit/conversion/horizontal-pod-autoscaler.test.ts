import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { convert } from '../../../src/apiserver/conversion/index.js';
import './support.js';

const V1 = { group: 'autoscaling', version: 'v1' };
const V2 = { group: 'autoscaling', version: 'v2' };

const METRICS = 'autoscaling.alpha.kubernetes.io/metrics';
const CURRENT_METRICS = 'autoscaling.alpha.kubernetes.io/current-metrics';
const CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';
const BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior';

const metadata = { name: 'web', namespace: 'default', uid: 'u-1', resourceVersion: '7' };
const scaleTargetRef = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };

function v2(
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
  meta: object = metadata,
): KubeObject {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta,
    spec: { scaleTargetRef, minReplicas: 1, maxReplicas: 10, ...spec },
    status,
  };
}

function v1(
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
  annotations?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: annotations === undefined ? metadata : { ...metadata, annotations },
    spec: { scaleTargetRef, minReplicas: 1, maxReplicas: 10, ...spec },
    status,
  };
}

const cpu = (averageUtilization: number) => ({
  type: 'Resource',
  resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } },
});

describe('HorizontalPodAutoscaler with a CPU target only', () => {
  const stored = v2({ metrics: [cpu(60)] }, { currentReplicas: 2, desiredReplicas: 2, currentMetrics: null });
  const served = v1({ targetCPUUtilizationPercentage: 60 }, { currentReplicas: 2, desiredReplicas: 2 });

  it('maps the CPU utilization target to targetCPUUtilizationPercentage, with no annotations', () => {
    expect(convert(stored, V1)).toBeJson(served);
  });

  it('maps targetCPUUtilizationPercentage back to a Resource metric', () => {
    expect(convert(served, V2)).toBeJson(stored);
  });

  it('round-trips v2 → v1 → v2 and v1 → v2 → v1', () => {
    expect(convert(convert(stored, V1), V2)).toBeJson(stored);
    expect(convert(convert(served, V2), V1)).toBeJson(served);
  });

  it('applies the implicit 80% CPU target of v1 when nothing is set', () => {
    expect(convert(v1({}, {}), V2)).toBeJson(
      v2({ metrics: [cpu(80)] }, { desiredReplicas: 0, currentMetrics: null }),
    );
  });

  it('turns currentCPUUtilizationPercentage into a CPU current metric', () => {
    expect(
      convert(v1({}, { currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 91 }), V2),
    ).toBeJson(
      v2(
        { metrics: [cpu(80)] },
        {
          currentReplicas: 3,
          desiredReplicas: 4,
          currentMetrics: [
            { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 91 } } },
          ],
        },
      ),
    );
  });

  it('writes the status fields v1 always has, and the ones v2 always has', () => {
    const created = v2({ metrics: [cpu(60)] }, {});
    expect(convert(created, V1).status).toBeJson({ currentReplicas: 0, desiredReplicas: 0 });
    expect(convert(created, V2).status).toBeJson({ desiredReplicas: 0, currentMetrics: null });
  });
});

describe('HorizontalPodAutoscaler with memory and custom metrics', () => {
  const selector = { matchLabels: { app: 'shop', tier: 'web' } };
  const metrics = [
    {
      type: 'Resource',
      resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } },
    },
    {
      type: 'Pods',
      pods: {
        metric: { name: 'requests_per_second', selector },
        target: { type: 'AverageValue', averageValue: '1k' },
      },
    },
    {
      type: 'Object',
      object: {
        describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' },
        target: { type: 'Value', value: '10k' },
        metric: { name: 'hits' },
      },
    },
    {
      type: 'External',
      external: {
        metric: {
          name: 'queue_depth',
          selector: { matchExpressions: [{ key: 'queue', operator: 'In', values: ['jobs'] }] },
        },
        target: { type: 'AverageValue', averageValue: '30' },
      },
    },
    {
      type: 'ContainerResource',
      containerResource: {
        name: 'memory',
        target: { type: 'Utilization', averageUtilization: 75 },
        container: 'app',
      },
    },
    cpu(50),
  ];
  const stored = v2({ metrics }, { desiredReplicas: 0, currentMetrics: null });
  const metricsAnnotation =
    '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"512Mi"}},' +
    '{"type":"Pods","pods":{"metricName":"requests_per_second","targetAverageValue":"1k",' +
    '"selector":{"matchLabels":{"app":"shop","tier":"web"}}}},' +
    '{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},' +
    '"metricName":"hits","targetValue":"10k"}},' +
    '{"type":"External","external":{"metricName":"queue_depth",' +
    '"metricSelector":{"matchExpressions":[{"key":"queue","operator":"In","values":["jobs"]}]},' +
    '"targetAverageValue":"30"}},' +
    '{"type":"ContainerResource","containerResource":{"name":"memory","targetAverageUtilization":75,"container":"app"}}]';
  const served = v1(
    { targetCPUUtilizationPercentage: 50 },
    { currentReplicas: 0, desiredReplicas: 0 },
    { [METRICS]: metricsAnnotation },
  );

  it('keeps every metric but the CPU utilization target in the metrics annotation, as v1 MetricSpecs', () => {
    expect(convert(stored, V1)).toBeJson(served);
  });

  it('restores the annotated metrics, then the CPU target, and drops the annotation', () => {
    expect(convert(served, V2)).toBeJson(stored);
  });

  it('round-trips v2 → v1 → v2 and v1 → v2 → v1', () => {
    expect(convert(convert(stored, V1), V2)).toBeJson(stored);
    expect(convert(convert(served, V2), V1)).toBeJson(served);
  });

  it('writes label selectors as Go does: matchLabels sorted, empty parts omitted', () => {
    const object = v2(
      {
        metrics: [
          {
            type: 'External',
            external: {
              metric: { name: 'q', selector: { matchLabels: { z: '1', a: '2' }, matchExpressions: [] } },
              target: { type: 'Value', value: '1' },
            },
          },
        ],
      },
      {},
    );
    expect(convert(object, V1).metadata?.annotations?.[METRICS]).toBe(
      '[{"type":"External","external":{"metricName":"q","metricSelector":{"matchLabels":{"a":"2","z":"1"}},' +
        '"targetValue":"1"}}]',
    );
    expect((convert(object, V2).spec as { metrics: unknown }).metrics).toBeJson([
      {
        type: 'External',
        external: {
          metric: { name: 'q', selector: { matchLabels: { a: '2', z: '1' } } },
          target: { type: 'Value', value: '1' },
        },
      },
    ]);
  });

  it('moves a CPU target listed first behind the annotated metrics (as Kubernetes does)', () => {
    const cpuFirst = v2({ metrics: [cpu(50), metrics[0]] }, { desiredReplicas: 0, currentMetrics: null });
    expect(convert(convert(cpuFirst, V1), V2)).toBeJson(
      v2({ metrics: [metrics[0], cpu(50)] }, { desiredReplicas: 0, currentMetrics: null }),
    );
  });

  it('writes quantities canonically and v1 quantities that are not pointers as "0"', () => {
    const object = v2(
      {
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '0.5Gi' } },
          },
          {
            type: 'Object',
            object: {
              describedObject: { kind: 'Service', name: 'api' },
              target: { type: 'AverageValue', averageValue: '0.5' },
              metric: { name: 'latency' },
            },
          },
        ],
      },
      {},
    );
    const annotation = convert(object, V1).metadata?.annotations?.[METRICS];
    expect(annotation).toBe(
      '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"512Mi"}},' +
        '{"type":"Object","object":{"target":{"kind":"Service","name":"api"},"metricName":"latency",' +
        '"targetValue":"0","averageValue":"500m"}}]',
    );
    // Back in v2 the Object target keeps the zero value v1 forced on it.
    const objectMetric = (convert(convert(object, V1), V2).spec as { metrics: unknown[] }).metrics[1];
    expect(objectMetric).toBeJson({
      type: 'Object',
      object: {
        describedObject: { kind: 'Service', name: 'api' },
        target: { type: 'AverageValue', value: '0', averageValue: '500m' },
        metric: { name: 'latency' },
      },
    });
  });

  it('reads v1 External and Resource targets by which fields are set', () => {
    const annotation =
      '[{"type":"External","external":{"metricName":"q","targetValue":"5"}},' +
      '{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]';
    expect(
      (convert(v1({}, {}, { [METRICS]: annotation }), V2).spec as { metrics: unknown }).metrics,
    ).toBeJson([
      { type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '5' } } },
      {
        type: 'Resource',
        resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } },
      },
    ]);
  });

  it('ignores a metrics annotation that does not decode, falling back to the implicit CPU target', () => {
    for (const text of [
      'not json',
      '{"type":"Pods"}',
      '[{"type":7}]',
      '[{"pods":{"targetAverageValue":"x"}}]',
    ]) {
      const converted = convert(v1({}, {}, { [METRICS]: text, team: 'a' }), V2);
      expect(converted.spec).toBeJson({
        scaleTargetRef,
        minReplicas: 1,
        maxReplicas: 10,
        metrics: [cpu(80)],
      });
      expect(converted.metadata?.annotations).toBeJson({ team: 'a' });
    }
  });

  it('matches annotation keys in any case, as encoding/json does', () => {
    const annotation = '[{"TYPE":"Pods","Pods":{"MetricName":"rps","TargetAverageValue":"2"}}]';
    expect(
      (convert(v1({}, {}, { [METRICS]: annotation }), V2).spec as { metrics: unknown }).metrics,
    ).toBeJson([
      {
        type: 'Pods',
        pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '2' } },
      },
    ]);
  });
});

describe('HorizontalPodAutoscaler behavior', () => {
  const behavior = {
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    },
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Min',
      policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }],
    },
  };
  const stored = v2({ metrics: [cpu(70)], behavior }, { desiredReplicas: 0, currentMetrics: null });
  // The internal type has no JSON tags: Go field names, nil as null (Tolerance is new in 1.33).
  const behaviorAnnotation =
    '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":' +
    '[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],' +
    '"Tolerance":null},' +
    '"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Min","Policies":' +
    '[{"Type":"Percent","Value":10,"PeriodSeconds":60}],"Tolerance":null}}';
  const served = v1(
    { targetCPUUtilizationPercentage: 70 },
    { currentReplicas: 0, desiredReplicas: 0 },
    { [BEHAVIOR]: behaviorAnnotation },
  );

  it('keeps spec.behavior in the behavior annotation', () => {
    expect(convert(stored, V1)).toBeJson(served);
  });

  it('round-trips v2 → v1 → v2 and v1 → v2 → v1', () => {
    expect(convert(served, V2)).toBeJson(stored);
    expect(convert(convert(stored, V1), V2)).toBeJson(stored);
    expect(convert(convert(served, V2), V1)).toBeJson(served);
  });

  it('writes unset rules and fields as null, and a set tolerance as a quantity', () => {
    const partial = v2(
      { metrics: [cpu(70)], behavior: { scaleDown: { selectPolicy: 'Disabled', tolerance: '0.05' } } },
      {},
    );
    const annotation = convert(partial, V1).metadata?.annotations?.[BEHAVIOR];
    expect(annotation).toBe(
      '{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":"Disabled",' +
        '"Policies":null,"Tolerance":"50m"}}',
    );
    expect(convert(convert(partial, V1), V2).spec).toBeJson({
      scaleTargetRef,
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [cpu(70)],
      behavior: { scaleDown: { selectPolicy: 'Disabled', tolerance: '50m' } },
    });
  });

  it('reads keys in any case and ignores an annotation that sets no direction or does not decode', () => {
    const lower = '{"scaleUp":{"stabilizationWindowSeconds":30}}';
    expect((convert(v1({}, {}, { [BEHAVIOR]: lower }), V2).spec as { behavior: unknown }).behavior).toBeJson({
      scaleUp: { stabilizationWindowSeconds: 30 },
    });
    for (const text of ['{}', 'null', '[]', '{"ScaleUp":{"Policies":"many"}}', '{']) {
      const converted = convert(v1({}, {}, { [BEHAVIOR]: text }), V2);
      expect(converted.spec).not.toHaveProperty('behavior');
      expect(converted.metadata).not.toHaveProperty('annotations');
    }
  });
});

describe('HorizontalPodAutoscaler status', () => {
  const currentMetrics = [
    {
      type: 'Resource',
      resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 83 } },
    },
    { type: 'Pods', pods: { metric: { name: 'rps' }, current: { averageValue: '1200m' } } },
    {
      type: 'External',
      external: { metric: { name: 'queue_depth' }, current: { value: '12', averageValue: '4' } },
    },
  ];
  const conditions = [
    {
      type: 'AbleToScale',
      status: 'True',
      lastTransitionTime: '2025-03-01T10:00:00Z',
      reason: 'ReadyForNewScale',
      message: 'recommended size matches current size',
    },
    {
      type: 'ScalingActive',
      status: 'True',
      lastTransitionTime: '2025-03-01T10:00:30Z',
      reason: 'ValidMetricFound',
      message:
        'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
    },
    {
      type: 'ScalingLimited',
      status: 'False',
      lastTransitionTime: '2025-03-01T10:01:00Z',
      reason: 'DesiredWithinRange',
      message: 'the desired count is within the acceptable range',
    },
  ];
  const stored = v2(
    {
      metrics: [
        {
          type: 'Pods',
          pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '1' } },
        },
        cpu(80),
      ],
    },
    {
      observedGeneration: 3,
      lastScaleTime: '2025-03-01T09:59:00Z',
      currentReplicas: 4,
      desiredReplicas: 5,
      currentMetrics,
      conditions,
    },
  );
  const served = v1(
    { targetCPUUtilizationPercentage: 80 },
    {
      observedGeneration: 3,
      lastScaleTime: '2025-03-01T09:59:00Z',
      currentReplicas: 4,
      desiredReplicas: 5,
      currentCPUUtilizationPercentage: 83,
    },
    {
      [METRICS]: '[{"type":"Pods","pods":{"metricName":"rps","targetAverageValue":"1"}}]',
      [CURRENT_METRICS]:
        '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":83,"currentAverageValue":"250m"}},' +
        '{"type":"Pods","pods":{"metricName":"rps","currentAverageValue":"1200m"}},' +
        '{"type":"External","external":{"metricName":"queue_depth","currentValue":"12","currentAverageValue":"4"}}]',
      [CONDITIONS]:
        '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2025-03-01T10:00:00Z",' +
        '"reason":"ReadyForNewScale","message":"recommended size matches current size"},' +
        '{"type":"ScalingActive","status":"True","lastTransitionTime":"2025-03-01T10:00:30Z",' +
        '"reason":"ValidMetricFound","message":"the HPA was able to successfully calculate a replica count ' +
        'from cpu resource utilization (percentage of request)"},' +
        '{"type":"ScalingLimited","status":"False","lastTransitionTime":"2025-03-01T10:01:00Z",' +
        '"reason":"DesiredWithinRange","message":"the desired count is within the acceptable range"}]',
    },
  );

  it('keeps every current metric (CPU included) and the conditions in annotations', () => {
    expect(convert(stored, V1)).toBeJson(served);
  });

  it('round-trips v2 → v1 → v2 and v1 → v2 → v1', () => {
    expect(convert(served, V2)).toBeJson(stored);
    expect(convert(convert(stored, V1), V2)).toBeJson(stored);
    expect(convert(convert(served, V2), V1)).toBeJson(served);
  });

  it('prefers the current-metrics annotation over currentCPUUtilizationPercentage', () => {
    const edited = v1(
      {},
      { currentReplicas: 1, desiredReplicas: 1, currentCPUUtilizationPercentage: 10 },
      { [CURRENT_METRICS]: '[]' },
    );
    expect(convert(edited, V2).status).toBeJson({
      currentReplicas: 1,
      desiredReplicas: 1,
      currentMetrics: [],
    });
  });

  it('reports the last CPU utilization reading and fills v1 quantities that are not pointers with "0"', () => {
    const object = v2(
      { metrics: [cpu(80)] },
      {
        desiredReplicas: 1,
        currentMetrics: [
          { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40 } } },
          { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '1' } } },
          { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 60 } } },
        ],
      },
    );
    const converted = convert(object, V1);
    expect(converted.status).toBeJson({
      currentReplicas: 0,
      desiredReplicas: 1,
      currentCPUUtilizationPercentage: 60,
    });
    expect(converted.metadata?.annotations?.[CURRENT_METRICS]).toBe(
      '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"0"}},' +
        '{"type":"Resource","resource":{"name":"cpu","currentAverageValue":"1"}},' +
        '{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":60,"currentAverageValue":"0"}}]',
    );
  });

  it('writes a condition without lastTransitionTime as null and escapes HTML characters like Go', () => {
    const object = v2(
      { metrics: [cpu(80)] },
      { desiredReplicas: 1, conditions: [{ type: 'AbleToScale', status: 'False', message: 'a<b & c>d' }] },
    );
    expect(convert(object, V1).metadata?.annotations?.[CONDITIONS]).toBe(
      '[{"type":"AbleToScale","status":"False","lastTransitionTime":null,"message":"a\\u003cb \\u0026 c\\u003ed"}]',
    );
    expect((convert(convert(object, V1), V2).status as { conditions: unknown }).conditions).toBeJson([
      { type: 'AbleToScale', status: 'False', lastTransitionTime: null, message: 'a<b & c>d' },
    ]);
  });
});

describe('HorizontalPodAutoscaler round-trip annotations', () => {
  it('drops the ones a v2 client sets, keeping other annotations', () => {
    const object = v2(
      { metrics: [cpu(80)] },
      { desiredReplicas: 0, currentMetrics: null },
      {
        ...metadata,
        annotations: {
          [METRICS]: '[]',
          [BEHAVIOR]: '{}',
          [CONDITIONS]: '[]',
          [CURRENT_METRICS]: '[]',
          team: 'a',
        },
      },
    );
    expect(convert(object, V2).metadata).toBeJson({ ...metadata, annotations: { team: 'a' } });
    expect(convert(object, V1).metadata).toBeJson({ ...metadata, annotations: { team: 'a' } });
  });

  it('omits annotations left empty', () => {
    const object = v2({ metrics: [cpu(80)] }, {}, { ...metadata, annotations: { [BEHAVIOR]: '{}' } });
    expect(convert(object, V1).metadata).toBeJson(metadata);
  });
});
