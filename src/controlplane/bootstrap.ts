import {
  CLUSTER_DNS_IP,
  CLUSTER_DNS_LABELS,
  CLUSTER_DNS_METRICS_PORT,
  CLUSTER_DNS_NAMESPACE,
  CLUSTER_DNS_SERVICE,
} from '../api/cluster-dns.js';
import {
  DEFAULT_INGRESS_CLASS_ANNOTATION,
  INGRESS_CLASS_NAME,
  INGRESS_CONTROLLER_NAME,
} from '../api/ingress.js';
import type { KubeObject } from '../api/object.js';
import {
  ANN_DEFAULT_STORAGE_CLASS,
  DEFAULT_STORAGE_CLASS,
  LOCAL_PATH_PROVISIONER,
} from '../api/storage/local-path.js';
import { SYSTEM_PRIORITY_CLASSES } from '../apiserver/admission/plugins/priority.js';
import type { ApiServer } from '../apiserver/api-server.js';
import {
  bootstrapPolicy,
  needsWrite,
  reconcileRole,
  reconcileRoleBinding,
} from '../apiserver/auth/rbac/index.js';
import { KUBERNETES_SERVICE_IP } from '../apiserver/registry/builtin/services.js';
import { StatusError } from '../apiserver/status.js';

/** The namespaces every cluster has from the start. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

/** Creates an object unless it exists (a restarted control plane finds its bootstrap objects). */
async function ensure(exists: () => Promise<unknown>, create: () => Promise<unknown>): Promise<void> {
  try {
    await exists();
    return;
  } catch (error) {
    if (!(error instanceof StatusError && error.code === 404)) throw error;
  }
  try {
    await create();
  } catch (error) {
    if (!(error instanceof StatusError && error.code === 409)) throw error;
  }
}

/**
 * Creates what kube-apiserver's bootstrap controllers create, where missing; the `kubernetes`
 * Service's port targets `securePort`, the port this apiserver listens on.
 */
export async function bootstrapCluster(api: ApiServer, securePort: number): Promise<void> {
  const namespaces = api.resourceStore('', 'v1', 'namespaces')!;
  await Promise.all(
    SYSTEM_NAMESPACES.map((name) =>
      ensure(
        () => namespaces.get('', name),
        () => namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
      ),
    ),
  );
  const priorityClasses = api.resourceStore('scheduling.k8s.io', 'v1', 'priorityclasses')!;
  await Promise.all(
    SYSTEM_PRIORITY_CLASSES.map((priorityClass) =>
      ensure(
        () => priorityClasses.get('', priorityClass.metadata!.name!),
        () => priorityClasses.create('', structuredClone(priorityClass)),
      ),
    ),
  );
  const services = api.resourceStore('', 'v1', 'services')!;
  const ports = [{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }];
  const existing = await services.find('default', 'kubernetes');
  const portText = (list: readonly Record<string, unknown>[] | undefined) =>
    JSON.stringify((list ?? []).map((p) => [p.name, p.port, p.protocol, p.targetPort]));
  const existingPorts = (existing?.spec as { ports?: Record<string, unknown>[] } | undefined)?.ports;
  if (existing && portText(existingPorts) !== portText(ports)) {
    // CreateOrUpdateMasterServiceIfNeeded: a restart on another port reconciles the ports.
    await services.update('default', 'kubernetes', {
      ...existing,
      spec: { ...(existing.spec as object), ports },
    });
  }
  await ensure(
    () => services.get('default', 'kubernetes'),
    () =>
      services.create('default', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: {
          type: 'ClusterIP',
          clusterIP: KUBERNETES_SERVICE_IP,
          clusterIPs: [KUBERNETES_SERVICE_IP],
          ports,
          sessionAffinity: 'None',
          ipFamilies: ['IPv4'],
          ipFamilyPolicy: 'SingleStack',
          internalTrafficPolicy: 'Cluster',
        },
      }),
  );
  await ensure(
    () => services.get(CLUSTER_DNS_NAMESPACE, CLUSTER_DNS_SERVICE),
    () => services.create(CLUSTER_DNS_NAMESPACE, clusterDnsService()),
  );
  // Recreated when missing at start-up; edits stay.
  const storageClasses = api.resourceStore('storage.k8s.io', 'v1', 'storageclasses')!;
  await ensure(
    () => storageClasses.get('', DEFAULT_STORAGE_CLASS),
    () => storageClasses.create('', defaultStorageClass()),
  );
  // The agents' ingress controller's default class (recreated when missing at start-up; edits
  // stay). Its LoadBalancer service comes with the first Ingress (the ingress-status controller).
  const ingressClasses = api.resourceStore('networking.k8s.io', 'v1', 'ingressclasses')!;
  await ensure(
    () => ingressClasses.get('', INGRESS_CLASS_NAME),
    () => ingressClasses.create('', defaultIngressClass()),
  );
}

function defaultIngressClass(): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: {
      name: INGRESS_CLASS_NAME,
      annotations: { [DEFAULT_INGRESS_CLASS_ANNOTATION]: 'true' },
      labels: { 'app.kubernetes.io/managed-by': 'tkube' },
    },
    spec: { controller: INGRESS_CONTROLLER_NAME },
  } as KubeObject;
}

/** `standard`, as kind's: the default class, served by the built-in local-path provisioner. */
function defaultStorageClass(): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { [ANN_DEFAULT_STORAGE_CLASS]: 'true' } },
    provisioner: LOCAL_PATH_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
  };
}

/**
 * kube-dns as kind has it, but without a selector: its endpoints are the nodes' agents, kept by
 * the cluster-dns controller; `internalTrafficPolicy: Local` keeps each pod's queries on its node.
 */
function clusterDnsService(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: CLUSTER_DNS_SERVICE,
      namespace: CLUSTER_DNS_NAMESPACE,
      labels: { ...CLUSTER_DNS_LABELS },
      annotations: { 'prometheus.io/port': String(CLUSTER_DNS_METRICS_PORT), 'prometheus.io/scrape': 'true' },
    },
    spec: {
      type: 'ClusterIP',
      clusterIP: CLUSTER_DNS_IP,
      clusterIPs: [CLUSTER_DNS_IP],
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
        {
          name: 'metrics',
          port: CLUSTER_DNS_METRICS_PORT,
          protocol: 'TCP',
          targetPort: CLUSTER_DNS_METRICS_PORT,
        },
      ],
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Local',
    },
  } as KubeObject;
}

/**
 * Reconciles the bootstrap RBAC policy as kube-apiserver does at every start: missing
 * objects are created, auto-updated ones get missing rules and subjects, user changes to
 * other objects are left alone.
 */
export async function reconcileBootstrapPolicy(api: ApiServer): Promise<void> {
  const policy = bootstrapPolicy();
  const store = (resource: string) => api.resourceStore('rbac.authorization.k8s.io', 'v1', resource)!;
  const existing = async <T>(resource: string, namespace: string, name: string) =>
    (await store(resource).find(namespace, name)) as T | undefined;
  const write = async (resource: string, namespace: string, object: KubeObject, create: boolean) => {
    const rs = store(resource);
    if (create) await rs.create(namespace, structuredClone(object));
    else await rs.update(namespace, object.metadata!.name!, structuredClone(object));
  };
  // All objects at once: their reads and writes share the store's group commits.
  const reconcileAll = <T extends { metadata: { name: string; namespace?: string } }>(
    resource: string,
    objects: readonly T[],
    reconcile: (
      expected: T,
      existing: T | undefined,
    ) => { operation: string; object: T } & Parameters<typeof needsWrite>[0],
  ) =>
    Promise.all(
      objects.map(async (expected) => {
        const namespace = expected.metadata.namespace ?? '';
        const result = reconcile(expected, await existing<T>(resource, namespace, expected.metadata.name));
        if (needsWrite(result))
          await write(resource, namespace, result.object as never, result.operation === 'create');
      }),
    );
  await Promise.all([
    reconcileAll('clusterroles', policy.clusterRoles, reconcileRole),
    reconcileAll('clusterrolebindings', policy.clusterRoleBindings, reconcileRoleBinding),
    reconcileAll('roles', policy.roles, reconcileRole),
    reconcileAll('rolebindings', policy.roleBindings, reconcileRoleBinding),
  ]);
}
