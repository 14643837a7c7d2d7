import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { convert, storageVersionOf } from '../../../src/apiserver/conversion/index.js';
import './support.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe('storageVersionOf', () => {
  it('names the storage version of resources served by several group-versions', () => {
    expect(storageVersionOf('autoscaling', 'horizontalpodautoscalers')).toEqual({
      group: 'autoscaling',
      version: 'v2',
    });
    expect(storageVersionOf('events.k8s.io', 'events')).toEqual({ group: '', version: 'v1' });
    expect(storageVersionOf('', 'events')).toEqual({ group: '', version: 'v1' });
  });

  it('is undefined for resources stored as served', () => {
    expect(storageVersionOf('', 'pods')).toBeUndefined();
    expect(storageVersionOf('apps', 'deployments')).toBeUndefined();
    expect(storageVersionOf('autoscaling', 'events')).toBeUndefined();
  });
});

describe('convert', () => {
  const autoscaler: KubeObject = deepFreeze({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, annotations: { team: 'a' } },
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } },
        },
      ],
      behavior: {
        scaleUp: { selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
      },
    },
    status: { desiredReplicas: 1, currentMetrics: null },
  });

  it('never modifies its input and shares nothing with it', () => {
    const before = JSON.stringify(autoscaler);
    const v1 = convert(autoscaler, { group: 'autoscaling', version: 'v1' });
    const v2 = convert(autoscaler, { group: 'autoscaling', version: 'v2' });
    expect(JSON.stringify(autoscaler)).toBe(before);
    expect(v2).toBeJson(autoscaler);
    expect(v2).not.toBe(autoscaler);
    expect(v2.metadata).not.toBe(autoscaler.metadata);
    expect(v2.metadata?.labels).not.toBe(autoscaler.metadata?.labels);
    expect(v2.spec).not.toBe(autoscaler.spec);
    expect(v1.metadata?.labels).not.toBe(autoscaler.metadata?.labels);
    (v2.metadata?.labels as Record<string, string>).app = 'changed';
    expect(autoscaler.metadata?.labels).toEqual({ app: 'web' });
  });

  it('drops fields the version does not have, as decoding into Go types does', () => {
    const withUnknown = { ...autoscaler, spec: { ...(autoscaler.spec as object), extra: true }, surplus: 1 };
    expect(convert(withUnknown, { group: 'autoscaling', version: 'v2' })).toBeJson(autoscaler);
  });

  it('throws for kinds and versions it cannot convert', () => {
    expect(() => convert(autoscaler, { group: 'events.k8s.io', version: 'v1' })).toThrow(
      'cannot convert HorizontalPodAutoscaler from autoscaling/v2 to events.k8s.io/v1: it is served only as autoscaling/v2, autoscaling/v1',
    );
    expect(() => convert({ apiVersion: 'v1', kind: 'Pod' }, { group: '', version: 'v1' })).toThrow(
      'no conversion for kind "Pod" in apiVersion "v1"',
    );
    expect(() =>
      convert(
        { apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler' },
        { group: 'autoscaling', version: 'v2' },
      ),
    ).toThrow('no conversion for kind "HorizontalPodAutoscaler" in apiVersion "autoscaling/v2beta2"');
    expect(() => convert({ kind: 'Event' }, { group: '', version: 'v1' })).toThrow(
      'no conversion for kind "Event" in apiVersion undefined',
    );
  });
});
