// RBAC for tkube's own cluster add-ons (as kind installs kindnet's): the agents' pod-network
// part reads every Node to route to their pod CIDRs, which a node's own identity may not (the
// Node authorizer lets a kubelet read only its own Node).
import type { ApiServer } from '../apiserver/api-server.js';

/** The user the agents' pod-network client authenticates as (client certificate CN). */
export const POD_NETWORK_USER = 'tkube:pod-network';
const ROLE_NAME = 'tkube:pod-network';

export async function ensureTkubePolicy(api: ApiServer): Promise<void> {
  const rbac = (resource: string) => api.resourceStore('rbac.authorization.k8s.io', 'v1', resource)!;
  const labels = { 'app.kubernetes.io/managed-by': 'tkube' };
  if (!(await rbac('clusterroles').find('', ROLE_NAME))) {
    await rbac('clusterroles').create('', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: ROLE_NAME, labels },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }],
    });
  }
  if (!(await rbac('clusterrolebindings').find('', ROLE_NAME))) {
    await rbac('clusterrolebindings').create('', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: ROLE_NAME, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ROLE_NAME },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: POD_NETWORK_USER }],
    });
  }
}
