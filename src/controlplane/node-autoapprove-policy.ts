// kubeadm's CSR auto-approval bindings (kind and kubeadm clusters have them): nodes may renew
// their own client certificates, and bootstrap-token users may ask for a new node's, which the
// csrapproving controller then approves after a SubjectAccessReview.
import type { ApiServer } from '../apiserver/api-server.js';

const BINDINGS = [
  {
    name: 'kubeadm:node-autoapprove-certificate-rotation',
    role: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
    group: 'system:nodes',
  },
  {
    name: 'kubeadm:node-autoapprove-bootstrap',
    role: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
    group: 'system:bootstrappers:kubeadm:default-node-token',
  },
] as const;

export async function ensureNodeAutoApprovePolicy(api: ApiServer): Promise<void> {
  const bindings = api.resourceStore('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings')!;
  for (const { name, role, group } of BINDINGS) {
    if (await bindings.find('', name)) continue;
    await bindings.create('', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
    });
  }
}
