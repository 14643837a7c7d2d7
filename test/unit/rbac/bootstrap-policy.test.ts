import { describe, expect, it } from 'vitest';
import {
  type AttributesUser,
  aggregateClusterRole,
  bootstrapPolicy,
  type ClusterRole,
  coversRules,
  defaultAuthorizer,
  nonResourceAttributes,
  RbacAuthorizer,
  resourceAttributes,
  StaticPolicySource,
} from '../../../src/apiserver/auth/rbac/index.js';

const policy = bootstrapPolicy();
const byName = (name: string) => policy.clusterRoles.find((role) => role.metadata.name === name)!;

/** The cluster roles after the aggregation controller has filled admin, edit and view. */
function aggregated(): ClusterRole[] {
  const roles = structuredClone(policy.clusterRoles);
  // view feeds edit, and edit feeds admin: three passes settle the chain.
  for (let pass = 0; pass < 3; pass++) {
    for (const role of roles) {
      const result = aggregateClusterRole(role, roles);
      if (result?.changed) role.rules = result.rules;
    }
  }
  return roles;
}

const roles = aggregated();
const source = new StaticPolicySource({
  clusterRoles: roles,
  clusterRoleBindings: policy.clusterRoleBindings,
  roles: policy.roles,
  roleBindings: [
    ...policy.roleBindings,
    ...['view', 'edit', 'admin'].map((role) => ({
      metadata: { name: role, namespace: 'team' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `${role}-user` }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    })),
  ],
});
const rbac = new RbacAuthorizer(source);
const authenticated = (name: string, ...groups: string[]): AttributesUser => ({
  name,
  groups: [...groups, 'system:authenticated'],
});
const anonymous: AttributesUser = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

describe('bootstrap objects', () => {
  it('cluster-admin may do everything', () => {
    expect(byName('cluster-admin')).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: 'cluster-admin',
        labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
        annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
      },
      rules: [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ],
    });
  });

  it('every object carries the bootstrap label and autoupdate annotation', () => {
    const all = [
      ...policy.clusterRoles,
      ...policy.clusterRoleBindings,
      ...policy.roles,
      ...policy.roleBindings,
    ];
    for (const object of all) {
      expect(object.metadata.labels?.['kubernetes.io/bootstrapping'], object.metadata.name).toBe(
        'rbac-defaults',
      );
      expect(object.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    }
    const names = policy.clusterRoles.map((role) => role.metadata.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('sorts every list in a rule, as the Kubernetes rule builder does', () => {
    const scheduler = byName('system:kube-scheduler').rules!;
    expect(scheduler[0]).toEqual({
      verbs: ['create', 'patch', 'update'],
      apiGroups: ['', 'events.k8s.io'],
      resources: ['events'],
    });
    expect(scheduler).toContainEqual({
      verbs: ['get', 'list', 'update', 'watch'],
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['kube-scheduler'],
    });
    expect(byName('system:discovery').rules).toEqual([
      {
        verbs: ['get'],
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
      },
    ]);
  });

  it('admin, edit and view aggregate by label and start without rules', () => {
    expect(byName('edit')).toMatchObject({
      metadata: {
        labels: {
          'kubernetes.io/bootstrapping': 'rbac-defaults',
          'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
        },
      },
      rules: null,
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }],
      },
    });
    expect(byName('system:aggregate-to-edit').metadata.labels).toEqual({
      'kubernetes.io/bootstrapping': 'rbac-defaults',
      'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
    });
  });

  it('has one role and service-account binding per 1.33 controller', () => {
    const controllers = policy.clusterRoles.filter((role) =>
      role.metadata.name.startsWith('system:controller:'),
    );
    expect(controllers).toHaveLength(35);
    const names = controllers.map((role) => role.metadata.name);
    expect(names).toContain('system:controller:service-cidrs-controller');
    expect(names).toContain('system:controller:selinux-warning-controller');
    expect(names).not.toContain('system:controller:resource-claim-controller');
    const binding = policy.clusterRoleBindings.find(
      (b) => b.metadata.name === 'system:controller:job-controller',
    );
    expect(binding?.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'job-controller', namespace: 'kube-system' },
    ]);
    expect(binding?.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'system:controller:job-controller',
    });
  });

  it('binds system:masters to cluster-admin and leaves system:node without subjects', () => {
    const bindings = Object.fromEntries(policy.clusterRoleBindings.map((b) => [b.metadata.name, b]));
    expect(bindings['cluster-admin']?.subjects).toEqual([
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:masters' },
    ]);
    expect(bindings['system:public-info-viewer']?.subjects?.map((s) => s.name)).toEqual([
      'system:authenticated',
      'system:unauthenticated',
    ]);
    expect(bindings['system:node']).not.toHaveProperty('subjects');
  });

  it('creates the kube-system and kube-public roles and bindings', () => {
    expect(policy.roles.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toEqual([
      'kube-system/extension-apiserver-authentication-reader',
      'kube-system/system:controller:bootstrap-signer',
      'kube-system/system:controller:cloud-provider',
      'kube-system/system:controller:token-cleaner',
      'kube-system/system::leader-locking-kube-controller-manager',
      'kube-system/system::leader-locking-kube-scheduler',
      'kube-public/system:controller:bootstrap-signer',
    ]);
    const reader = policy.roleBindings.find(
      (b) => b.metadata.name === 'system::extension-apiserver-authentication-reader',
    );
    expect(reader?.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'extension-apiserver-authentication-reader',
    });
  });
});

describe('aggregated roles', () => {
  const rulesOf = (name: string) => roles.find((role) => role.metadata.name === name)!.rules!;
  const grants = (name: string, verb: string, apiGroup: string, resource: string) =>
    coversRules(rulesOf(name), [{ verbs: [verb], apiGroups: [apiGroup], resources: [resource] }]).covers;

  it('view reads workloads but not secrets', () => {
    expect(grants('view', 'list', '', 'pods')).toBe(true);
    expect(grants('view', 'get', 'apps', 'deployments')).toBe(true);
    expect(grants('view', 'get', '', 'secrets')).toBe(false);
    expect(grants('view', 'create', '', 'pods')).toBe(false);
  });

  it('edit is view plus writes and secrets', () => {
    expect(coversRules(rulesOf('edit'), rulesOf('view')).covers).toBe(true);
    expect(grants('edit', 'get', '', 'secrets')).toBe(true);
    expect(grants('edit', 'create', 'apps', 'deployments')).toBe(true);
    expect(grants('edit', 'create', 'rbac.authorization.k8s.io', 'rolebindings')).toBe(false);
  });

  it('admin is edit plus roles and bindings', () => {
    expect(coversRules(rulesOf('admin'), rulesOf('edit')).covers).toBe(true);
    expect(grants('admin', 'create', 'rbac.authorization.k8s.io', 'rolebindings')).toBe(true);
    expect(grants('admin', 'create', '', 'resourcequotas')).toBe(false);
  });
});

describe('authorizing with the bootstrap policy', () => {
  it('system:masters through the cluster-admin binding', () => {
    expect(
      rbac.authorize(
        resourceAttributes(authenticated('root', 'system:masters'), 'delete', {
          resource: 'nodes',
          name: 'n',
        }),
      ),
    ).toEqual({
      decision: 'allow',
      reason:
        'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"',
    });
  });

  it('anonymous sees health and version only; authenticated users also discovery', () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) {
      expect(rbac.authorize(nonResourceAttributes(anonymous, 'get', path)).decision, path).toBe('allow');
    }
    expect(rbac.authorize(nonResourceAttributes(anonymous, 'get', '/api')).decision).toBe('noOpinion');
    expect(rbac.authorize(nonResourceAttributes(authenticated('u'), 'get', '/apis/apps/v1')).decision).toBe(
      'allow',
    );
    expect(rbac.authorize(nonResourceAttributes(authenticated('u'), 'get', '/metrics')).decision).toBe(
      'noOpinion',
    );
    expect(
      rbac.authorize(
        resourceAttributes(authenticated('u'), 'create', {
          apiGroup: 'authorization.k8s.io',
          resource: 'selfsubjectaccessreviews',
        }),
      ).decision,
    ).toBe('allow');
  });

  it('view, edit and admin bound in a namespace', () => {
    const check = (user: string, verb: string, apiGroup: string, resource: string, namespace = 'team') =>
      rbac.authorize(resourceAttributes(authenticated(user), verb, { apiGroup, resource, namespace }))
        .decision;
    expect(check('view-user', 'list', '', 'pods')).toBe('allow');
    expect(check('view-user', 'list', '', 'secrets')).toBe('noOpinion');
    expect(check('view-user', 'list', '', 'pods', 'other')).toBe('noOpinion');
    expect(check('edit-user', 'create', 'apps', 'deployments')).toBe('allow');
    expect(check('edit-user', 'create', 'rbac.authorization.k8s.io', 'roles')).toBe('noOpinion');
    expect(check('admin-user', 'create', 'rbac.authorization.k8s.io', 'roles')).toBe('allow');
  });

  it('components and service accounts', () => {
    const scheduler = authenticated('system:kube-scheduler');
    expect(
      rbac.authorize(
        resourceAttributes(scheduler, 'create', {
          resource: 'pods',
          subresource: 'binding',
          namespace: 'x',
          name: 'p',
        }),
      ).decision,
    ).toBe('allow');
    const sa = {
      name: 'system:serviceaccount:x:default',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:x', 'system:authenticated'],
    };
    expect(rbac.authorize(nonResourceAttributes(sa, 'get', '/openid/v1/jwks')).decision).toBe('allow');
    const hpa = {
      name: 'system:serviceaccount:kube-system:horizontal-pod-autoscaler',
      groups: ['system:serviceaccounts'],
    };
    expect(
      rbac.authorize(
        resourceAttributes(hpa, 'update', {
          apiGroup: 'apps',
          resource: 'deployments',
          subresource: 'scale',
          namespace: 'a',
          name: 'd',
        }),
      ).decision,
    ).toBe('allow');
    // The scheduler's ClusterRole has no configmaps: only the kube-system RoleBinding grants this.
    const reader = authenticated('system:kube-scheduler');
    expect(
      rbac.authorize(
        resourceAttributes(reader, 'get', {
          resource: 'configmaps',
          namespace: 'kube-system',
          name: 'extension-apiserver-authentication',
        }),
      ).reason,
    ).toBe(
      'RBAC: allowed by RoleBinding "system::extension-apiserver-authentication-reader/kube-system" of Role "extension-apiserver-authentication-reader" to User "system:kube-scheduler"',
    );
    expect(
      rbac.authorize(
        resourceAttributes(reader, 'get', {
          resource: 'configmaps',
          namespace: 'kube-system',
          name: 'other',
        }),
      ).decision,
    ).toBe('noOpinion');
  });

  it('through the default chain, system:masters needs no policy at all', () => {
    const empty = defaultAuthorizer(new StaticPolicySource({}));
    expect(
      empty.authorize(nonResourceAttributes(authenticated('root', 'system:masters'), 'get', '/x')).decision,
    ).toBe('allow');
  });
});
