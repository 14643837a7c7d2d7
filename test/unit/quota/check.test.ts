import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { checkQuotas } from '../../../src/apiserver/admission/quota/check.js';
import type { ResourceQuota } from '../../../src/apiserver/admission/quota/types.js';

const PODS = { group: '', resource: 'pods' };

function quota(
  name: string,
  hard: Record<string, string>,
  used: Record<string, string>,
  spec: ResourceQuota['spec'] = {},
): ResourceQuota {
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name, namespace: 'default' },
    spec: { hard, ...spec },
    status: { hard, used },
  };
}

function pod(resources: Record<string, unknown>[], extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: resources.map((r, i) => ({ name: `c${i}`, image: 'x', resources: r })), ...extra },
  };
}

const twoCpu = { requests: { cpu: '2', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } };

describe('checkQuotas', () => {
  it.each([
    {
      title: 'cpu requests over the quota',
      quotas: [quota('compute', { 'requests.cpu': '2' }, { 'requests.cpu': '1' })],
      resource: PODS,
      object: pod([twoCpu]),
      message:
        'exceeded quota: compute, requested: requests.cpu=2, used: requests.cpu=1, limited: requests.cpu=2',
    },
    {
      title: 'several names over, printed sorted',
      quotas: [
        quota(
          'compute',
          { 'requests.cpu': '2', 'requests.memory': '1Gi', pods: '10' },
          { 'requests.cpu': '500m', 'requests.memory': '512Mi', pods: '1' },
        ),
      ],
      resource: PODS,
      object: pod([twoCpu]),
      message:
        'exceeded quota: compute, requested: requests.cpu=2,requests.memory=1Gi, used: requests.cpu=500m,requests.memory=512Mi, limited: requests.cpu=2,requests.memory=1Gi',
    },
    {
      title: 'configmap count by count/configmaps',
      quotas: [quota('objects', { 'count/configmaps': '2' }, { 'count/configmaps': '2' })],
      resource: { group: '', resource: 'configmaps' },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
      message:
        'exceeded quota: objects, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2',
    },
    {
      title: 'configmap count by the legacy name',
      quotas: [quota('objects', { configmaps: '0' }, { configmaps: '0' })],
      resource: { group: '', resource: 'configmaps' },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
      message: 'exceeded quota: objects, requested: configmaps=1, used: configmaps=0, limited: configmaps=0',
    },
    {
      title: 'count of a resource in a named group',
      quotas: [quota('jobs', { 'count/jobs.batch': '1' }, { 'count/jobs.batch': '1' })],
      resource: { group: 'batch', resource: 'jobs' },
      object: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' } },
      message:
        'exceeded quota: jobs, requested: count/jobs.batch=1, used: count/jobs.batch=1, limited: count/jobs.batch=1',
    },
    {
      title: 'node ports of a NodePort service',
      quotas: [
        quota(
          'svc',
          { 'services.nodeports': '2', services: '5' },
          { 'services.nodeports': '1', services: '1' },
        ),
      ],
      resource: { group: '', resource: 'services' },
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's' },
        spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 443 }] },
      },
      message:
        'exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=1, limited: services.nodeports=2',
    },
    {
      title: 'limits not set while the quota tracks them',
      quotas: [
        quota(
          'compute',
          { 'limits.cpu': '4', 'limits.memory': '4Gi' },
          { 'limits.cpu': '0', 'limits.memory': '0' },
        ),
      ],
      resource: PODS,
      object: pod([{ requests: { cpu: '1' } }, { requests: { cpu: '1' }, limits: { cpu: '1' } }]),
      message: 'failed quota: compute: must specify limits.cpu for: c0; limits.memory for: c0,c1',
    },
    {
      title: 'a quota without used status',
      quotas: [quota('compute', { 'requests.cpu': '4', pods: '3' }, {})],
      resource: PODS,
      object: pod([twoCpu]),
      message: 'status unknown for quota: compute, resources: pods,requests.cpu',
    },
    {
      title: 'NotBestEffort quota charges a pod with requests',
      quotas: [quota('nbe', { pods: '1' }, { pods: '1' }, { scopes: ['NotBestEffort'] })],
      resource: PODS,
      object: pod([twoCpu]),
      message: 'exceeded quota: nbe, requested: pods=1, used: pods=1, limited: pods=1',
    },
    {
      title: 'BestEffort quota charges a pod without resources',
      quotas: [
        quota('be', { pods: '1' }, { pods: '1' }, { scopes: ['BestEffort'] }),
        quota('nbe', { pods: '0' }, { pods: '0' }, { scopes: ['NotBestEffort'] }),
      ],
      resource: PODS,
      object: pod([{}]),
      message: 'exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1',
    },
    {
      title: 'PriorityClass In selector',
      quotas: [
        quota(
          'high',
          { pods: '0' },
          { pods: '0' },
          {
            scopeSelector: {
              matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }],
            },
          },
        ),
      ],
      resource: PODS,
      object: pod([{}], { priorityClassName: 'high' }),
      message: 'exceeded quota: high, requested: pods=1, used: pods=0, limited: pods=0',
    },
  ])('rejects: $title', ({ quotas, resource, object, message }) => {
    expect(checkQuotas(quotas, resource, object)).toEqual({ ok: false, message });
  });

  it('returns the new used of every charged quota', () => {
    const quotas = [
      quota(
        'compute',
        { 'requests.cpu': '4', 'limits.memory': '4Gi', pods: '5' },
        {
          'requests.cpu': '500m',
          'limits.memory': '1Gi',
          pods: '1',
        },
      ),
      quota('objects', { 'count/configmaps': '5' }, { 'count/configmaps': '0' }),
    ];
    const object = pod([twoCpu, { requests: { cpu: '250m' }, limits: { memory: '512Mi' } }]);
    expect(checkQuotas(quotas, PODS, object)).toEqual({
      ok: true,
      updates: [
        { quotaName: 'compute', newUsed: { 'limits.memory': '2560Mi', pods: '2', 'requests.cpu': '2750m' } },
      ],
    });
  });

  it('skips quotas whose scopes do not select the object', () => {
    const quotas = [
      quota('be', { pods: '0' }, { pods: '0' }, { scopes: ['BestEffort'] }),
      quota('term', { pods: '0' }, { pods: '0' }, { scopes: ['Terminating'] }),
      quota('cm', { configmaps: '0' }, { configmaps: '0' }, { scopes: ['NotTerminating'] }),
    ];
    expect(checkQuotas(quotas, PODS, pod([twoCpu]))).toEqual({ ok: true, updates: [] });
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    expect(checkQuotas(quotas, { group: '', resource: 'configmaps' }, configMap)).toEqual({
      ok: true,
      updates: [],
    });
  });

  it('charges only the change on a service update', () => {
    const quotas = [
      quota(
        'svc',
        { 'services.loadbalancers': '1', services: '5' },
        { 'services.loadbalancers': '0', services: '1' },
      ),
    ];
    const old = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', resourceVersion: '7' },
      spec: { type: 'ClusterIP', ports: [{ port: 80 }] },
    };
    const next = { ...old, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } };
    expect(checkQuotas(quotas, { group: '', resource: 'services' }, next, old)).toEqual({
      ok: true,
      updates: [{ quotaName: 'svc', newUsed: { 'services.loadbalancers': '1', services: '1' } }],
    });
  });

  it('ignores pod updates and subresources other than resize', () => {
    const quotas = [quota('compute', { pods: '0' }, { pods: '0' })];
    const old = { ...pod([twoCpu]), metadata: { name: 'p', resourceVersion: '3' } };
    expect(checkQuotas(quotas, PODS, pod([twoCpu]), old)).toEqual({ ok: true, updates: [] });
    expect(checkQuotas(quotas, PODS, pod([twoCpu]), undefined, { subresource: 'status' })).toEqual({
      ok: true,
      updates: [],
    });
  });

  it('charges claims per storage class', () => {
    const quotas = [
      quota(
        'storage',
        { 'fast.storageclass.storage.k8s.io/requests.storage': '10Gi' },
        {
          'fast.storageclass.storage.k8s.io/requests.storage': '8Gi',
        },
      ),
    ];
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      spec: { storageClassName: 'fast', resources: { requests: { storage: '5Gi' } } },
    };
    expect(checkQuotas(quotas, { group: '', resource: 'persistentvolumeclaims' }, claim)).toEqual({
      ok: false,
      message:
        'exceeded quota: storage, requested: fast.storageclass.storage.k8s.io/requests.storage=5Gi, used: fast.storageclass.storage.k8s.io/requests.storage=8Gi, limited: fast.storageclass.storage.k8s.io/requests.storage=10Gi',
    });
  });
});
