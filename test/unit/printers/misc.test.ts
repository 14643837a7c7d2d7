import { describe, expect, it } from 'vitest';
import type { KubeObject, OwnerReference } from '../../../src/api/object.js';
import { ago, cellsOf } from './helpers.js';

const created = { creationTimestamp: ago({ h: 5 }) };

describe('RBAC bindings', () => {
  it('prints the role and, wide, the subjects by kind', () => {
    const binding: KubeObject = {
      metadata: { name: 'admins', ...created },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'system:masters' },
        { kind: 'ServiceAccount', namespace: 'kube-system', name: 'ops' },
        { kind: 'User', name: 'bob' },
      ],
    };
    expect(cellsOf('rbac.authorization.k8s.io', 'ClusterRoleBinding', binding)).toEqual([
      'admins',
      'ClusterRole/cluster-admin',
      '5h',
      'alice, bob',
      'system:masters',
      'kube-system/ops',
    ]);
    const empty: KubeObject = { metadata: { name: 'b', ...created }, roleRef: { kind: 'Role', name: 'r' } };
    expect(cellsOf('rbac.authorization.k8s.io', 'RoleBinding', empty)).toEqual([
      'b',
      'Role/r',
      '5h',
      '',
      '',
      '',
    ]);
  });
});

describe('storage classes and CSI', () => {
  it('marks the default class and fills in the default policies', () => {
    const standard: KubeObject = {
      metadata: {
        name: 'standard',
        ...created,
        annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
      },
      provisioner: 'rancher.io/local-path',
      volumeBindingMode: 'WaitForFirstConsumer',
    };
    expect(cellsOf('storage.k8s.io', 'StorageClass', standard)).toEqual([
      'standard (default)',
      'rancher.io/local-path',
      'Delete',
      'WaitForFirstConsumer',
      false,
      '5h',
    ]);
    const fast: KubeObject = {
      metadata: { name: 'fast', ...created },
      provisioner: 'ebs.csi.aws.com',
      reclaimPolicy: 'Retain',
      allowVolumeExpansion: true,
    };
    expect(cellsOf('storage.k8s.io', 'StorageClass', fast)).toEqual([
      'fast',
      'ebs.csi.aws.com',
      'Retain',
      'Immediate',
      true,
      '5h',
    ]);
  });

  it('prints CSI drivers with their defaults', () => {
    const driver: KubeObject = {
      metadata: { name: 'hostpath.csi.k8s.io', ...created },
      spec: {
        volumeLifecycleModes: ['Persistent', 'Ephemeral'],
        tokenRequests: [{ audience: 'vault' }, { audience: 'gcp' }],
      },
    };
    expect(cellsOf('storage.k8s.io', 'CSIDriver', driver)).toEqual([
      'hostpath.csi.k8s.io',
      true,
      false,
      false,
      'vault,gcp',
      false,
      'Persistent,Ephemeral',
      '5h',
    ]);
    const bare: KubeObject = { metadata: { name: 'd', ...created }, spec: { attachRequired: false } };
    expect(cellsOf('storage.k8s.io', 'CSIDriver', bare).slice(1, 7)).toEqual([
      false,
      false,
      false,
      '<unset>',
      false,
      '<none>',
    ]);
  });

  it('prints volume attachments and storage capacities', () => {
    const attachment: KubeObject = {
      metadata: { name: 'csi-123', ...created },
      spec: { attacher: 'ebs.csi.aws.com', nodeName: 'w1', source: { persistentVolumeName: 'pv-1' } },
      status: { attached: true },
    };
    expect(cellsOf('storage.k8s.io', 'VolumeAttachment', attachment)).toEqual([
      'csi-123',
      'ebs.csi.aws.com',
      'pv-1',
      'w1',
      true,
      '5h',
    ]);
    const capacity: KubeObject = {
      metadata: { name: 'csisc-1' },
      storageClassName: 'standard',
      capacity: '2048Mi',
    };
    expect(cellsOf('storage.k8s.io', 'CSIStorageCapacity', capacity)).toEqual(['csisc-1', 'standard', '2Gi']);
    expect(cellsOf('storage.k8s.io', 'CSIStorageCapacity', { metadata: { name: 'c' } })).toEqual([
      'c',
      '',
      '<unset>',
    ]);
  });
});

describe('policy, quota and revision rows', () => {
  it('prints PDB bounds as given, N/A when unset', () => {
    const pdb: KubeObject = {
      metadata: { name: 'web', ...created },
      spec: { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } },
      status: { disruptionsAllowed: 1 },
    };
    expect(cellsOf('policy', 'PodDisruptionBudget', pdb)).toEqual(['web', '50%', 'N/A', 1, '5h']);
    const byCount: KubeObject = { metadata: { name: 'db', ...created }, spec: { maxUnavailable: 1 } };
    expect(cellsOf('policy', 'PodDisruptionBudget', byCount)).toEqual(['db', 'N/A', '1', 0, '5h']);
  });

  it('splits quota usage into requests and limits, sorted by resource', () => {
    const quota: KubeObject = {
      metadata: { name: 'compute', ...created },
      status: {
        hard: { 'limits.memory': '2Gi', pods: '10', 'requests.cpu': '1', 'limits.cpu': '2' },
        used: { 'limits.memory': '512Mi', pods: '3', 'requests.cpu': '250m' },
      },
    };
    expect(cellsOf('', 'ResourceQuota', quota)).toEqual([
      'compute',
      'pods: 3/10, requests.cpu: 250m/1',
      'limits.cpu: 0/2, limits.memory: 512Mi/2Gi',
      '5h',
    ]);
  });

  it('names the controller of a revision with its kind and group', () => {
    const revision = (ownerReferences: OwnerReference[]): KubeObject => ({
      metadata: { name: 'web-7d9f', ...created, ownerReferences },
      revision: 3,
    });
    const owned = revision([
      { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'web', uid: 'u', controller: true },
    ]);
    expect(cellsOf('apps', 'ControllerRevision', owned)).toEqual(['web-7d9f', 'daemonset.apps/web', 3, '5h']);
    const core = revision([{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: true }]);
    expect(cellsOf('apps', 'ControllerRevision', core)[1]).toBe('pod/p');
    const notController = revision([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u' }]);
    expect(cellsOf('apps', 'ControllerRevision', notController)[1]).toBe('<none>');
  });
});

describe('certificates, coordination, scheduling and node rows', () => {
  it('prints a CSR with its condition summary and requested duration', () => {
    const csr = (status: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject => ({
      metadata: { name: 'csr-x', ...created },
      spec: {
        signerName: 'kubernetes.io/kube-apiserver-client',
        username: 'alice',
        request: 'LS0t',
        ...spec,
      },
      status,
    });
    expect(
      cellsOf('certificates.k8s.io', 'CertificateSigningRequest', csr({}, { expirationSeconds: 86400 })),
    ).toEqual(['csr-x', '5h', 'kubernetes.io/kube-apiserver-client', 'alice', '24h', 'Pending']);
    const issued = csr({
      conditions: [{ type: 'Approved', status: 'True' }],
      certificate: 'LS0tLS1CRUdJTg==',
    });
    expect(cellsOf('certificates.k8s.io', 'CertificateSigningRequest', issued).slice(4)).toEqual([
      '<none>',
      'Approved,Issued',
    ]);
    const denied = csr({
      conditions: [
        { type: 'Approved', status: 'True' },
        { type: 'Denied', status: 'True' },
        { type: 'Failed', status: 'True' },
      ],
    });
    expect(cellsOf('certificates.k8s.io', 'CertificateSigningRequest', denied)[5]).toBe('Denied,Failed');
  });

  it('prints leases, priority classes and runtime classes', () => {
    const lease: KubeObject = {
      metadata: { name: 'kube-scheduler', ...created },
      spec: { holderIdentity: 'tkube_1a2b' },
    };
    expect(cellsOf('coordination.k8s.io', 'Lease', lease)).toEqual(['kube-scheduler', 'tkube_1a2b', '5h']);
    const priority: KubeObject = {
      metadata: { name: 'system-cluster-critical', ...created },
      value: 2000000000,
      preemptionPolicy: 'PreemptLowerPriority',
    };
    expect(cellsOf('scheduling.k8s.io', 'PriorityClass', priority)).toEqual([
      'system-cluster-critical',
      2000000000,
      false,
      '5h',
      'PreemptLowerPriority',
    ]);
    const runtime: KubeObject = { metadata: { name: 'gvisor', ...created }, handler: 'runsc' };
    expect(cellsOf('node.k8s.io', 'RuntimeClass', runtime)).toEqual(['gvisor', 'runsc', '5h']);
  });
});

describe('admission and flow control rows', () => {
  it('counts webhooks and validations and prints param kinds and refs', () => {
    const webhooks: KubeObject = { metadata: { name: 'cert-manager', ...created }, webhooks: [{}, {}] };
    expect(cellsOf('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', webhooks)).toEqual([
      'cert-manager',
      2,
      '5h',
    ]);
    const policy: KubeObject = {
      metadata: { name: 'replica-limit', ...created },
      spec: {
        paramKind: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' },
        validations: [{ expression: 'true' }],
      },
    };
    expect(cellsOf('admissionregistration.k8s.io', 'ValidatingAdmissionPolicy', policy)).toEqual([
      'replica-limit',
      1,
      'rules.example.com/v1/ReplicaLimit',
      '5h',
    ]);
    const binding = (paramRef: unknown): KubeObject => ({
      metadata: { name: 'b', ...created },
      spec: { policyName: 'replica-limit', ...(paramRef === undefined ? {} : { paramRef }) },
    });
    const kind = 'ValidatingAdmissionPolicyBinding';
    const group = 'admissionregistration.k8s.io';
    expect(cellsOf(group, kind, binding({ name: 'limits', namespace: 'prod' }))[2]).toBe('prod/limits');
    expect(cellsOf(group, kind, binding({ name: 'limits' }))[2]).toBe('*/limits');
    expect(cellsOf(group, kind, binding(undefined))[2]).toBe('<unset>');
    const bySelector = binding({
      selector: {
        matchLabels: { tier: 'a', env: 'prod' },
        matchExpressions: [{ key: 'zone', operator: 'In', values: ['x', 'y'] }],
      },
    });
    expect(cellsOf(group, kind, bySelector)[2]).toBe(
      '&LabelSelector{MatchLabels:map[string]string{env: prod,tier: a,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:zone,Operator:In,Values:[x y],},},}',
    );
  });

  it('prints flow schemas and priority levels', () => {
    const schema: KubeObject = {
      metadata: { name: 'workload-leader-election', ...created },
      spec: {
        priorityLevelConfiguration: { name: 'leader-election' },
        matchingPrecedence: 200,
        distinguisherMethod: { type: 'ByUser' },
      },
      status: { conditions: [{ type: 'Dangling', status: 'False' }] },
    };
    expect(cellsOf('flowcontrol.apiserver.k8s.io', 'FlowSchema', schema)).toEqual([
      'workload-leader-election',
      'leader-election',
      200,
      'ByUser',
      '5h',
      'False',
    ]);
    const limited: KubeObject = {
      metadata: { name: 'workload-low', ...created },
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 100,
          limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
        },
      },
    };
    expect(cellsOf('flowcontrol.apiserver.k8s.io', 'PriorityLevelConfiguration', limited)).toEqual([
      'workload-low',
      'Limited',
      100,
      128,
      6,
      50,
      '5h',
    ]);
    const exempt: KubeObject = {
      metadata: { name: 'exempt', ...created },
      spec: { type: 'Exempt', exempt: {} },
    };
    expect(cellsOf('flowcontrol.apiserver.k8s.io', 'PriorityLevelConfiguration', exempt)).toEqual([
      'exempt',
      'Exempt',
      '<none>',
      '<none>',
      '<none>',
      '<none>',
      '5h',
    ]);
  });
});

describe('resource claims and service CIDRs', () => {
  it('summarizes a claim state', () => {
    const claim = (status: Record<string, unknown>, deleting = false): KubeObject => ({
      metadata: { name: 'gpu', ...created, ...(deleting ? { deletionTimestamp: ago({ s: 1 }) } : {}) },
      status,
    });
    expect(cellsOf('resource.k8s.io', 'ResourceClaim', claim({}))).toEqual(['gpu', 'pending', '5h']);
    const allocated = {
      allocation: { devices: { results: [] } },
      reservedFor: [{ resource: 'pods', name: 'p', uid: 'u' }],
    };
    expect(cellsOf('resource.k8s.io', 'ResourceClaim', claim(allocated))[1]).toBe('allocated,reserved');
    expect(cellsOf('resource.k8s.io', 'ResourceClaim', claim({}, true))[1]).toBe('deleted');
  });

  it('joins the CIDRs of a ServiceCIDR', () => {
    const cidr: KubeObject = {
      metadata: { name: 'kubernetes', ...created },
      spec: { cidrs: ['10.96.0.0/16', 'fd00:10:96::/112'] },
    };
    expect(cellsOf('networking.k8s.io', 'ServiceCIDR', cidr)).toEqual([
      'kubernetes',
      '10.96.0.0/16,fd00:10:96::/112',
      '5h',
    ]);
  });
});
