import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { ago, cellsOf } from './helpers.js';

describe('node rows', () => {
  it('prints a ready control-plane node with its wide columns', () => {
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'tkube-control-plane',
        creationTimestamp: ago({ d: 2 }),
        labels: {
          'node-role.kubernetes.io/control-plane': '',
          'kubernetes.io/hostname': 'tkube-control-plane',
        },
      },
      status: {
        conditions: [
          { type: 'MemoryPressure', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
        addresses: [
          { type: 'Hostname', address: 'tkube-control-plane' },
          { type: 'InternalIP', address: '172.18.0.2' },
        ],
        nodeInfo: {
          kubeletVersion: 'v1.33.0',
          osImage: 'Debian GNU/Linux 12 (bookworm)',
          kernelVersion: '6.8.0-51-generic',
          containerRuntimeVersion: 'containerd://2.0.2',
        },
      },
    };
    expect(cellsOf('', 'Node', node)).toEqual([
      'tkube-control-plane',
      'Ready',
      'control-plane',
      '2d',
      'v1.33.0',
      '172.18.0.2',
      '<none>',
      'Debian GNU/Linux 12 (bookworm)',
      '6.8.0-51-generic',
      'containerd://2.0.2',
    ]);
  });

  it('prints NotReady, SchedulingDisabled, roles from both label forms and unknown versions', () => {
    const node: KubeObject = {
      metadata: {
        name: 'w1',
        creationTimestamp: ago({ m: 3 }),
        labels: {
          'kubernetes.io/role': 'worker',
          'node-role.kubernetes.io/infra': '',
          'node-role.kubernetes.io/': '',
        },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'Ready', status: 'Unknown' }],
        addresses: [{ type: 'ExternalIP', address: '203.0.113.4' }],
      },
    };
    expect(cellsOf('', 'Node', node)).toEqual([
      'w1',
      'NotReady,SchedulingDisabled',
      'infra,worker',
      '3m',
      '',
      '<none>',
      '203.0.113.4',
      '<unknown>',
      '<unknown>',
      '<unknown>',
    ]);
  });

  it('prints Unknown and <none> for a node that never reported', () => {
    const node: KubeObject = { metadata: { name: 'w2', creationTimestamp: ago({ s: 2 }) } };
    expect(cellsOf('', 'Node', node).slice(0, 4)).toEqual(['w2', 'Unknown', '<none>', '2s']);
  });
});

describe('namespace, config map, secret and service account rows', () => {
  it('prints namespaces with their phase', () => {
    const ns = (name: string, phase: string): KubeObject => ({
      metadata: { name, creationTimestamp: ago({ d: 30 }) },
      status: { phase },
    });
    expect(cellsOf('', 'Namespace', ns('default', 'Active'))).toEqual(['default', 'Active', '30d']);
    expect(cellsOf('', 'Namespace', ns('old', 'Terminating'))).toEqual(['old', 'Terminating', '30d']);
  });

  it('counts config map data and binary data together', () => {
    const cm: KubeObject = {
      metadata: { name: 'settings', creationTimestamp: ago({ m: 90 }) },
      data: { 'a.conf': 'x', 'b.conf': 'y' },
      binaryData: { logo: 'iVBORw0KGgo=' },
    };
    expect(cellsOf('', 'ConfigMap', cm)).toEqual(['settings', 3, '90m']);
    expect(cellsOf('', 'ConfigMap', { metadata: { name: 'empty', creationTimestamp: ago({}) } })).toEqual([
      'empty',
      0,
      '0s',
    ]);
  });

  it('prints the secret type and the number of data keys', () => {
    const secret: KubeObject = {
      metadata: { name: 'registry', creationTimestamp: ago({ h: 5 }) },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': 'e30=' },
    };
    expect(cellsOf('', 'Secret', secret)).toEqual(['registry', 'kubernetes.io/dockerconfigjson', 1, '5h']);
  });

  it('prints the number of secrets of a service account', () => {
    const sa: KubeObject = { metadata: { name: 'default', creationTimestamp: ago({ d: 9 }) } };
    expect(cellsOf('', 'ServiceAccount', sa)).toEqual(['default', 0, '9d']);
  });
});

describe('event rows', () => {
  const backOff: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'web-0.17f3a2b1c0d9e8f7', namespace: 'default', creationTimestamp: ago({ m: 10 }) },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0', fieldPath: 'spec.containers{app}' },
    reason: 'BackOff',
    message: 'Back-off restarting failed container app in pod web-0_default(1234)\n',
    source: { component: 'kubelet', host: 'tkube-worker' },
    firstTimestamp: ago({ m: 10 }),
    lastTimestamp: ago({ s: 60 }),
    count: 7,
    type: 'Warning',
  };

  it('prints a core event: last seen, type, reason, object, message, then the wide cells', () => {
    expect(cellsOf('', 'Event', backOff)).toEqual([
      '60s',
      'Warning',
      'BackOff',
      'pod/web-0',
      'spec.containers{app}',
      'kubelet, tkube-worker',
      'Back-off restarting failed container app in pod web-0_default(1234)',
      '10m',
      7,
      'web-0.17f3a2b1c0d9e8f7',
    ]);
  });

  it('prints events of the newer API: event time, series and reporting controller', () => {
    const scheduled: KubeObject = {
      metadata: { name: 'web-1.abc', creationTimestamp: ago({ m: 4 }) },
      involvedObject: { kind: 'Pod', name: 'web-1' },
      reason: 'FailedScheduling',
      message: '0/3 nodes are available',
      eventTime: '2025-06-01T11:56:00.000000Z',
      series: { count: 5, lastObservedTime: '2025-06-01T11:59:30.000001Z' },
      reportingController: 'default-scheduler',
      reportingInstance: 'default-scheduler-tkube',
      type: 'Warning',
    };
    const cells = cellsOf('', 'Event', scheduled);
    expect(cells.slice(0, 4)).toEqual(['29s', 'Warning', 'FailedScheduling', 'pod/web-1']);
    expect(cells.slice(5, 9)).toEqual([
      'default-scheduler, default-scheduler-tkube',
      '0/3 nodes are available',
      '4m',
      5,
    ]);
  });

  it('counts a singleton as 1 and prints a target without a name as its kind', () => {
    const started: KubeObject = {
      metadata: { name: 'tkube-worker.1', creationTimestamp: ago({ h: 1 }) },
      involvedObject: { kind: 'Node' },
      reason: 'Starting',
      source: { component: 'kube-proxy' },
      firstTimestamp: ago({ h: 1 }),
      type: 'Normal',
    };
    const cells = cellsOf('', 'Event', started);
    expect([cells[0], cells[3], cells[5], cells[8]]).toEqual(['60m', 'node', 'kube-proxy', 1]);
  });

  it('prints events.k8s.io events from their own field names', () => {
    const event: KubeObject = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'web-0.17f3a2b1c0d9e8f7', creationTimestamp: ago({ m: 10 }) },
      regarding: { kind: 'Pod', name: 'web-0', fieldPath: 'spec.containers{app}' },
      note: 'Back-off restarting failed container app in pod web-0_default(1234)',
      reason: 'BackOff',
      type: 'Warning',
      eventTime: null,
      deprecatedSource: { component: 'kubelet', host: 'tkube-worker' },
      deprecatedFirstTimestamp: ago({ m: 10 }),
      deprecatedLastTimestamp: ago({ s: 60 }),
      deprecatedCount: 7,
    };
    expect(cellsOf('events.k8s.io', 'Event', event)).toEqual(cellsOf('', 'Event', backOff));
  });
});

describe('persistent volume rows', () => {
  const pv: KubeObject = {
    metadata: { name: 'pvc-3f2a', creationTimestamp: ago({ d: 3 }) },
    spec: {
      capacity: { storage: '1024Mi' },
      accessModes: ['ReadOnlyMany', 'ReadWriteOnce', 'ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'standard',
      volumeMode: 'Filesystem',
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data-db-0' },
      hostPath: { path: '/var/local-path/pvc-3f2a' },
    },
    status: { phase: 'Bound' },
  };

  it('prints capacity, modes, policy, phase, claim and class', () => {
    expect(cellsOf('', 'PersistentVolume', pv)).toEqual([
      'pvc-3f2a',
      '1Gi',
      'RWO,ROX',
      'Delete',
      'Bound',
      'default/data-db-0',
      'standard',
      '<unset>',
      '',
      '3d',
      'Filesystem',
    ]);
  });

  it('prints Terminating, the status reason and the beta class annotation', () => {
    const released: KubeObject = {
      metadata: {
        name: 'old',
        creationTimestamp: ago({ d: 3 }),
        deletionTimestamp: ago({ s: 3 }),
        annotations: { 'volume.beta.kubernetes.io/storage-class': 'legacy' },
      },
      spec: {
        capacity: { storage: '5Gi' },
        accessModes: ['ReadWriteOncePod'],
        volumeAttributesClassName: 'gold',
      },
      status: { phase: 'Released', reason: 'Reclaiming' },
    };
    expect(cellsOf('', 'PersistentVolume', released)).toEqual([
      'old',
      '5Gi',
      'RWOP',
      '',
      'Terminating',
      '',
      'legacy',
      'gold',
      'Reclaiming',
      '3d',
      '<unset>',
    ]);
  });
});

describe('persistent volume claim rows', () => {
  it('prints a bound claim with the volume capacity and modes', () => {
    const pvc: KubeObject = {
      metadata: { name: 'data-db-0', creationTimestamp: ago({ d: 3 }) },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1Gi' } },
        storageClassName: 'standard',
        volumeMode: 'Filesystem',
        volumeName: 'pvc-3f2a',
      },
      status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } },
    };
    expect(cellsOf('', 'PersistentVolumeClaim', pvc)).toEqual([
      'data-db-0',
      'Bound',
      'pvc-3f2a',
      '1Gi',
      'RWO',
      'standard',
      '<unset>',
      '3d',
      'Filesystem',
    ]);
  });

  it('leaves capacity and modes empty until the claim is bound', () => {
    const pvc: KubeObject = {
      metadata: { name: 'scratch', creationTimestamp: ago({ s: 20 }) },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } },
      status: { phase: 'Pending' },
    };
    expect(cellsOf('', 'PersistentVolumeClaim', pvc)).toEqual([
      'scratch',
      'Pending',
      '',
      '',
      '',
      '',
      '<unset>',
      '20s',
      '<unset>',
    ]);
  });
});

describe('horizontal pod autoscaler rows', () => {
  function hpa(
    spec: Record<string, unknown>,
    status: Record<string, unknown>,
    apiVersion = 'autoscaling/v2',
  ): KubeObject {
    return {
      apiVersion,
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', creationTimestamp: ago({ m: 15 }) },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 10,
        ...spec,
      },
      status,
    };
  }
  const cpu80 = {
    type: 'Resource',
    resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
  };

  it('prints reference, targets, min and max pods and replicas', () => {
    const scaled = hpa(
      { minReplicas: 1, metrics: [cpu80] },
      {
        currentReplicas: 2,
        desiredReplicas: 2,
        currentMetrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', current: { averageUtilization: 45, averageValue: '90m' } },
          },
        ],
      },
    );
    expect(cellsOf('autoscaling', 'HorizontalPodAutoscaler', scaled)).toEqual([
      'web',
      'Deployment/web',
      'cpu: 45%/80%',
      '1',
      10,
      2,
      '15m',
    ]);
  });

  it('prints <unknown> before the first reading and counts metrics beyond two', () => {
    const memory = {
      type: 'Resource',
      resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } },
    };
    const pods = {
      type: 'Pods',
      pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '1k' } },
    };
    const fresh = hpa({ metrics: [cpu80, memory, pods] }, {});
    expect(cellsOf('autoscaling', 'HorizontalPodAutoscaler', fresh).slice(2, 6)).toEqual([
      'cpu: <unknown>/80%, memory: <unknown>/512Mi + 1 more...',
      '<unset>',
      10,
      0,
    ]);
    const measured = hpa(
      { metrics: [memory, pods] },
      {
        currentMetrics: [
          { type: 'Resource', resource: { name: 'memory', current: { averageValue: '314572800' } } },
          { type: 'Pods', pods: { metric: { name: 'rps' }, current: { averageValue: '1500m' } } },
        ],
      },
    );
    // The controller writes plain byte counts, which print as they are.
    expect(cellsOf('autoscaling', 'HorizontalPodAutoscaler', measured)[2]).toBe(
      'memory: 314572800/512Mi, 1500m/1k',
    );
  });

  it('prints external and object metrics, and <none> without metrics', () => {
    const external = {
      type: 'External',
      external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } },
    };
    const object = {
      type: 'Object',
      object: {
        metric: { name: 'hits' },
        describedObject: { kind: 'Ingress', name: 'site' },
        target: { type: 'Value', value: '2k' },
      },
    };
    const withStatus = hpa(
      { metrics: [external, object] },
      {
        currentMetrics: [
          { type: 'External', external: { current: { averageValue: '12' } } },
          { type: 'Object', object: { current: { value: '2500' } } },
        ],
      },
    );
    expect(cellsOf('autoscaling', 'HorizontalPodAutoscaler', withStatus)[2]).toBe('12/30 (avg), 2500/2k');
    expect(cellsOf('autoscaling', 'HorizontalPodAutoscaler', hpa({ metrics: [] }, {}))[2]).toBe('<none>');
  });

  it('prints an autoscaling/v1 object from its CPU fields', () => {
    const v1 = hpa(
      { minReplicas: 2, targetCPUUtilizationPercentage: 50 },
      { currentReplicas: 3, currentCPUUtilizationPercentage: 20 },
      'autoscaling/v1',
    );
    expect(cellsOf('autoscaling', 'HorizontalPodAutoscaler', v1).slice(2, 6)).toEqual([
      'cpu: 20%/50%',
      '2',
      10,
      3,
    ]);
  });
});
