import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import {
  recalculateQuotaStatus,
  resourcesTrackedBy,
} from '../../../src/apiserver/admission/quota/recalculate.js';
import { resourceListToJson } from '../../../src/apiserver/admission/quota/resource-list.js';
import { usageOf } from '../../../src/apiserver/admission/quota/usage.js';

const PODS = { group: '', resource: 'pods' };

function pod(name: string, spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec, status };
}

const web = pod('web', {
  containers: [
    {
      name: 'a',
      resources: {
        requests: { cpu: '100m', memory: '64Mi' },
        limits: { cpu: '200m', 'example.com/gpu': '1' },
      },
    },
    { name: 'b', resources: { requests: { cpu: '300m', 'example.com/gpu': '1', 'hugepages-2Mi': '4Mi' } } },
  ],
  initContainers: [{ name: 'init', resources: { requests: { cpu: '1' } } }],
  overhead: { cpu: '50m' },
});

describe('usageOf', () => {
  it('counts pod compute usage: containers summed, init containers as a floor, overhead added', () => {
    expect(resourceListToJson(usageOf(PODS, web))).toEqual({
      'count/pods': '1',
      cpu: '1050m',
      'hugepages-2Mi': '4Mi',
      'limits.cpu': '250m',
      memory: '64Mi',
      pods: '1',
      'requests.cpu': '1050m',
      'requests.example.com/gpu': '1',
      'requests.hugepages-2Mi': '4Mi',
      'requests.memory': '64Mi',
    });
  });

  it('adds sidecars to the running total', () => {
    const withSidecar = pod('s', {
      containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }],
      initContainers: [{ name: 'side', restartPolicy: 'Always', resources: { requests: { cpu: '500m' } } }],
    });
    expect(usageOf(PODS, withSidecar)['requests.cpu']?.toString()).toBe('1500m');
  });

  it.each(['Succeeded', 'Failed'])('keeps only count/pods for a %s pod', (phase) => {
    expect(resourceListToJson(usageOf(PODS, { ...web, status: { phase } }))).toEqual({ 'count/pods': '1' });
  });

  it('stops charging a pod past its deletion grace period', () => {
    const deleting = {
      ...web,
      metadata: { name: 'w', deletionTimestamp: '2025-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 },
    };
    expect(Object.keys(usageOf(PODS, deleting, new Date('2025-01-01T00:00:10Z')))).toContain('pods');
    expect(Object.keys(usageOf(PODS, deleting, new Date('2025-01-01T00:01:00Z')))).toEqual(['count/pods']);
  });

  it.each([
    [
      { type: 'ClusterIP', ports: [{ port: 80 }] },
      { 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '0' },
    ],
    [
      { type: 'NodePort', ports: [{ port: 80 }, { port: 81 }] },
      { 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '2' },
    ],
    [
      { type: 'LoadBalancer', ports: [{ port: 80 }] },
      { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' },
    ],
    [
      {
        type: 'LoadBalancer',
        allocateLoadBalancerNodePorts: false,
        ports: [{ port: 80 }, { port: 81, nodePort: 30001 }, { port: 82 }],
      },
      { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' },
    ],
  ])('service %j', (spec, expected) => {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec };
    expect(resourceListToJson(usageOf({ group: '', resource: 'services' }, service))).toEqual(expected);
  });

  it('charges claims overall and to their storage class, in whole bytes', () => {
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'c', annotations: { 'volume.beta.kubernetes.io/storage-class': 'gold' } },
      spec: { storageClassName: 'silver', resources: { requests: { storage: '1500m' } } },
    };
    expect(resourceListToJson(usageOf({ group: '', resource: 'persistentvolumeclaims' }, claim))).toEqual({
      'count/persistentvolumeclaims': '1',
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'gold.storageclass.storage.k8s.io/requests.storage': '2',
      persistentvolumeclaims: '1',
      'requests.storage': '2',
    });
  });

  it('counts other objects by count/<resource>.<group>', () => {
    const object = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } };
    expect(resourceListToJson(usageOf({ group: 'apps', resource: 'deployments' }, object))).toEqual({
      'count/deployments.apps': '1',
    });
    expect(resourceListToJson(usageOf({ group: '', resource: 'secrets' }, object))).toEqual({
      'count/secrets': '1',
      secrets: '1',
    });
  });
});

describe('recalculateQuotaStatus', () => {
  it('lists the resources the hard names are measured on', () => {
    expect(
      resourcesTrackedBy([
        'requests.cpu',
        'pods',
        'count/configmaps',
        'secrets',
        'services.nodeports',
        'count/jobs.batch',
      ]),
    ).toEqual([
      { group: '', resource: 'pods' },
      { group: '', resource: 'configmaps' },
      { group: '', resource: 'secrets' },
      { group: '', resource: 'services' },
      { group: 'batch', resource: 'jobs' },
    ]);
  });

  it('sums usage of the selected objects and zeroes what nothing consumes', () => {
    const quota = {
      metadata: { name: 'q' },
      spec: {
        hard: { pods: '10', 'requests.cpu': '4', 'limits.memory': '8Gi', configmaps: '5' },
        scopes: ['NotBestEffort'],
      },
      status: { used: { pods: '9', stale: '3' } },
    };
    const objects: Record<string, KubeObject[]> = {
      pods: [
        pod('a', { containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }] }),
        pod('b', { containers: [{ name: 'b', resources: { requests: { cpu: '500m' } } }] }),
        pod(
          'done',
          { containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] },
          { phase: 'Succeeded' },
        ),
        pod('besteffort', { containers: [{ name: 'd' }] }),
      ],
      configmaps: [{ metadata: { name: 'x' } }],
    };
    expect(recalculateQuotaStatus(quota, (resource) => objects[resource.resource] ?? [])).toEqual({
      hard: { configmaps: '5', 'limits.memory': '8Gi', pods: '10', 'requests.cpu': '4' },
      // Scoped quotas match no configmaps, so that count is zero.
      used: { configmaps: '0', 'limits.memory': '0', pods: '2', 'requests.cpu': '1500m' },
    });
  });
});
