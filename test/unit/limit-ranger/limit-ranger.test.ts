import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import {
  applyLimitRangeDefaults,
  type LimitRange,
  type LimitRangeItem,
  validateAgainstLimitRanges,
} from '../../../src/apiserver/admission/limit-ranger/index.js';

function range(...limits: LimitRangeItem[]): LimitRange {
  return { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits } };
}

function pod(
  containers: Record<string, unknown>[],
  initContainers: Record<string, unknown>[] = [],
): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers, initContainers } };
}

describe('applyLimitRangeDefaults', () => {
  it('fills unset requests and limits and records them in an annotation', () => {
    const target = pod(
      [
        { name: 'web', image: 'nginx' },
        { name: 'side', image: 'x', resources: { limits: { cpu: '2' }, requests: { cpu: '2' } } },
      ],
      [{ name: 'setup', image: 'x', resources: { requests: { memory: '1Gi' } } }],
    );
    applyLimitRangeDefaults(target, [
      range(
        {
          type: 'Container',
          default: { cpu: '500m', memory: '256Mi' },
          defaultRequest: { cpu: '0.1', memory: '128Mi' },
        },
        { type: 'Pod', max: { cpu: '4' } },
      ),
    ]);
    expect(target.spec).toEqual({
      containers: [
        {
          name: 'web',
          image: 'nginx',
          resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
        },
        {
          name: 'side',
          image: 'x',
          resources: { limits: { cpu: '2', memory: '256Mi' }, requests: { cpu: '2', memory: '128Mi' } },
        },
      ],
      initContainers: [
        {
          name: 'setup',
          image: 'x',
          resources: { requests: { memory: '1Gi', cpu: '100m' }, limits: { cpu: '500m', memory: '256Mi' } },
        },
      ],
    });
    expect(target.metadata?.annotations).toEqual({
      'kubernetes.io/limit-ranger':
        'LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web; ' +
        'memory request for container side; memory limit for container side; ' +
        'cpu request for init container setup; cpu, memory limit for init container setup',
    });
  });

  it('lets the first LimitRange decide and leaves pods alone when nothing is set', () => {
    const target = pod([{ name: 'web' }]);
    applyLimitRangeDefaults(target, [
      range({ type: 'Container', default: { cpu: '1' } }),
      range({ type: 'Container', default: { cpu: '2', memory: '1Gi' } }),
    ]);
    expect((target.spec as { containers: unknown[] }).containers[0]).toEqual({
      name: 'web',
      resources: { limits: { cpu: '1', memory: '1Gi' } },
    });
    expect(target.metadata?.annotations?.['kubernetes.io/limit-ranger']).toBe(
      'LimitRanger plugin set: memory limit for container web',
    );
    const untouched = pod([{ name: 'web' }]);
    applyLimitRangeDefaults(untouched, [range({ type: 'Pod', max: { cpu: '1' } })]);
    expect(untouched.metadata).toEqual({ name: 'p' });
  });
});

describe('validateAgainstLimitRanges', () => {
  const container = (requests: Record<string, string>, limits: Record<string, string>) => ({
    name: 'c',
    resources: { requests, limits },
  });

  it.each([
    {
      title: 'container limit over max',
      item: { type: 'Container', max: { cpu: '1' } },
      object: pod([container({ cpu: '500m' }, { cpu: '2' })]),
      message: 'maximum cpu usage per Container is 1, but limit is 2',
    },
    {
      title: 'container without a limit under max',
      item: { type: 'Container', max: { memory: '1Gi' } },
      object: pod([container({ memory: '1Gi' }, {})]),
      message: 'maximum memory usage per Container is 1Gi.  No limit is specified',
    },
    {
      title: 'container request under min',
      item: { type: 'Container', min: { memory: '100Mi' } },
      object: pod([container({ memory: '50Mi' }, { memory: '200Mi' })]),
      message: 'minimum memory usage per Container is 100Mi, but request is 50Mi',
    },
    {
      title: 'container without a request under min',
      item: { type: 'Container', min: { cpu: '100m' } },
      object: pod([container({}, { cpu: '1' })]),
      message: 'minimum cpu usage per Container is 100m.  No request is specified',
    },
    {
      title: 'ratio too high',
      item: { type: 'Container', maxLimitRequestRatio: { cpu: '2' } },
      object: pod([container({ cpu: '250m' }, { cpu: '1' })]),
      message: 'cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000',
    },
    {
      title: 'ratio without a request',
      item: { type: 'Container', maxLimitRequestRatio: { memory: '2' } },
      object: pod([container({}, { memory: '1Gi' })]),
      message:
        'memory max limit to request ratio per Container is 2, but no request is specified or request is 0',
    },
    {
      title: 'pod total over max',
      item: { type: 'Pod', max: { cpu: '1' } },
      object: pod([container({ cpu: '600m' }, { cpu: '600m' }), container({ cpu: '600m' }, { cpu: '600m' })]),
      message: 'maximum cpu usage per Pod is 1, but limit is 1200m',
    },
    {
      title: 'several violations together',
      item: { type: 'Container', max: { cpu: '1', memory: '1Gi' } },
      object: pod([container({ cpu: '2', memory: '2Gi' }, { cpu: '2', memory: '2Gi' })]),
      message:
        '[maximum cpu usage per Container is 1, but limit is 2, maximum memory usage per Container is 1Gi, but limit is 2Gi]',
    },
    {
      title: 'claim over max storage',
      kind: 'PersistentVolumeClaim',
      item: { type: 'PersistentVolumeClaim', max: { storage: '2Gi' } },
      object: { kind: 'PersistentVolumeClaim', spec: { resources: { requests: { storage: '5Gi' } } } },
      message: 'maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi',
    },
    {
      title: 'claim under min storage',
      kind: 'PersistentVolumeClaim',
      item: { type: 'PersistentVolumeClaim', min: { storage: '1Gi' } },
      object: { kind: 'PersistentVolumeClaim', spec: { resources: { requests: { storage: '500Mi' } } } },
      message: 'minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi',
    },
  ])('$title', ({ kind, item, object, message }) => {
    expect(validateAgainstLimitRanges(kind ?? 'Pod', object, [range(item)])).toBe(message);
  });

  it('accepts objects inside every range', () => {
    const ranges = [
      range(
        { type: 'Container', min: { cpu: '100m' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '4' } },
        { type: 'Pod', max: { cpu: '4' } },
        { type: 'PersistentVolumeClaim', max: { storage: '10Gi' } },
      ),
    ];
    expect(
      validateAgainstLimitRanges('Pod', pod([container({ cpu: '500m' }, { cpu: '2' })]), ranges),
    ).toBeUndefined();
    const claim = { spec: { resources: { requests: { storage: '10Gi' } } } };
    expect(validateAgainstLimitRanges('PersistentVolumeClaim', claim, ranges)).toBeUndefined();
    expect(validateAgainstLimitRanges('ConfigMap', {}, ranges)).toBeUndefined();
  });
});
