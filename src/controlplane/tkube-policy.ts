// RBAC for tkube's own cluster add-ons (as kind installs kindnet's and kubeadm CoreDNS's): the
// agents' pod-network part reads every Node to route to their pod CIDRs, which a node's own
// identity may not (the Node authorizer lets a kubelet read only its own Node); the agents' DNS
// part reads what CoreDNS's `system:coredns` role lets it read; the cluster DNS controller keeps
// the kube-dns service's endpoints; the agents' load balancer speakers hold a Lease per
// LoadBalancer service; the agents' network policy enforcement reads pods, namespaces and policies.
import type { ApiServer } from '../apiserver/api-server.js';
import { CLUSTER_DNS_SERVICE_ACCOUNT } from '../controllers/cluster-dns/cluster-dns-controller.js';
import { INGRESS_STATUS_SERVICE_ACCOUNT } from '../controllers/ingress-status/ingress-status-controller.js';

/** The user the agents' pod-network client authenticates as (client certificate CN). */
export const POD_NETWORK_USER = 'tkube:pod-network';
/** The user the agents' DNS client authenticates as (client certificate CN). */
export const CLUSTER_DNS_USER = 'tkube:cluster-dns';

interface Rule {
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly verbs: string[];
}

interface Subject {
  readonly kind: 'User' | 'ServiceAccount';
  readonly name: string;
  readonly namespace?: string;
}

const READ = ['get', 'list', 'watch'];

const ROLES: readonly { name: string; rules: Rule[]; subject: Subject }[] = [
  {
    name: 'tkube:pod-network',
    // Nodes for routes; PersistentVolumes for the local-path directories each agent removes.
    rules: [{ apiGroups: [''], resources: ['nodes', 'persistentvolumes'], verbs: READ }],
    subject: { kind: 'User', name: POD_NETWORK_USER },
  },
  {
    // The agents' network policy enforcement: every pod, namespace and policy decides the rules.
    name: 'tkube:network-policy',
    rules: [
      { apiGroups: [''], resources: ['pods', 'namespaces'], verbs: READ },
      { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: READ },
    ],
    subject: { kind: 'User', name: POD_NETWORK_USER },
  },
  {
    // The agents' load balancer speakers (under the pod-network identity): which addresses to
    // announce, a Lease per service deciding which node announces them, and an event saying so.
    name: 'tkube:load-balancer-speaker',
    rules: [
      { apiGroups: [''], resources: ['services'], verbs: READ },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: READ },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: [...READ, 'create', 'update', 'delete'],
      },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'update', 'patch'] },
    ],
    subject: { kind: 'User', name: POD_NETWORK_USER },
  },
  {
    // The agents' ingress controllers (under the pod-network identity), with ingress-nginx's
    // rights: Ingresses and their classes, the services they route to, TLS Secrets, events.
    name: 'tkube:ingress-controller',
    rules: [
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingressclasses'], verbs: READ },
      { apiGroups: [''], resources: ['services', 'secrets'], verbs: READ },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'update', 'patch'] },
    ],
    subject: { kind: 'User', name: POD_NETWORK_USER },
  },
  {
    // system:coredns's rules.
    name: 'tkube:cluster-dns',
    rules: [
      {
        apiGroups: [''],
        resources: ['endpoints', 'services', 'pods', 'namespaces'],
        verbs: ['list', 'watch'],
      },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    ],
    subject: { kind: 'User', name: CLUSTER_DNS_USER },
  },
  {
    name: 'tkube:controller:cluster-dns',
    rules: [
      { apiGroups: [''], resources: ['nodes', 'services'], verbs: READ },
      { apiGroups: [''], resources: ['endpoints'], verbs: [...READ, 'create', 'update', 'delete'] },
      // Owner references with blockOwnerDeletion need update on the owner's finalizers.
      { apiGroups: [''], resources: ['services/finalizers'], verbs: ['update'] },
      {
        apiGroups: ['discovery.k8s.io'],
        resources: ['endpointslices'],
        verbs: [...READ, 'create', 'update', 'delete'],
      },
    ],
    subject: { kind: 'ServiceAccount', name: CLUSTER_DNS_SERVICE_ACCOUNT, namespace: 'kube-system' },
  },
  {
    // ingress-nginx's status syncer: the published service's addresses into its Ingresses; it
    // makes that service with the first Ingress.
    name: 'tkube:controller:ingress-status',
    rules: [
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingressclasses'], verbs: READ },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses/status'], verbs: ['update'] },
      { apiGroups: [''], resources: ['services'], verbs: [...READ, 'create'] },
    ],
    subject: { kind: 'ServiceAccount', name: INGRESS_STATUS_SERVICE_ACCOUNT, namespace: 'kube-system' },
  },
];

export async function ensureTkubePolicy(api: ApiServer): Promise<void> {
  const rbac = (resource: string) => api.resourceStore('rbac.authorization.k8s.io', 'v1', resource)!;
  const labels = { 'app.kubernetes.io/managed-by': 'tkube' };
  for (const { name, rules, subject } of ROLES) {
    if (!(await rbac('clusterroles').find('', name))) {
      await rbac('clusterroles').create('', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name, labels },
        rules,
      });
    }
    if (!(await rbac('clusterrolebindings').find('', name))) {
      await rbac('clusterrolebindings').create('', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [subject.kind === 'User' ? { apiGroup: 'rbac.authorization.k8s.io', ...subject } : subject],
      });
    }
  }
}
