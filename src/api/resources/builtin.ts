// The built-in API a default kube-apiserver 1.33 serves: GA groups only, since every beta group
// of 1.33 (resource.k8s.io, storage.k8s.io/v1beta1, coordination.k8s.io/v1beta1, ...) is off by
// default. Resources and subresources are sorted by name because discovery lists them that way.

import type { GroupInfo, ResourceInfo, SubresourceInfo, Verb } from './types.js';

const ALL_VERBS: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
const CREATE: readonly Verb[] = ['create'];
const GET_PATCH_UPDATE: readonly Verb[] = ['get', 'patch', 'update'];
/** Subresources that upgrade to a stream (attach, exec, portforward) accept GET and POST. */
const CONNECT: readonly Verb[] = ['create', 'get'];
const PROXY: readonly Verb[] = ['create', 'delete', 'get', 'patch', 'update'];

interface SubresourceSpec {
  readonly name: string;
  readonly verbs: readonly Verb[];
  /** Defaults to the parent's kind. */
  readonly kind?: string;
  readonly group?: string;
  readonly version?: string;
}

interface ResourceSpec {
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** Defaults to every verb. */
  readonly verbs?: readonly Verb[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly subresources?: readonly SubresourceSpec[];
  readonly storageVersionHash?: string;
}

const STATUS: SubresourceSpec = { name: 'status', verbs: GET_PATCH_UPDATE };
const SCALE: SubresourceSpec = {
  name: 'scale',
  verbs: GET_PATCH_UPDATE,
  kind: 'Scale',
  group: 'autoscaling',
  version: 'v1',
};

function byName<T extends { readonly name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function subresourceInfo(spec: SubresourceSpec, parentKind: string): SubresourceInfo {
  const info: SubresourceInfo = {
    name: spec.name,
    kind: spec.kind ?? parentKind,
    verbs: Object.freeze([...spec.verbs]),
    ...(spec.group !== undefined ? { group: spec.group, version: spec.version } : {}),
  };
  return Object.freeze(info);
}

function resourceInfo(group: string, version: string, spec: ResourceSpec): ResourceInfo {
  const subresources = (spec.subresources ?? []).map((sub) => subresourceInfo(sub, spec.kind)).sort(byName);
  const info: ResourceInfo = {
    group,
    version,
    resource: spec.resource,
    // Since 1.27 discovery fills the singular name with the lower-cased kind for every built-in.
    singularName: spec.kind.toLowerCase(),
    kind: spec.kind,
    namespaced: spec.namespaced,
    verbs: Object.freeze([...(spec.verbs ?? ALL_VERBS)]),
    shortNames: Object.freeze([...(spec.shortNames ?? [])]),
    categories: Object.freeze([...(spec.categories ?? [])]),
    subresources: Object.freeze(subresources),
    ...(spec.storageVersionHash !== undefined ? { storageVersionHash: spec.storageVersionHash } : {}),
  };
  return Object.freeze(info);
}

function groupVersion(group: string, version: string, specs: readonly ResourceSpec[]): ResourceInfo[] {
  return specs
    .map((spec) => resourceInfo(group, version, spec))
    .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
}

// Served by two groups (core and events.k8s.io) from one storage, hence one hash.
const EVENTS: ResourceSpec = {
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  storageVersionHash: 'r2yiGXH7wu8=',
};

// Served by autoscaling/v1 and v2; stored as v2.
const HORIZONTAL_POD_AUTOSCALERS: ResourceSpec = {
  resource: 'horizontalpodautoscalers',
  kind: 'HorizontalPodAutoscaler',
  namespaced: true,
  shortNames: ['hpa'],
  categories: ['all'],
  subresources: [STATUS],
  storageVersionHash: 'qwQve8ut294=',
};

const CORE_V1 = groupVersion('', 'v1', [
  { resource: 'bindings', kind: 'Binding', namespaced: true, verbs: CREATE },
  {
    resource: 'componentstatuses',
    kind: 'ComponentStatus',
    namespaced: false,
    verbs: ['get', 'list'],
    shortNames: ['cs'],
  },
  {
    resource: 'configmaps',
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
    storageVersionHash: 'qFsyl6wFWjQ=',
  },
  {
    resource: 'endpoints',
    kind: 'Endpoints',
    namespaced: true,
    shortNames: ['ep'],
    storageVersionHash: 'fWeeMqaN/OA=',
  },
  EVENTS,
  {
    resource: 'limitranges',
    kind: 'LimitRange',
    namespaced: true,
    shortNames: ['limits'],
    storageVersionHash: 'EBKMFVe6cwo=',
  },
  {
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    // Namespaces are removed one by one through their finalizers: no deletecollection.
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ns'],
    subresources: [{ name: 'finalize', verbs: ['update'] }, STATUS],
    storageVersionHash: 'Q3oi5N2YM8M=',
  },
  {
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    subresources: [{ name: 'proxy', verbs: PROXY, kind: 'NodeProxyOptions' }, STATUS],
    storageVersionHash: 'XwShjMxG9Fs=',
  },
  {
    resource: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    subresources: [STATUS],
    storageVersionHash: 'QWTyNDq0dC4=',
  },
  {
    resource: 'persistentvolumes',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    subresources: [STATUS],
    storageVersionHash: 'HN/zwEC+JgM=',
  },
  {
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    subresources: [
      { name: 'attach', verbs: CONNECT, kind: 'PodAttachOptions' },
      { name: 'binding', verbs: CREATE, kind: 'Binding' },
      { name: 'ephemeralcontainers', verbs: GET_PATCH_UPDATE },
      { name: 'eviction', verbs: CREATE, kind: 'Eviction', group: 'policy', version: 'v1' },
      { name: 'exec', verbs: CONNECT, kind: 'PodExecOptions' },
      { name: 'log', verbs: ['get'] },
      { name: 'portforward', verbs: CONNECT, kind: 'PodPortForwardOptions' },
      { name: 'proxy', verbs: PROXY, kind: 'PodProxyOptions' },
      // In-place resize is beta and on by default in 1.33 (InPlacePodVerticalScaling).
      { name: 'resize', verbs: GET_PATCH_UPDATE },
      STATUS,
    ],
    storageVersionHash: 'xPOwRZ+Yhw8=',
  },
  { resource: 'podtemplates', kind: 'PodTemplate', namespaced: true, storageVersionHash: 'LIXB2x4IFpk=' },
  {
    resource: 'replicationcontrollers',
    kind: 'ReplicationController',
    namespaced: true,
    shortNames: ['rc'],
    categories: ['all'],
    subresources: [SCALE, STATUS],
    storageVersionHash: 'Jond2If31h0=',
  },
  {
    resource: 'resourcequotas',
    kind: 'ResourceQuota',
    namespaced: true,
    shortNames: ['quota'],
    subresources: [STATUS],
    storageVersionHash: '8uhSgffRX6w=',
  },
  { resource: 'secrets', kind: 'Secret', namespaced: true, storageVersionHash: 'S6u1pOWzb84=' },
  {
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
    subresources: [
      { name: 'token', verbs: CREATE, kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1' },
    ],
    storageVersionHash: 'pbx9ZvyFpBE=',
  },
  {
    resource: 'services',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    subresources: [{ name: 'proxy', verbs: PROXY, kind: 'ServiceProxyOptions' }, STATUS],
    storageVersionHash: '0/CO1lhkEBI=',
  },
]);

const API_EXTENSIONS = ['api-extensions'];

const APIREGISTRATION_V1 = groupVersion('apiregistration.k8s.io', 'v1', [
  {
    resource: 'apiservices',
    kind: 'APIService',
    namespaced: false,
    categories: API_EXTENSIONS,
    subresources: [STATUS],
    storageVersionHash: 'InPBPD7+PqM=',
  },
]);

const APPS_V1 = groupVersion('apps', 'v1', [
  {
    resource: 'controllerrevisions',
    kind: 'ControllerRevision',
    namespaced: true,
    storageVersionHash: '85nkx63pcBU=',
  },
  {
    resource: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    subresources: [STATUS],
    storageVersionHash: 'dd7pWHUlMKQ=',
  },
  {
    resource: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: [SCALE, STATUS],
    storageVersionHash: '8aSe+NMegvE=',
  },
  {
    resource: 'replicasets',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    subresources: [SCALE, STATUS],
    storageVersionHash: 'P1RzHs8/mWQ=',
  },
  {
    resource: 'statefulsets',
    kind: 'StatefulSet',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    subresources: [SCALE, STATUS],
    storageVersionHash: 'H+vl74LkKdo=',
  },
]);

const EVENTS_V1 = groupVersion('events.k8s.io', 'v1', [EVENTS]);

const AUTHENTICATION_V1 = groupVersion('authentication.k8s.io', 'v1', [
  { resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false, verbs: CREATE },
  { resource: 'tokenreviews', kind: 'TokenReview', namespaced: false, verbs: CREATE },
]);

const AUTHORIZATION_V1 = groupVersion('authorization.k8s.io', 'v1', [
  {
    resource: 'localsubjectaccessreviews',
    kind: 'LocalSubjectAccessReview',
    namespaced: true,
    verbs: CREATE,
  },
  { resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, verbs: CREATE },
  { resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false, verbs: CREATE },
  { resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, verbs: CREATE },
]);

const AUTOSCALING_V2 = groupVersion('autoscaling', 'v2', [HORIZONTAL_POD_AUTOSCALERS]);
const AUTOSCALING_V1 = groupVersion('autoscaling', 'v1', [HORIZONTAL_POD_AUTOSCALERS]);

const BATCH_V1 = groupVersion('batch', 'v1', [
  {
    resource: 'cronjobs',
    kind: 'CronJob',
    namespaced: true,
    shortNames: ['cj'],
    categories: ['all'],
    subresources: [STATUS],
    storageVersionHash: 'sd5LIXh4Fjs=',
  },
  {
    resource: 'jobs',
    kind: 'Job',
    namespaced: true,
    categories: ['all'],
    subresources: [STATUS],
    storageVersionHash: 'mudhfqk/qZY=',
  },
]);

const CERTIFICATES_V1 = groupVersion('certificates.k8s.io', 'v1', [
  {
    resource: 'certificatesigningrequests',
    kind: 'CertificateSigningRequest',
    namespaced: false,
    shortNames: ['csr'],
    subresources: [{ name: 'approval', verbs: GET_PATCH_UPDATE }, STATUS],
    storageVersionHash: '95fRKMXA+00=',
  },
]);

const NETWORKING_V1 = groupVersion('networking.k8s.io', 'v1', [
  { resource: 'ingressclasses', kind: 'IngressClass', namespaced: false, storageVersionHash: 'l/iqIbDgFyQ=' },
  {
    resource: 'ingresses',
    kind: 'Ingress',
    namespaced: true,
    shortNames: ['ing'],
    subresources: [STATUS],
    storageVersionHash: '39NQlfNR+bo=',
  },
  // IPAddress and ServiceCIDR went GA in 1.33 but are still stored as v1beta1 for downgrades.
  {
    resource: 'ipaddresses',
    kind: 'IPAddress',
    namespaced: false,
    shortNames: ['ip'],
    storageVersionHash: 'O4H8VxQhW5Y=',
  },
  {
    resource: 'networkpolicies',
    kind: 'NetworkPolicy',
    namespaced: true,
    shortNames: ['netpol'],
    storageVersionHash: 'YpfwF18m1G8=',
  },
  {
    resource: 'servicecidrs',
    kind: 'ServiceCIDR',
    namespaced: false,
    subresources: [STATUS],
    storageVersionHash: '8ufAXOnr3Yg=',
  },
]);

const POLICY_V1 = groupVersion('policy', 'v1', [
  {
    resource: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    subresources: [STATUS],
    storageVersionHash: 'EVWiDmWqyJw=',
  },
]);

const RBAC_V1 = groupVersion('rbac.authorization.k8s.io', 'v1', [
  {
    resource: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    storageVersionHash: '48tpQ8gZHFc=',
  },
  { resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, storageVersionHash: 'bYE5ZWDrJ44=' },
  { resource: 'rolebindings', kind: 'RoleBinding', namespaced: true, storageVersionHash: 'eGsCzGH6b1g=' },
  { resource: 'roles', kind: 'Role', namespaced: true, storageVersionHash: '7FuwZcIIItM=' },
]);

const STORAGE_V1 = groupVersion('storage.k8s.io', 'v1', [
  { resource: 'csidrivers', kind: 'CSIDriver', namespaced: false, storageVersionHash: 'hL6j/rwBV5w=' },
  { resource: 'csinodes', kind: 'CSINode', namespaced: false, storageVersionHash: 'Pe62DkZtjuo=' },
  {
    resource: 'csistoragecapacities',
    kind: 'CSIStorageCapacity',
    namespaced: true,
    storageVersionHash: 'xeVl+2Ly1kE=',
  },
  {
    resource: 'storageclasses',
    kind: 'StorageClass',
    namespaced: false,
    shortNames: ['sc'],
    storageVersionHash: 'K+m6uJwbjGY=',
  },
  {
    resource: 'volumeattachments',
    kind: 'VolumeAttachment',
    namespaced: false,
    subresources: [STATUS],
    storageVersionHash: 'tJx/ezt6UDU=',
  },
]);

const ADMISSIONREGISTRATION_V1 = groupVersion('admissionregistration.k8s.io', 'v1', [
  {
    resource: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
    categories: API_EXTENSIONS,
    storageVersionHash: 'Sqi0GUgDaX0=',
  },
  {
    resource: 'validatingadmissionpolicies',
    kind: 'ValidatingAdmissionPolicy',
    namespaced: false,
    categories: API_EXTENSIONS,
    subresources: [STATUS],
    storageVersionHash: '6OxvlMmQ6is=',
  },
  {
    resource: 'validatingadmissionpolicybindings',
    kind: 'ValidatingAdmissionPolicyBinding',
    namespaced: false,
    categories: API_EXTENSIONS,
    storageVersionHash: 'v9715VZqakg=',
  },
  {
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
    categories: API_EXTENSIONS,
    storageVersionHash: 'B0wHjQmsGNk=',
  },
]);

const APIEXTENSIONS_V1 = groupVersion('apiextensions.k8s.io', 'v1', [
  {
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: API_EXTENSIONS,
    subresources: [STATUS],
    // apiextensions-apiserver still stores CRDs as v1beta1.
    storageVersionHash: 'jfWCUB31mvA=',
  },
]);

const SCHEDULING_V1 = groupVersion('scheduling.k8s.io', 'v1', [
  {
    resource: 'priorityclasses',
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
    storageVersionHash: '1QwjyaZjj3Y=',
  },
]);

const COORDINATION_V1 = groupVersion('coordination.k8s.io', 'v1', [
  { resource: 'leases', kind: 'Lease', namespaced: true, storageVersionHash: 'gqkMMb/YqFM=' },
]);

const NODE_V1 = groupVersion('node.k8s.io', 'v1', [
  { resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false, storageVersionHash: 'WQTu1GL3T2Q=' },
]);

const DISCOVERY_V1 = groupVersion('discovery.k8s.io', 'v1', [
  { resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true, storageVersionHash: 'qgS0xkrxYAI=' },
]);

const FLOWCONTROL_V1 = groupVersion('flowcontrol.apiserver.k8s.io', 'v1', [
  {
    resource: 'flowschemas',
    kind: 'FlowSchema',
    namespaced: false,
    subresources: [STATUS],
    storageVersionHash: 'GJVAJZSZBIw=',
  },
  {
    resource: 'prioritylevelconfigurations',
    kind: 'PriorityLevelConfiguration',
    namespaced: false,
    subresources: [STATUS],
    storageVersionHash: 'Kir5PVfvNeI=',
  },
]);

/** The core group, served at `/api`. */
export const CORE_GROUP: GroupInfo = Object.freeze({
  name: '',
  versions: Object.freeze(['v1']),
  priorities: Object.freeze({ v1: { group: 18000, version: 1 } }),
});

function apiGroup(
  name: string,
  group: number,
  versionPriorities: Readonly<Record<string, number>>,
): GroupInfo {
  const versions = Object.keys(versionPriorities).sort(
    (a, b) => versionPriorities[b]! - versionPriorities[a]!,
  );
  const priorities = Object.fromEntries(
    versions.map((v) => [v, Object.freeze({ group, version: versionPriorities[v]! })]),
  );
  return Object.freeze({ name, versions: Object.freeze(versions), priorities: Object.freeze(priorities) });
}

/**
 * The groups of `/apis`, in the order it lists them: apiregistration.k8s.io first (the aggregator
 * puts its own group there), then by group priority, ties broken by APIService name.
 */
export const API_GROUPS: readonly GroupInfo[] = Object.freeze([
  Object.freeze({ name: 'apiregistration.k8s.io', versions: Object.freeze(['v1']) }),
  apiGroup('apps', 17800, { v1: 15 }),
  apiGroup('events.k8s.io', 17750, { v1: 15 }),
  apiGroup('authentication.k8s.io', 17700, { v1: 15 }),
  apiGroup('authorization.k8s.io', 17600, { v1: 15 }),
  apiGroup('autoscaling', 17500, { v2: 30, v1: 15 }),
  apiGroup('batch', 17400, { v1: 15 }),
  apiGroup('certificates.k8s.io', 17300, { v1: 15 }),
  apiGroup('networking.k8s.io', 17200, { v1: 15 }),
  apiGroup('policy', 17100, { v1: 15 }),
  apiGroup('rbac.authorization.k8s.io', 17000, { v1: 15 }),
  apiGroup('storage.k8s.io', 16800, { v1: 15 }),
  apiGroup('admissionregistration.k8s.io', 16700, { v1: 15 }),
  apiGroup('apiextensions.k8s.io', 16700, { v1: 15 }),
  apiGroup('scheduling.k8s.io', 16600, { v1: 15 }),
  apiGroup('coordination.k8s.io', 16500, { v1: 15 }),
  apiGroup('node.k8s.io', 16300, { v1: 15 }),
  apiGroup('discovery.k8s.io', 16200, { v1: 15 }),
  apiGroup('flowcontrol.apiserver.k8s.io', 16100, { v1: 21 }),
]);

/**
 * Every built-in resource in discovery order: core first, then the groups of `/apis` in order,
 * each group's versions preferred first, each version's resources by name.
 */
export const BUILTIN_RESOURCES: readonly ResourceInfo[] = Object.freeze([
  ...CORE_V1,
  ...APIREGISTRATION_V1,
  ...APPS_V1,
  ...EVENTS_V1,
  ...AUTHENTICATION_V1,
  ...AUTHORIZATION_V1,
  ...AUTOSCALING_V2,
  ...AUTOSCALING_V1,
  ...BATCH_V1,
  ...CERTIFICATES_V1,
  ...NETWORKING_V1,
  ...POLICY_V1,
  ...RBAC_V1,
  ...STORAGE_V1,
  ...ADMISSIONREGISTRATION_V1,
  ...APIEXTENSIONS_V1,
  ...SCHEDULING_V1,
  ...COORDINATION_V1,
  ...NODE_V1,
  ...DISCOVERY_V1,
  ...FLOWCONTROL_V1,
]);
