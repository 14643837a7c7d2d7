import type { ApiServer } from '../apiserver/api-server.js';
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

/** Creates what kube-apiserver's bootstrap controllers create, where missing. */
export async function bootstrapCluster(api: ApiServer): Promise<void> {
  const namespaces = api.resourceStore('', 'v1', 'namespaces')!;
  for (const name of SYSTEM_NAMESPACES) {
    await ensure(
      () => namespaces.get('', name),
      () => namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
    );
  }
  const services = api.resourceStore('', 'v1', 'services')!;
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
          ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
          sessionAffinity: 'None',
          ipFamilies: ['IPv4'],
          ipFamilyPolicy: 'SingleStack',
          internalTrafficPolicy: 'Cluster',
        },
      }),
  );
}
