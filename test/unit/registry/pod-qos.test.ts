import { describe, expect, it } from 'vitest';
import { podQosClass } from '../../../src/api/pod-qos.js';

const c = (requests?: Record<string, string>, limits?: Record<string, string>) => ({
  resources: { requests, limits },
});

describe('pod QoS class', () => {
  it.each([
    ['no resources at all', { containers: [c()] }, 'BestEffort'],
    [
      'only extended resources',
      { containers: [c({ 'nvidia.com/gpu': '1' }, { 'nvidia.com/gpu': '1' })] },
      'BestEffort',
    ],
    ['zero requests count as none', { containers: [c({ cpu: '0' })] }, 'BestEffort'],
    [
      'requests equal limits for cpu and memory',
      { containers: [c({ cpu: '500m', memory: '128Mi' }, { cpu: '0.5', memory: '128Mi' })] },
      'Guaranteed',
    ],
    ['limit on cpu only', { containers: [c({ cpu: '1' }, { cpu: '1' })] }, 'Burstable'],
    [
      'requests below limits',
      { containers: [c({ cpu: '100m', memory: '64Mi' }, { cpu: '1', memory: '64Mi' })] },
      'Burstable',
    ],
    [
      'one of two containers without limits',
      { containers: [c({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }), c()] },
      'Burstable',
    ],
    [
      'init container counts too',
      {
        containers: [c({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })],
        initContainers: [c({ cpu: '100m' })],
      },
      'Burstable',
    ],
  ])('%s', (_name, spec, expected) => {
    expect(podQosClass(spec)).toBe(expected);
  });
});
