import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { columnsFor, printTable } from '../../../src/apiserver/printers/index.js';
import { ago, NOW } from './helpers.js';

const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

function pod(name: string, resourceVersion: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion,
      creationTimestamp: ago({ m: 1 }),
    },
    spec: { containers: [{ name: 'app', image: 'nginx' }] },
    status: { phase: 'Pending' },
  };
}

/** Column names and priorities, as `NAME:0`. */
function headers(group: string, kind: string): string[] {
  return columnsFor(group, kind).map((column) => `${column.name}:${column.priority}`);
}

describe('printTable', () => {
  it('returns a meta.k8s.io/v1 Table with the rows in input order', () => {
    const table = printTable('', 'Pod', [pod('b', '11'), pod('a', '12')], {
      now: NOW,
      includeObject: 'None',
      listMeta: { resourceVersion: '42', continue: 'next-token', remainingItemCount: 3 },
    });
    expect(table.kind).toBe('Table');
    expect(table.apiVersion).toBe('meta.k8s.io/v1');
    expect(table.metadata).toEqual({ resourceVersion: '42', continue: 'next-token', remainingItemCount: 3 });
    expect(table.rows?.map((row) => row.cells[0])).toEqual(['b', 'a']);
    expect(table.columnDefinitions?.[0]).toEqual({
      name: 'Name',
      type: 'string',
      format: 'name',
      description: NAME_DOC,
      priority: 0,
    });
  });

  it('carries the resourceVersion of a single object and leaves empty list metadata out', () => {
    const single = printTable('', 'Pod', [pod('a', '77')], { now: NOW, includeObject: 'None' });
    expect(single.metadata).toEqual({ resourceVersion: '77' });
    const list = printTable('', 'Pod', [], {
      now: NOW,
      includeObject: 'None',
      listMeta: { resourceVersion: '9' },
    });
    expect(list.metadata).toEqual({ resourceVersion: '9' });
    expect(list.rows).toEqual([]);
  });

  it('puts the object, its metadata or null in each row as includeObject asks', () => {
    const object = pod('a', '5');
    const full = printTable('', 'Pod', [object], { now: NOW, includeObject: 'Object' });
    expect(full.rows?.[0]?.object).toBe(object);
    const partial = printTable('', 'Pod', [object], { now: NOW, includeObject: 'Metadata' });
    expect(partial.rows?.[0]?.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: object.metadata,
    });
    const none = printTable('', 'Pod', [object], { now: NOW, includeObject: 'None' });
    expect(none.rows?.[0]).toHaveProperty('object', null);
    expect(JSON.parse(JSON.stringify(none)).rows[0].object).toBeNull();
  });

  it('speaks meta.k8s.io/v1beta1 when asked to', () => {
    const table = printTable('', 'Pod', [pod('a', '5')], {
      now: NOW,
      includeObject: 'Metadata',
      metaGroupVersion: 'meta.k8s.io/v1beta1',
    });
    expect(table.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(table.rows?.[0]?.object).toMatchObject({ apiVersion: 'meta.k8s.io/v1beta1' });
  });

  it('sends null column definitions when headers are not wanted', () => {
    const table = printTable('', 'Pod', [pod('a', '5')], {
      now: NOW,
      includeObject: 'None',
      noHeaders: true,
    });
    expect(table.columnDefinitions).toBeNull();
    expect(table.rows).toHaveLength(1);
  });

  it('gives kinds without a printer the default NAME / CREATED AT table', () => {
    const role: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader', creationTimestamp: '2025-05-30T10:00:00Z', resourceVersion: '3' },
      rules: [],
    };
    const table = printTable('rbac.authorization.k8s.io', 'Role', [role], {
      now: NOW,
      includeObject: 'None',
    });
    expect(table.columnDefinitions?.map((c) => [c.name, c.type, c.format])).toEqual([
      ['Name', 'string', 'name'],
      ['Created At', 'date', ''],
    ]);
    expect(table.rows?.[0]?.cells).toEqual(['reader', '2025-05-30T10:00:00Z']);
    const noTimestamp = printTable('', 'LimitRange', [{ metadata: { name: 'limits' } }], {
      now: NOW,
      includeObject: 'None',
    });
    expect(noTimestamp.rows?.[0]?.cells).toEqual(['limits', '0001-01-01T00:00:00Z']);
    // The default convertor starts from a nil slice of rows.
    expect(printTable('', 'LimitRange', [], { now: NOW, includeObject: 'None' }).rows).toBeNull();
  });

  it('lists flow schemas by matching precedence, then name', () => {
    const schema = (name: string, matchingPrecedence: number): KubeObject => ({
      metadata: { name, creationTimestamp: ago({ d: 1 }) },
      spec: { matchingPrecedence, priorityLevelConfiguration: { name: 'workload-low' } },
    });
    const table = printTable(
      'flowcontrol.apiserver.k8s.io',
      'FlowSchema',
      [schema('service-accounts', 9000), schema('exempt', 1), schema('catch-all', 10000), schema('b', 9000)],
      { now: NOW, includeObject: 'None' },
    );
    expect(table.rows?.map((row) => row.cells[0])).toEqual(['exempt', 'b', 'service-accounts', 'catch-all']);
  });
});

describe('columnsFor', () => {
  it.each([
    [
      '',
      'Pod',
      [
        'Name:0',
        'Ready:0',
        'Status:0',
        'Restarts:0',
        'Age:0',
        'IP:1',
        'Node:1',
        'Nominated Node:1',
        'Readiness Gates:1',
      ],
    ],
    [
      'apps',
      'Deployment',
      ['Name:0', 'Ready:0', 'Up-to-date:0', 'Available:0', 'Age:0', 'Containers:1', 'Images:1', 'Selector:1'],
    ],
    [
      'apps',
      'ReplicaSet',
      ['Name:0', 'Desired:0', 'Current:0', 'Ready:0', 'Age:0', 'Containers:1', 'Images:1', 'Selector:1'],
    ],
    ['apps', 'StatefulSet', ['Name:0', 'Ready:0', 'Age:0', 'Containers:1', 'Images:1']],
    [
      'apps',
      'DaemonSet',
      [
        'Name:0',
        'Desired:0',
        'Current:0',
        'Ready:0',
        'Up-to-date:0',
        'Available:0',
        'Node Selector:0',
        'Age:0',
        'Containers:1',
        'Images:1',
        'Selector:1',
      ],
    ],
    [
      '',
      'Service',
      ['Name:0', 'Type:0', 'Cluster-IP:0', 'External-IP:0', 'Port(s):0', 'Age:0', 'Selector:1'],
    ],
    [
      '',
      'Node',
      [
        'Name:0',
        'Status:0',
        'Roles:0',
        'Age:0',
        'Version:0',
        'Internal-IP:1',
        'External-IP:1',
        'OS-Image:1',
        'Kernel-Version:1',
        'Container-Runtime:1',
      ],
    ],
    ['', 'Namespace', ['Name:0', 'Status:0', 'Age:0']],
    ['', 'ConfigMap', ['Name:0', 'Data:0', 'Age:0']],
    ['', 'Secret', ['Name:0', 'Type:0', 'Data:0', 'Age:0']],
    [
      '',
      'Event',
      [
        'Last Seen:0',
        'Type:0',
        'Reason:0',
        'Object:0',
        'Subobject:1',
        'Source:1',
        'Message:0',
        'First Seen:1',
        'Count:1',
        'Name:1',
      ],
    ],
    [
      'batch',
      'Job',
      [
        'Name:0',
        'Status:0',
        'Completions:0',
        'Duration:0',
        'Age:0',
        'Containers:1',
        'Images:1',
        'Selector:1',
      ],
    ],
    [
      'batch',
      'CronJob',
      [
        'Name:0',
        'Schedule:0',
        'Timezone:0',
        'Suspend:0',
        'Active:0',
        'Last Schedule:0',
        'Age:0',
        'Containers:1',
        'Images:1',
        'Selector:1',
      ],
    ],
    ['networking.k8s.io', 'Ingress', ['Name:0', 'Class:0', 'Hosts:0', 'Address:0', 'Ports:0', 'Age:0']],
    [
      '',
      'PersistentVolume',
      [
        'Name:0',
        'Capacity:0',
        'Access Modes:0',
        'Reclaim Policy:0',
        'Status:0',
        'Claim:0',
        'StorageClass:0',
        'VolumeAttributesClass:0',
        'Reason:0',
        'Age:0',
        'VolumeMode:1',
      ],
    ],
    [
      '',
      'PersistentVolumeClaim',
      [
        'Name:0',
        'Status:0',
        'Volume:0',
        'Capacity:0',
        'Access Modes:0',
        'StorageClass:0',
        'VolumeAttributesClass:0',
        'Age:0',
        'VolumeMode:1',
      ],
    ],
    ['', 'Endpoints', ['Name:0', 'Endpoints:0', 'Age:0']],
    [
      'autoscaling',
      'HorizontalPodAutoscaler',
      ['Name:0', 'Reference:0', 'Targets:0', 'MinPods:0', 'MaxPods:0', 'Replicas:0', 'Age:0'],
    ],
    ['rbac.authorization.k8s.io', 'ClusterRole', ['Name:0', 'Created At:0']],
  ])('%s %s', (group, kind, expected) => {
    expect(headers(group, kind)).toEqual(expected);
  });

  it('describes columns as Kubernetes does', () => {
    const pods = columnsFor('', 'Pod');
    expect(pods.find((c) => c.name === 'IP')?.description).toBe(
      'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
    );
    expect(pods.find((c) => c.name === 'Restarts')).toMatchObject({ type: 'string', format: '' });
    const upToDate = columnsFor('apps', 'Deployment').find((c) => c.name === 'Up-to-date');
    expect(upToDate?.description).toBe(
      'Total number of non-terminating pods targeted by this deployment that have the desired template spec.',
    );
    expect(columnsFor('', 'Event').find((c) => c.name === 'Name')).toMatchObject({
      format: 'name',
      priority: 1,
    });
    expect(columnsFor('node.k8s.io', 'RuntimeClass').find((c) => c.name === 'Handler')?.description).toBe('');
  });

  it('hands out copies that callers may change', () => {
    const columns = columnsFor('', 'Pod');
    columns[0]!.name = 'changed';
    expect(columnsFor('', 'Pod')[0]?.name).toBe('Name');
  });
});

describe('every printer', () => {
  const kinds: [string, string][] = [
    ['', 'Pod'],
    ['', 'PodTemplate'],
    ['', 'ReplicationController'],
    ['', 'Service'],
    ['', 'Endpoints'],
    ['', 'Node'],
    ['', 'Event'],
    ['', 'Namespace'],
    ['', 'Secret'],
    ['', 'ServiceAccount'],
    ['', 'PersistentVolume'],
    ['', 'PersistentVolumeClaim'],
    ['', 'ComponentStatus'],
    ['', 'ConfigMap'],
    ['', 'ResourceQuota'],
    ['apps', 'ReplicaSet'],
    ['apps', 'DaemonSet'],
    ['apps', 'StatefulSet'],
    ['apps', 'Deployment'],
    ['apps', 'ControllerRevision'],
    ['batch', 'Job'],
    ['batch', 'CronJob'],
    ['autoscaling', 'HorizontalPodAutoscaler'],
    ['autoscaling', 'Scale'],
    ['networking.k8s.io', 'Ingress'],
    ['networking.k8s.io', 'IngressClass'],
    ['networking.k8s.io', 'NetworkPolicy'],
    ['networking.k8s.io', 'ServiceCIDR'],
    ['discovery.k8s.io', 'EndpointSlice'],
    ['events.k8s.io', 'Event'],
    ['policy', 'PodDisruptionBudget'],
    ['rbac.authorization.k8s.io', 'RoleBinding'],
    ['rbac.authorization.k8s.io', 'ClusterRoleBinding'],
    ['rbac.authorization.k8s.io', 'Role'],
    ['certificates.k8s.io', 'CertificateSigningRequest'],
    ['certificates.k8s.io', 'ClusterTrustBundle'],
    ['coordination.k8s.io', 'Lease'],
    ['coordination.k8s.io', 'LeaseCandidate'],
    ['storage.k8s.io', 'StorageClass'],
    ['storage.k8s.io', 'VolumeAttributesClass'],
    ['storage.k8s.io', 'VolumeAttachment'],
    ['storage.k8s.io', 'CSINode'],
    ['storage.k8s.io', 'CSIDriver'],
    ['storage.k8s.io', 'CSIStorageCapacity'],
    ['scheduling.k8s.io', 'PriorityClass'],
    ['node.k8s.io', 'RuntimeClass'],
    ['admissionregistration.k8s.io', 'MutatingWebhookConfiguration'],
    ['admissionregistration.k8s.io', 'ValidatingWebhookConfiguration'],
    ['admissionregistration.k8s.io', 'ValidatingAdmissionPolicy'],
    ['admissionregistration.k8s.io', 'ValidatingAdmissionPolicyBinding'],
    ['admissionregistration.k8s.io', 'MutatingAdmissionPolicy'],
    ['admissionregistration.k8s.io', 'MutatingAdmissionPolicyBinding'],
    ['flowcontrol.apiserver.k8s.io', 'FlowSchema'],
    ['flowcontrol.apiserver.k8s.io', 'PriorityLevelConfiguration'],
    ['internal.apiserver.k8s.io', 'StorageVersion'],
    ['resource.k8s.io', 'DeviceClass'],
    ['resource.k8s.io', 'ResourceClaim'],
    ['resource.k8s.io', 'ResourceClaimTemplate'],
    ['resource.k8s.io', 'ResourceSlice'],
    ['storagemigration.k8s.io', 'StorageVersionMigration'],
  ];

  it.each(kinds)('%s %s prints one cell per column, even for a bare object', (group, kind) => {
    const bare: KubeObject = { metadata: { name: 'x', creationTimestamp: ago({ m: 1 }) } };
    const table = printTable(group, kind, [bare], { now: NOW, includeObject: 'None' });
    expect(table.rows?.[0]?.cells).toHaveLength(table.columnDefinitions?.length ?? -1);
    expect(table.columnDefinitions?.every((c) => c.description !== undefined && c.type !== undefined)).toBe(
      true,
    );
  });

  it('IPAddress keeps Kubernetes’ extra age cell beyond its two columns', () => {
    const address: KubeObject = {
      metadata: { name: '10.96.0.1', creationTimestamp: ago({ m: 1 }) },
      spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'kubernetes' } },
    };
    const table = printTable('networking.k8s.io', 'IPAddress', [address], {
      now: NOW,
      includeObject: 'None',
    });
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'ParentRef']);
    expect(table.rows?.[0]?.cells).toEqual(['10.96.0.1', 'services/default/kubernetes', '60s']);
  });
});
