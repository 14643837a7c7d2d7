// Upstream: k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap (default.go). The mandatory and
// suggested FlowSchemas and PriorityLevelConfigurations every kube-apiserver creates at start.
import type { KubeObject } from '../../api/object.js';

export const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';
/** Bootstrap objects carrying it "true" are kept at their bootstrap spec by the apiserver. */
export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

const ALL_AUTHENTICATED = 'system:authenticated';
const ALL_UNAUTHENTICATED = 'system:unauthenticated';
const NODES = 'system:nodes';
const KUBE_CONTROLLER_MANAGER = 'system:kube-controller-manager';
const KUBE_SCHEDULER = 'system:kube-scheduler';

type Subject =
  | { kind: 'User'; user: { name: string } }
  | { kind: 'Group'; group: { name: string } }
  | { kind: 'ServiceAccount'; serviceAccount: { namespace: string; name: string } };

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));

const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean) => ({
  verbs,
  apiGroups,
  resources,
  namespaces: ['*'],
  ...(clusterScope ? { clusterScope: true } : {}),
});

const EVERYTHING = {
  resourceRules: [resourceRule(['*'], ['*'], ['*'], true)],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

function flowSchema(
  name: string,
  priorityLevel: string,
  matchingPrecedence: number,
  distinguisher: 'ByUser' | 'ByNamespace' | undefined,
  rules: object,
): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'FlowSchema',
    metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rules],
    },
  } as KubeObject;
}

function limited(
  name: string,
  nominalConcurrencyShares: number,
  lendablePercent: number,
  queuing?: { queues: number; handSize: number; queueLengthLimit: number },
): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares,
        lendablePercent,
        limitResponse: queuing ? { type: 'Queue', queuing } : { type: 'Reject' },
      },
    },
  } as KubeObject;
}

const queuing = (queues: number, handSize: number) => ({ queues, handSize, queueLengthLimit: 50 });

/** Always present, and reset to this spec while their auto-update annotation says "true". */
export const MANDATORY_PRIORITY_LEVELS: readonly KubeObject[] = [
  {
    apiVersion: API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'exempt', annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  } as KubeObject,
  limited('catch-all', 5, 0),
];

export const MANDATORY_FLOW_SCHEMAS: readonly KubeObject[] = [
  flowSchema('exempt', 'exempt', 1, undefined, { subjects: groups('system:masters'), ...EVERYTHING }),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', {
    subjects: groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED),
    ...EVERYTHING,
  }),
];

/** Created when missing; an administrator may change them once they set the annotation "false". */
export const SUGGESTED_PRIORITY_LEVELS: readonly KubeObject[] = [
  limited('system', 30, 33, queuing(64, 6)),
  limited('node-high', 40, 25, queuing(64, 6)),
  limited('leader-election', 10, 0, queuing(16, 4)),
  limited('workload-high', 40, 50, queuing(128, 6)),
  limited('workload-low', 100, 90, queuing(128, 6)),
  limited('global-default', 20, 50, queuing(128, 6)),
];

export const SUGGESTED_FLOW_SCHEMAS: readonly KubeObject[] = [
  flowSchema('system-nodes', 'system', 500, 'ByUser', { subjects: groups(NODES), ...EVERYTHING }),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups(NODES),
    resourceRules: [
      resourceRule(['*'], [''], ['nodes', 'nodes/status'], true),
      resourceRule(['*'], ['coordination.k8s.io'], ['leases'], false),
    ],
  }),
  flowSchema('probes', 'exempt', 2, undefined, {
    subjects: groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users(KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER), ...kubeSystemServiceAccounts('*')],
    resourceRules: [resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], false)],
  }),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: kubeSystemServiceAccounts('*'),
    resourceRules: [
      resourceRule(['get', 'create', 'update'], [''], ['endpoints', 'configmaps'], false),
      resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], false),
    ],
  }),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [
      ...users(KUBE_CONTROLLER_MANAGER),
      ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller'),
    ],
    resourceRules: [resourceRule(['get', 'create', 'update'], [''], ['endpoints'], false)],
  }),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', {
    subjects: users(KUBE_CONTROLLER_MANAGER),
    ...EVERYTHING,
  }),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', {
    subjects: users(KUBE_SCHEDULER),
    ...EVERYTHING,
  }),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', {
    subjects: kubeSystemServiceAccounts('*'),
    ...EVERYTHING,
  }),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', {
    subjects: groups('system:serviceaccounts'),
    ...EVERYTHING,
  }),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', {
    subjects: groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED),
    ...EVERYTHING,
  }),
];
