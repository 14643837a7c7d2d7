/**
 * One ClusterRole per kube-controller-manager controller, `system:controller:<name>`, bound to
 * the kube-system service account `<name>` the controller runs as (1.33 default gates: no
 * DRA, VolumeAttributesClass, ClusterTrustBundle, StorageVersionAPI or StorageVersionMigrator
 * controllers; service CIDRs and the SELinux warning controller are on).
 */
import { clusterRole, clusterRoleBinding, eventsRule, rule, serviceAccounts } from './bootstrap-builders.js';
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from './types.js';

export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

const CORE = '';
const ADMISSION_REGISTRATION = 'admissionregistration.k8s.io';
const APPS = 'apps';
const AUTHORIZATION = 'authorization.k8s.io';
const AUTOSCALING = 'autoscaling';
const BATCH = 'batch';
const CERTIFICATES = 'certificates.k8s.io';
const DISCOVERY = 'discovery.k8s.io';
const EXTENSIONS = 'extensions';
const NETWORKING = 'networking.k8s.io';
const POLICY = 'policy';
const RBAC = 'rbac.authorization.k8s.io';
const STORAGE = 'storage.k8s.io';

const CONTROLLER_RULES: ReadonlyArray<readonly [string, () => PolicyRule[]]> = [
  [
    'attachdetach-controller',
    () => [
      rule(['list', 'watch'], [CORE], ['persistentvolumes', 'persistentvolumeclaims']),
      rule('get list watch', [CORE], ['nodes']),
      rule(['patch', 'update'], [CORE], ['nodes/status']),
      rule(['list', 'watch'], [CORE], ['pods']),
      eventsRule(),
      rule('get create delete list watch', [STORAGE], ['volumeattachments']),
      rule('get watch list', [STORAGE], ['csidrivers']),
      rule('get watch list', [STORAGE], ['csinodes']),
    ],
  ],
  [
    'clusterrole-aggregation-controller',
    // Full powers on clusterroles, so it may write any aggregated rules.
    () => [rule('escalate get list watch update patch', [RBAC], ['clusterroles'])],
  ],
  [
    'cronjob-controller',
    () => [
      rule('get list watch update', [BATCH], ['cronjobs']),
      rule('get list watch create update delete patch', [BATCH], ['jobs']),
      rule(['update'], [BATCH], ['cronjobs/status']),
      rule(['update'], [BATCH], ['cronjobs/finalizers']),
      rule('list watch delete', [CORE], ['pods']),
      eventsRule(),
    ],
  ],
  [
    'daemon-set-controller',
    () => [
      rule('get list watch', [EXTENSIONS, APPS], ['daemonsets']),
      rule(['update'], [EXTENSIONS, APPS], ['daemonsets/status']),
      rule(['update'], [EXTENSIONS, APPS], ['daemonsets/finalizers']),
      rule(['list', 'watch'], [CORE], ['nodes']),
      rule('list watch create delete patch', [CORE], ['pods']),
      rule(['create'], [CORE], ['pods/binding']),
      rule('get list watch create delete update patch', [APPS], ['controllerrevisions']),
      eventsRule(),
    ],
  ],
  [
    'deployment-controller',
    () => [
      rule('get list watch update', [EXTENSIONS, APPS], ['deployments']),
      rule(['update'], [EXTENSIONS, APPS], ['deployments/status']),
      rule(['update'], [EXTENSIONS, APPS], ['deployments/finalizers']),
      rule('get list watch create update patch delete', [APPS, EXTENSIONS], ['replicasets']),
      rule('get list watch update', [CORE], ['pods']),
      eventsRule(),
    ],
  ],
  [
    'disruption-controller',
    () => [
      rule('get list watch', [EXTENSIONS, APPS], ['deployments']),
      rule('get list watch', [APPS, EXTENSIONS], ['replicasets']),
      rule('get list watch', [CORE], ['replicationcontrollers']),
      rule('get list watch', [POLICY], ['poddisruptionbudgets']),
      rule('get list watch', [APPS], ['statefulsets']),
      rule(['update'], [POLICY], ['poddisruptionbudgets/status']),
      rule(['patch', 'update'], [CORE], ['pods/status']),
      rule(['get'], ['*'], ['*/scale']),
      eventsRule(),
    ],
  ],
  [
    'endpoint-controller',
    () => [
      rule('get list watch', [CORE], ['services', 'pods']),
      rule('get list watch create update delete', [CORE], ['endpoints']),
      rule(['create'], [CORE], ['endpoints/restricted']),
      eventsRule(),
    ],
  ],
  [
    'endpointslice-controller',
    () => [
      rule('get list watch', [CORE], 'services pods nodes'),
      // Owner references with blockOwnerDeletion need update on the owner's finalizers.
      rule(['update'], [CORE], ['services/finalizers']),
      rule('get list watch create update delete', [DISCOVERY], ['endpointslices']),
      eventsRule(),
    ],
  ],
  [
    'endpointslicemirroring-controller',
    () => [
      rule('get list watch', [CORE], ['services', 'endpoints']),
      rule(['update'], [CORE], ['services/finalizers']),
      rule(['update'], [CORE], ['endpoints/finalizers']),
      rule('get list watch create update delete', [DISCOVERY], ['endpointslices']),
      eventsRule(),
    ],
  ],
  [
    'expand-controller',
    () => [
      rule('get list watch update patch', [CORE], ['persistentvolumes']),
      rule(['update', 'patch'], [CORE], ['persistentvolumeclaims/status']),
      rule('get list watch', [CORE], ['persistentvolumeclaims']),
      eventsRule(),
      rule(['get'], [CORE], ['services']),
    ],
  ],
  [
    'ephemeral-volume-controller',
    () => [
      rule('get list watch', [CORE], ['pods']),
      rule(['update'], [CORE], ['pods/finalizers']),
      rule('get list watch create', [CORE], ['persistentvolumeclaims']),
      eventsRule(),
    ],
  ],
  [
    'generic-garbage-collector',
    () => [rule('get list watch patch update delete', ['*'], ['*']), eventsRule()],
  ],
  [
    'horizontal-pod-autoscaler',
    () => [
      rule('get list watch', [AUTOSCALING], ['horizontalpodautoscalers']),
      rule(['update'], [AUTOSCALING], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(['list', 'watch'], [CORE], ['pods']),
      rule(['list', 'watch'], ['metrics.k8s.io'], ['pods']),
      rule('get list watch', ['custom.metrics.k8s.io'], ['*']),
      rule('get list watch', ['external.metrics.k8s.io'], ['*']),
      eventsRule(),
    ],
  ],
  [
    'job-controller',
    () => [
      rule('get list watch update patch', [BATCH], ['jobs']),
      rule(['update'], [BATCH], ['jobs/status']),
      rule(['update'], [BATCH], ['jobs/finalizers']),
      rule('list watch create delete patch', [CORE], ['pods']),
      eventsRule(),
    ],
  ],
  [
    'namespace-controller',
    () => [
      rule('get list watch delete', [CORE], ['namespaces']),
      rule(['update'], [CORE], ['namespaces/finalize', 'namespaces/status']),
      rule('get list watch delete deletecollection', ['*'], ['*']),
    ],
  ],
  [
    'node-controller',
    () => [
      rule('get list watch update delete patch', [CORE], ['nodes']),
      rule(['patch', 'update'], [CORE], ['nodes/status']),
      rule(['patch', 'update'], [CORE], ['pods/status']),
      rule('list watch get delete', [CORE], ['pods']),
      eventsRule(),
    ],
  ],
  [
    'persistent-volume-binder',
    () => [
      rule('get list watch update create delete', [CORE], ['persistentvolumes']),
      rule(['update'], [CORE], ['persistentvolumes/status']),
      rule('get list watch update', [CORE], ['persistentvolumeclaims']),
      rule(['update'], [CORE], ['persistentvolumeclaims/status']),
      rule('list watch get create delete', [CORE], ['pods']),
      rule('get list watch', [STORAGE], ['storageclasses']),
      rule(['list', 'watch'], [CORE], ['nodes']),
      eventsRule(),
      // The recycler watches its pod's events.
      rule(['watch'], [CORE], ['events']),
      rule(['get'], [CORE], ['services']),
    ],
  ],
  [
    'pod-garbage-collector',
    () => [
      rule('list watch delete', [CORE], ['pods']),
      rule('get list watch', [CORE], ['nodes']),
      rule(['patch'], [CORE], ['pods/status']),
    ],
  ],
  [
    'replicaset-controller',
    () => [
      rule('get list watch update', [APPS, EXTENSIONS], ['replicasets']),
      rule(['update'], [APPS, EXTENSIONS], ['replicasets/status']),
      rule(['update'], [APPS, EXTENSIONS], ['replicasets/finalizers']),
      rule('list watch patch create delete', [CORE], ['pods']),
      eventsRule(),
    ],
  ],
  [
    'replication-controller',
    () => [
      rule('get list watch update', [CORE], ['replicationcontrollers']),
      rule(['update'], [CORE], ['replicationcontrollers/status']),
      rule(['update'], [CORE], ['replicationcontrollers/finalizers']),
      rule('list watch patch create delete', [CORE], ['pods']),
      eventsRule(),
    ],
  ],
  [
    'resourcequota-controller',
    // Quota counts anything, so it may list and watch everything.
    () => [
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['update'], [CORE], ['resourcequotas/status']),
      eventsRule(),
    ],
  ],
  [
    'route-controller',
    () => [
      rule(['list', 'watch'], [CORE], ['nodes']),
      rule(['patch'], [CORE], ['nodes/status']),
      eventsRule(),
    ],
  ],
  ['service-account-controller', () => [rule(['create'], [CORE], ['serviceaccounts']), eventsRule()]],
  [
    'service-controller',
    () => [
      rule('get list watch', [CORE], ['services']),
      rule(['patch', 'update'], [CORE], ['services/status']),
      rule(['list', 'watch'], [CORE], ['nodes']),
      eventsRule(),
    ],
  ],
  [
    'service-cidrs-controller',
    () => [
      rule('get list watch patch update', [NETWORKING], ['servicecidrs']),
      rule(['patch', 'update'], [NETWORKING], ['servicecidrs/finalizers']),
      rule(['patch', 'update'], [NETWORKING], ['servicecidrs/status']),
      rule('get list watch', [NETWORKING], ['ipaddresses']),
      eventsRule(),
    ],
  ],
  [
    'statefulset-controller',
    () => [
      rule(['list', 'watch'], [CORE], ['pods']),
      rule('get list watch', [APPS], ['statefulsets']),
      rule(['update'], [APPS], ['statefulsets/status']),
      rule(['update'], [APPS], ['statefulsets/finalizers']),
      rule('get create delete update patch', [CORE], ['pods']),
      rule('get create delete update patch list watch', [APPS], ['controllerrevisions']),
      rule('get create list watch', [CORE], ['persistentvolumeclaims']),
      rule(['update', 'delete'], [CORE], ['persistentvolumeclaims']),
      rule(['update'], [CORE], ['pods/finalizers']),
      eventsRule(),
    ],
  ],
  ['ttl-controller', () => [rule('update patch list watch', [CORE], ['nodes']), eventsRule()]],
  [
    'certificate-controller',
    () => [
      rule('get list watch delete', [CERTIFICATES], ['certificatesigningrequests']),
      rule(
        ['update'],
        [CERTIFICATES],
        ['certificatesigningrequests/status', 'certificatesigningrequests/approval'],
      ),
      rule(['approve'], [CERTIFICATES], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
      rule(
        ['sign'],
        [CERTIFICATES],
        ['signers'],
        `kubernetes.io/legacy-unknown kubernetes.io/kube-apiserver-client
        kubernetes.io/kube-apiserver-client-kubelet kubernetes.io/kubelet-serving`,
      ),
      rule(['create'], [AUTHORIZATION], ['subjectaccessreviews']),
      eventsRule(),
    ],
  ],
  [
    'pvc-protection-controller',
    () => [
      rule('get list watch update', [CORE], ['persistentvolumeclaims']),
      rule('list watch get', [CORE], ['pods']),
      eventsRule(),
    ],
  ],
  [
    'pv-protection-controller',
    () => [rule('get list watch update', [CORE], ['persistentvolumes']), eventsRule()],
  ],
  ['ttl-after-finished-controller', () => [rule('get list watch delete', [BATCH], ['jobs']), eventsRule()]],
  ['root-ca-cert-publisher', () => [rule(['create', 'update'], [CORE], ['configmaps']), eventsRule()]],
  [
    'validatingadmissionpolicy-status-controller',
    () => [
      rule('get list watch', [ADMISSION_REGISTRATION], ['validatingadmissionpolicies']),
      rule('get patch update', [ADMISSION_REGISTRATION], ['validatingadmissionpolicies/status']),
      eventsRule(),
    ],
  ],
  [
    'legacy-service-account-token-cleaner',
    () => [
      rule(['get'], [CORE], ['configmaps'], ['kube-apiserver-legacy-service-account-token-tracking']),
      rule(['patch', 'delete'], [CORE], ['secrets']),
    ],
  ],
  [
    'selinux-warning-controller',
    () => [
      eventsRule(),
      rule('get list watch', [CORE], ['persistentvolumes']),
      rule('get list watch', [CORE], ['persistentvolumeclaims']),
      rule('get list watch', [CORE], ['pods']),
      rule('get list watch', [STORAGE], ['csidrivers']),
    ],
  ],
];

/** The controllers' ClusterRoles, in the order Kubernetes registers them. */
export function controllerRoles(): ClusterRole[] {
  return CONTROLLER_RULES.map(([name, rules]) => clusterRole(`${CONTROLLER_ROLE_PREFIX}${name}`, rules()));
}

/** Each controller role bound to the controller's service account in kube-system. */
export function controllerRoleBindings(): ClusterRoleBinding[] {
  return CONTROLLER_RULES.map(([name]) =>
    clusterRoleBinding(`${CONTROLLER_ROLE_PREFIX}${name}`, serviceAccounts('kube-system', name)),
  );
}
