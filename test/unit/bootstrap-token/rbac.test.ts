import { describe, expect, it } from 'vitest';
import {
  type AttributesUser,
  bootstrapPolicy,
  defaultAuthorizer,
  resourceAttributes,
  StaticPolicySource,
} from '../../../src/apiserver/auth/rbac/index.js';

const policy = bootstrapPolicy();
// What a bootstrap token made by `kubeadm token create` authenticates as.
const joiningNode: AttributesUser = {
  name: 'system:bootstrap:abc123',
  groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'],
};
const csr = { apiGroup: 'certificates.k8s.io', apiVersion: 'v1', resource: 'certificatesigningrequests' };

/** The ClusterRoleBinding kubeadm adds (kubeadm:kubelet-bootstrap); Kubernetes itself adds none. */
const kubeadmBinding = {
  metadata: { name: 'kubeadm:kubelet-bootstrap' },
  subjects: [
    {
      kind: 'Group',
      apiGroup: 'rbac.authorization.k8s.io',
      name: 'system:bootstrappers:kubeadm:default-node-token',
    },
  ],
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-bootstrapper' },
};

function authorizer(extraBindings: (typeof kubeadmBinding)[] = []) {
  return defaultAuthorizer(
    new StaticPolicySource({
      ...policy,
      clusterRoleBindings: [...policy.clusterRoleBindings, ...extraBindings],
    }),
  );
}

describe('bootstrap token users and RBAC', () => {
  it('the bootstrap policy has system:node-bootstrapper but binds no bootstrappers group to anything', () => {
    expect(
      policy.clusterRoles.find((role) => role.metadata.name === 'system:node-bootstrapper')?.rules,
    ).toEqual([
      {
        verbs: ['create', 'get', 'list', 'watch'],
        apiGroups: ['certificates.k8s.io'],
        resources: ['certificatesigningrequests'],
      },
    ]);
    const bootstrapperSubjects = [...policy.clusterRoleBindings, ...policy.roleBindings].flatMap((binding) =>
      (binding.subjects ?? []).filter((subject) => subject.name.startsWith('system:bootstrappers')),
    );
    expect(bootstrapperSubjects).toEqual([]);
  });

  it('may not create a CertificateSigningRequest until a binding grants system:node-bootstrapper', () => {
    const create = resourceAttributes(joiningNode, 'create', csr);
    expect(authorizer().authorize(create).decision).not.toBe('allow');
    const bound = authorizer([kubeadmBinding]);
    expect(bound.authorize(create).decision).toBe('allow');
    expect(bound.authorize(resourceAttributes(joiningNode, 'list', csr)).decision).toBe('allow');
  });

  it('even when bound, may not approve CSRs, read Secrets or create pods', () => {
    const bound = authorizer([kubeadmBinding]);
    for (const attributes of [
      resourceAttributes(joiningNode, 'update', { ...csr, subresource: 'approval', name: 'node-csr' }),
      resourceAttributes(joiningNode, 'get', { resource: 'secrets', namespace: 'kube-system' }),
      resourceAttributes(joiningNode, 'create', { resource: 'pods', namespace: 'default' }),
    ]) {
      expect(bound.authorize(attributes).decision, `${attributes.verb} ${attributes.resource}`).not.toBe(
        'allow',
      );
    }
    // What every authenticated user may do.
    expect(
      bound.authorize(
        resourceAttributes(joiningNode, 'create', {
          apiGroup: 'authorization.k8s.io',
          resource: 'selfsubjectaccessreviews',
        }),
      ).decision,
    ).toBe('allow');
  });
});
