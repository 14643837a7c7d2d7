/**
 * The RBAC objects kube-apiserver 1.33 creates and reconciles at start (its bootstrap policy,
 * with 1.33's default feature gates): ClusterRoles and ClusterRoleBindings for users, groups
 * and components, one ClusterRole and binding per kube-controller-manager controller, and a
 * few Roles and RoleBindings in kube-system and kube-public.
 */
import {
  clusterRole,
  clusterRoleBinding,
  eventsRule,
  groups,
  READ,
  READ_UPDATE,
  READ_WRITE,
  rule,
  serviceAccounts,
  urlRule,
  users,
  WRITE,
} from './bootstrap-builders.js';
import { controllerRoleBindings, controllerRoles } from './bootstrap-controller-roles.js';
import { namespaceRoleBindings, namespaceRoles } from './bootstrap-namespace-policy.js';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from './types.js';

export { controllerRoleBindings, controllerRoles, namespaceRoleBindings, namespaceRoles };

const CORE = '';
const APPS = 'apps';
const AUTHENTICATION = 'authentication.k8s.io';
const AUTHORIZATION = 'authorization.k8s.io';
const AUTOSCALING = 'autoscaling';
const BATCH = 'batch';
const CERTIFICATES = 'certificates.k8s.io';
const COORDINATION = 'coordination.k8s.io';
const DISCOVERY = 'discovery.k8s.io';
const EXTENSIONS = 'extensions';
const NETWORKING = 'networking.k8s.io';
const POLICY = 'policy';
const RBAC = 'rbac.authorization.k8s.io';
const STORAGE = 'storage.k8s.io';

export const AGGREGATE_TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
export const AGGREGATE_TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
export const AGGREGATE_TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

// Well-known users and groups (k8s.io/apiserver/pkg/authentication/user).
export const SYSTEM_MASTERS = 'system:masters';
export const SYSTEM_MONITORING = 'system:monitoring';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ALL_SERVICE_ACCOUNTS = 'system:serviceaccounts';
export const KUBE_PROXY = 'system:kube-proxy';
export const KUBE_CONTROLLER_MANAGER = 'system:kube-controller-manager';
export const KUBE_SCHEDULER = 'system:kube-scheduler';

/** What the view role aggregates: reads of everything in a namespace except secrets. */
function viewRules(): PolicyRule[] {
  return [
    rule(
      READ,
      [CORE],
      `pods replicationcontrollers replicationcontrollers/scale serviceaccounts services services/status
      endpoints persistentvolumeclaims persistentvolumeclaims/status configmaps`,
    ),
    rule(
      READ,
      [CORE],
      `limitranges resourcequotas bindings events pods/status resourcequotas/status namespaces/status
      replicationcontrollers/status pods/log`,
    ),
    // Reading namespaces at namespace scope means reading *this* namespace.
    rule(READ, [CORE], ['namespaces']),
    rule(READ, [DISCOVERY], ['endpointslices']),
    rule(
      READ,
      [APPS],
      `controllerrevisions statefulsets statefulsets/status statefulsets/scale daemonsets daemonsets/status
      deployments deployments/status deployments/scale replicasets replicasets/status replicasets/scale`,
    ),
    rule(READ, [AUTOSCALING], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
    rule(READ, [BATCH], 'jobs cronjobs cronjobs/status jobs/status'),
    rule(
      READ,
      [EXTENSIONS],
      `daemonsets daemonsets/status deployments deployments/scale deployments/status ingresses
      ingresses/status replicasets replicasets/scale replicasets/status replicationcontrollers/scale
      networkpolicies`,
    ),
    rule(READ, [POLICY], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
    rule(READ, [NETWORKING], 'networkpolicies ingresses ingresses/status'),
  ];
}

/** What the edit role adds to view: writes, and reads of escalating resources (secrets, exec). */
function editRules(): PolicyRule[] {
  return [
    rule(READ, [CORE], 'pods/attach pods/proxy pods/exec pods/portforward secrets services/proxy'),
    rule(['impersonate'], [CORE], ['serviceaccounts']),
    rule(WRITE, [CORE], 'pods pods/attach pods/proxy pods/exec pods/portforward'),
    rule(['create'], [CORE], ['pods/eviction']),
    rule(
      WRITE,
      [CORE],
      `replicationcontrollers replicationcontrollers/scale serviceaccounts services services/proxy
      persistentvolumeclaims configmaps secrets events`,
    ),
    rule(['create'], [CORE], ['serviceaccounts/token']),
    rule(
      WRITE,
      [APPS],
      `statefulsets statefulsets/scale daemonsets deployments deployments/scale deployments/rollback
      replicasets replicasets/scale`,
    ),
    rule(WRITE, [AUTOSCALING], ['horizontalpodautoscalers']),
    rule(WRITE, [BATCH], ['jobs', 'cronjobs']),
    rule(
      WRITE,
      [EXTENSIONS],
      `daemonsets deployments deployments/scale deployments/rollback ingresses replicasets
      replicasets/scale replicationcontrollers/scale networkpolicies`,
    ),
    rule(WRITE, [POLICY], ['poddisruptionbudgets']),
    rule(WRITE, [NETWORKING], ['networkpolicies', 'ingresses']),
    rule(READ_WRITE, [COORDINATION], ['leases']),
  ];
}

/** The system:node role (nodes are further limited by the Node authorizer and NodeRestriction). */
export function nodeRules(): PolicyRule[] {
  return [
    rule(['create'], [AUTHENTICATION], ['tokenreviews']),
    rule(['create'], [AUTHORIZATION], ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(READ, [CORE], ['services']),
    rule('create get list watch', [CORE], ['nodes']),
    rule(['update', 'patch'], [CORE], ['nodes/status']),
    rule(['update', 'patch'], [CORE], ['nodes']),
    rule('create update patch', [CORE], ['events']),
    rule(READ, [CORE], ['pods']),
    rule(['create', 'delete'], [CORE], ['pods']),
    rule(['update', 'patch'], [CORE], ['pods/status']),
    rule(['create'], [CORE], ['pods/eviction']),
    rule('get list watch', [CORE], ['secrets', 'configmaps']),
    rule(['get'], [CORE], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], [CORE], ['endpoints']),
    rule('create get list watch', [CERTIFICATES], ['certificatesigningrequests']),
    rule('get create update patch delete', [COORDINATION], ['leases']),
    rule(['get'], [STORAGE], ['volumeattachments']),
    rule(['create'], [CORE], ['serviceaccounts/token']),
    rule('get update patch', [CORE], ['persistentvolumeclaims/status']),
    rule('get watch list', [STORAGE], ['csidrivers']),
    rule('get create update patch delete', [STORAGE], ['csinodes']),
    rule('get list watch', ['node.k8s.io'], ['runtimeclasses']),
  ];
}

function kubeSchedulerRules(): PolicyRule[] {
  return [
    eventsRule(),
    // Leader election.
    rule(['create'], [COORDINATION], ['leases']),
    rule('get update list watch', [COORDINATION], ['leases'], ['kube-scheduler']),
    rule(READ_WRITE, [COORDINATION], ['leasecandidates']),
    rule(READ, [CORE], ['nodes']),
    rule('get list watch delete', [CORE], ['pods']),
    rule(['create'], [CORE], ['pods/binding', 'bindings']),
    rule(['patch', 'update'], [CORE], ['pods/status']),
    // What selects pods.
    rule(READ, [CORE], ['services', 'replicationcontrollers']),
    rule(READ, [APPS, EXTENSIONS], ['replicasets']),
    rule(READ, [APPS], ['statefulsets']),
    // What pods use or what applies to them.
    rule(READ, [POLICY], ['poddisruptionbudgets']),
    rule(READ, [CORE], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['create'], [AUTHENTICATION], ['tokenreviews']),
    rule(['create'], [AUTHORIZATION], ['subjectaccessreviews']),
    rule(READ, [STORAGE], ['csinodes']),
    rule('get list watch', [STORAGE], ['volumeattachments']),
    rule(READ, [CORE], ['namespaces']),
    rule(READ, [STORAGE], ['csidrivers']),
    rule(READ, [STORAGE], ['csistoragecapacities']),
  ];
}

const approver = (name: string, signer: string) =>
  clusterRole(name, [rule(['approve'], [CERTIFICATES], ['signers'], [signer])]);

/** Every bootstrap ClusterRole except the controllers'. */
export function clusterRoles(): ClusterRole[] {
  return [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urlRule(['*'], ['*'])]),
    clusterRole('system:discovery', [
      urlRule(
        ['get'],
        '/livez /readyz /healthz /version /version/ /openapi /openapi/* /api /api/* /apis /apis/*',
      ),
    ]),
    clusterRole('system:monitoring', [
      urlRule(['get'], '/metrics /metrics/slis /livez /readyz /healthz /livez/* /readyz/* /healthz/*'),
    ]),
    clusterRole('system:basic-user', [
      rule(['create'], [AUTHORIZATION], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], [AUTHENTICATION], ['selfsubjectreviews']),
    ]),
    clusterRole('system:public-info-viewer', [
      urlRule(['get'], '/livez /readyz /healthz /version /version/'),
    ]),
    clusterRole('admin', [], { aggregateLabel: AGGREGATE_TO_ADMIN }),
    clusterRole('edit', [], { labels: { [AGGREGATE_TO_ADMIN]: 'true' }, aggregateLabel: AGGREGATE_TO_EDIT }),
    clusterRole('view', [], { labels: { [AGGREGATE_TO_EDIT]: 'true' }, aggregateLabel: AGGREGATE_TO_VIEW }),
    clusterRole(
      'system:aggregate-to-admin',
      [
        rule(['create'], [AUTHORIZATION], ['localsubjectaccessreviews']),
        rule(READ_WRITE, [RBAC], ['roles', 'rolebindings']),
      ],
      { labels: { [AGGREGATE_TO_ADMIN]: 'true' } },
    ),
    clusterRole('system:aggregate-to-edit', editRules(), { labels: { [AGGREGATE_TO_EDIT]: 'true' } }),
    clusterRole('system:aggregate-to-view', viewRules(), { labels: { [AGGREGATE_TO_VIEW]: 'true' } }),
    // metrics-server's manifest role, for the built-in metrics server: view, edit and admin read metrics.
    clusterRole('system:aggregated-metrics-reader', [rule(READ, ['metrics.k8s.io'], ['pods', 'nodes'])], {
      labels: { [AGGREGATE_TO_ADMIN]: 'true', [AGGREGATE_TO_EDIT]: 'true', [AGGREGATE_TO_VIEW]: 'true' },
    }),
    clusterRole('system:heapster', [
      rule(READ, [CORE], 'events pods nodes namespaces'),
      rule(READ, [EXTENSIONS], ['deployments']),
    ]),
    clusterRole('system:node', nodeRules()),
    clusterRole('system:node-problem-detector', [
      rule(['get'], [CORE], ['nodes']),
      rule(['patch'], [CORE], ['nodes/status']),
      eventsRule(),
    ]),
    clusterRole('system:node-bootstrapper', [
      rule('create get list watch', [CERTIFICATES], ['certificatesigningrequests']),
    ]),
    clusterRole('system:auth-delegator', [
      rule(['create'], [AUTHENTICATION], ['tokenreviews']),
      rule(['create'], [AUTHORIZATION], ['subjectaccessreviews']),
    ]),
    clusterRole('system:kube-aggregator', [rule(READ, [CORE], ['services', 'endpoints'])]),
    clusterRole('system:kube-controller-manager', [
      eventsRule(),
      rule(['create'], [COORDINATION], ['leases']),
      rule(['get', 'update'], [COORDINATION], ['leases'], ['kube-controller-manager']),
      rule(['create'], [CORE], ['secrets', 'serviceaccounts']),
      rule(['delete'], [CORE], ['secrets']),
      rule(['get'], [CORE], 'namespaces secrets serviceaccounts configmaps'),
      rule(['update'], [CORE], ['secrets', 'serviceaccounts']),
      rule(['create'], [AUTHENTICATION], ['tokenreviews']),
      rule(['create'], [AUTHORIZATION], ['subjectaccessreviews']),
      // Every shared informer.
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [CORE], ['serviceaccounts/token']),
    ]),
    clusterRole('system:kube-dns', [rule(['list', 'watch'], [CORE], ['endpoints', 'services'])]),
    clusterRole('system:persistent-volume-provisioner', [
      rule('get list watch create delete', [CORE], ['persistentvolumes']),
      rule('get list watch update', [CORE], ['persistentvolumeclaims']),
      rule(READ, [STORAGE], ['storageclasses']),
      rule(['watch'], [CORE], ['events']),
      eventsRule(),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
      rule(['create'], [CERTIFICATES], ['certificatesigningrequests/nodeclient']),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
      rule(['create'], [CERTIFICATES], ['certificatesigningrequests/selfnodeclient']),
    ]),
    clusterRole('system:volume-scheduler', [
      rule(READ_UPDATE, [CORE], ['persistentvolumes']),
      rule(READ, [STORAGE], ['storageclasses']),
      rule(READ_UPDATE, [CORE], ['persistentvolumeclaims']),
    ]),
    approver('system:certificates.k8s.io:legacy-unknown-approver', 'kubernetes.io/legacy-unknown'),
    approver('system:certificates.k8s.io:kubelet-serving-approver', 'kubernetes.io/kubelet-serving'),
    approver(
      'system:certificates.k8s.io:kube-apiserver-client-approver',
      'kubernetes.io/kube-apiserver-client',
    ),
    approver(
      'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver',
      'kubernetes.io/kube-apiserver-client-kubelet',
    ),
    // Trailing-slash variants serve clients generated from older OpenAPI documents.
    clusterRole('system:service-account-issuer-discovery', [
      urlRule(
        ['get'],
        `/.well-known/openid-configuration /.well-known/openid-configuration/ /openid/v1/jwks
        /openid/v1/jwks/`,
      ),
    ]),
    clusterRole('system:kubelet-api-admin', [
      rule('get list watch', [CORE], ['nodes']),
      rule(['proxy'], [CORE], ['nodes']),
      rule(['*'], [CORE], 'nodes/proxy nodes/metrics nodes/stats nodes/log'),
      // KubeletFineGrainedAuthz (beta, on by default in 1.33).
      rule(['*'], [CORE], 'nodes/pods nodes/healthz nodes/configz'),
    ]),
    clusterRole('system:node-proxier', [
      rule(['list', 'watch'], [CORE], ['services', 'endpoints']),
      rule('get list watch', [CORE], ['nodes']),
      eventsRule(),
      // MultiCIDRServiceAllocator (GA in 1.33).
      rule(['list', 'watch'], [NETWORKING], ['servicecidrs']),
      rule(['list', 'watch'], [DISCOVERY], ['endpointslices']),
    ]),
    clusterRole('system:kube-scheduler', kubeSchedulerRules()),
  ];
}

/** Every bootstrap ClusterRoleBinding except the controllers'. */
export function clusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterRoleBinding('cluster-admin', groups(SYSTEM_MASTERS)),
    clusterRoleBinding('system:monitoring', groups(SYSTEM_MONITORING)),
    clusterRoleBinding('system:discovery', groups(ALL_AUTHENTICATED)),
    clusterRoleBinding('system:basic-user', groups(ALL_AUTHENTICATED)),
    clusterRoleBinding('system:public-info-viewer', groups(ALL_AUTHENTICATED, ALL_UNAUTHENTICATED)),
    clusterRoleBinding('system:node-proxier', users(KUBE_PROXY)),
    clusterRoleBinding('system:kube-controller-manager', users(KUBE_CONTROLLER_MANAGER)),
    clusterRoleBinding('system:kube-dns', serviceAccounts('kube-system', 'kube-dns')),
    clusterRoleBinding('system:kube-scheduler', users(KUBE_SCHEDULER)),
    clusterRoleBinding('system:volume-scheduler', users(KUBE_SCHEDULER)),
    // Subjectless since the Node authorizer replaced it (1.7): a tightening reconcile can then
    // remove the system:nodes subject older clusters had.
    clusterRoleBinding('system:node', []),
    clusterRoleBinding('system:service-account-issuer-discovery', groups(ALL_SERVICE_ACCOUNTS)),
  ];
}

export interface BootstrapPolicy {
  readonly clusterRoles: ClusterRole[];
  readonly clusterRoleBindings: ClusterRoleBinding[];
  readonly roles: Role[];
  readonly roleBindings: RoleBinding[];
}

/** Everything the apiserver reconciles at start, in the order it does so. */
export function bootstrapPolicy(): BootstrapPolicy {
  return {
    clusterRoles: [...clusterRoles(), ...controllerRoles()],
    clusterRoleBindings: [...clusterRoleBindings(), ...controllerRoleBindings()],
    roles: namespaceRoles(),
    roleBindings: namespaceRoleBindings(),
  };
}
