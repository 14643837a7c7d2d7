import { describe, expect, it } from 'vitest';
import {
  type Attributes,
  type AttributesUser,
  type ClusterRole,
  defaultAuthorizer,
  nonResourceAttributes,
  type PolicyRule,
  PrivilegedGroupsAuthorizer,
  RbacAuthorizer,
  type RoleBinding,
  requestAttributes,
  resourceAttributes,
  StaticPolicySource,
  type Subject,
  UnionAuthorizer,
} from '../../../src/apiserver/auth/rbac/index.js';
import { parseRequestInfo } from '../../../src/apiserver/request-info.js';

const alice: AttributesUser = { name: 'alice', groups: ['system:authenticated'] };

function clusterRole(name: string, rules: PolicyRule[]): ClusterRole {
  return { metadata: { name }, rules };
}

function clusterBinding(name: string, role: string, subjects: Subject[]): RoleBinding {
  return {
    metadata: { name },
    subjects,
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
  };
}

const user = (name: string): Subject => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });

/** An authorizer where alice holds exactly `rule` cluster-wide. */
function holding(rule: PolicyRule): RbacAuthorizer {
  return new RbacAuthorizer(
    new StaticPolicySource({
      clusterRoles: [clusterRole('r', [rule])],
      clusterRoleBindings: [clusterBinding('b', 'r', [user('alice')])],
    }),
  );
}

function request(verb: string, fields: Parameters<typeof resourceAttributes>[2]): Attributes {
  return resourceAttributes(alice, verb, fields);
}

describe('rule features', () => {
  const pods = { resource: 'pods', namespace: 'default' };
  const cases: [string, PolicyRule, Attributes, boolean][] = [
    [
      'exact verb, group, resource',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      request('get', pods),
      true,
    ],
    ['other verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, request('list', pods), false],
    [
      'verb *',
      { verbs: ['*'], apiGroups: [''], resources: ['pods'] },
      request('deletecollection', pods),
      true,
    ],
    [
      'other group',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] },
      request('get', pods),
      false,
    ],
    [
      'group *',
      { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] },
      request('get', { apiGroup: 'apps', resource: 'deployments' }),
      true,
    ],
    ['no apiGroups matches nothing', { verbs: ['get'], resources: ['pods'] }, request('get', pods), false],
    [
      'other resource',
      { verbs: ['get'], apiGroups: [''], resources: ['services'] },
      request('get', pods),
      false,
    ],
    ['resource *', { verbs: ['get'], apiGroups: [''], resources: ['*'] }, request('get', pods), true],
    [
      'resource * covers subresources',
      { verbs: ['get'], apiGroups: [''], resources: ['*'] },
      request('get', { ...pods, subresource: 'log', name: 'web' }),
      true,
    ],
    [
      'resource does not cover its subresource',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      request('get', { ...pods, subresource: 'log', name: 'web' }),
      false,
    ],
    [
      'resource/subresource',
      { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
      request('get', { ...pods, subresource: 'log', name: 'web' }),
      true,
    ],
    [
      'resource/subresource does not cover the resource',
      { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
      request('get', { ...pods, name: 'web' }),
      false,
    ],
    [
      '*/subresource of any resource',
      { verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] },
      request('update', { apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' }),
      true,
    ],
    [
      '*/subresource needs that subresource',
      { verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] },
      request('update', { apiGroup: 'apps', resource: 'deployments', subresource: 'status', name: 'web' }),
      false,
    ],
    [
      '*/subresource is not the resource itself',
      { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] },
      request('get', { apiGroup: 'apps', resource: 'deployments', name: 'web' }),
      false,
    ],
    [
      'pods/* is literal, not a wildcard',
      { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] },
      request('get', { ...pods, subresource: 'log', name: 'web' }),
      false,
    ],
    [
      'resourceNames: named object',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'] },
      request('get', { resource: 'configmaps', namespace: 'ns', name: 'b' }),
      true,
    ],
    [
      'resourceNames: other object',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      request('get', { resource: 'configmaps', namespace: 'ns', name: 'c' }),
      false,
    ],
    [
      'resourceNames: a list has no name',
      { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      request('list', { resource: 'configmaps', namespace: 'ns' }),
      false,
    ],
    [
      'resource rule does not grant paths',
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      nonResourceAttributes(alice, 'get', '/healthz'),
      false,
    ],
    [
      'exact URL',
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      nonResourceAttributes(alice, 'get', '/healthz'),
      true,
    ],
    [
      'exact URL is not a prefix',
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      nonResourceAttributes(alice, 'get', '/healthz/etcd'),
      false,
    ],
    [
      'URL with * suffix is a prefix',
      { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
      nonResourceAttributes(alice, 'get', '/apis/apps/v1'),
      true,
    ],
    [
      'URL prefix matches without a slash boundary',
      { verbs: ['get'], nonResourceURLs: ['/healthz*'] },
      nonResourceAttributes(alice, 'get', '/healthzzz'),
      true,
    ],
    [
      'URL prefix does not match its own parent',
      { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
      nonResourceAttributes(alice, 'get', '/apis'),
      false,
    ],
    [
      'URL *',
      { verbs: ['get'], nonResourceURLs: ['*'] },
      nonResourceAttributes(alice, 'get', '/anything'),
      true,
    ],
    [
      'URL rule needs the verb',
      { verbs: ['get'], nonResourceURLs: ['*'] },
      nonResourceAttributes(alice, 'post', '/anything'),
      false,
    ],
    [
      'URL rule does not grant resources',
      { verbs: ['*'], nonResourceURLs: ['*'] },
      request('get', pods),
      false,
    ],
  ];
  it.each(cases)('%s', (_name, rule, attributes, allowed) => {
    const result = holding(rule).authorize(attributes);
    expect(result.decision).toBe(allowed ? 'allow' : 'noOpinion');
    if (allowed) {
      expect(result.reason).toBe(
        'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "alice"',
      );
    } else {
      expect(result.reason).toBe('');
    }
  });
});

describe('subjects', () => {
  const readPods = clusterRole('read-pods', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
  const getPod = (who: AttributesUser, namespace: string) =>
    resourceAttributes(who, 'get', { resource: 'pods', namespace, name: 'p' });
  const sa = (namespace: string, name: string): AttributesUser => ({
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  });
  const cases: [string, Subject, AttributesUser, string, string | undefined][] = [
    ['User by name', user('alice'), alice, 'default', 'User "alice"'],
    ['User of another name', user('bob'), alice, 'default', undefined],
    [
      'Group the user is in',
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
      { name: 'carol', groups: ['devs'] },
      'default',
      'Group "devs"',
    ],
    ['Group the user is not in', { kind: 'Group', name: 'devs' }, alice, 'default', undefined],
    [
      'ServiceAccount',
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
      sa('ci', 'builder'),
      'default',
      'ServiceAccount "builder/ci"',
    ],
    [
      'ServiceAccount of another namespace',
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
      sa('dev', 'builder'),
      'default',
      undefined,
    ],
    [
      'ServiceAccount without namespace in a ClusterRoleBinding',
      { kind: 'ServiceAccount', name: 'builder' },
      sa('ci', 'builder'),
      'ci',
      undefined,
    ],
    [
      'all service accounts group',
      { kind: 'Group', name: 'system:serviceaccounts' },
      sa('ci', 'builder'),
      'default',
      'Group "system:serviceaccounts"',
    ],
    [
      'service accounts of a namespace',
      { kind: 'Group', name: 'system:serviceaccounts:ci' },
      sa('ci', 'builder'),
      'default',
      'Group "system:serviceaccounts:ci"',
    ],
    ['unknown subject kind', { kind: 'Robot', name: 'alice' }, alice, 'default', undefined],
  ];
  it.each(cases)('%s', (_name, subject, who, namespace, described) => {
    const authorizer = new RbacAuthorizer(
      new StaticPolicySource({
        clusterRoles: [readPods],
        clusterRoleBindings: [clusterBinding('b', 'read-pods', [subject])],
      }),
    );
    const result = authorizer.authorize(getPod(who, namespace));
    if (described === undefined) {
      expect(result).toEqual({ decision: 'noOpinion', reason: '' });
    } else {
      expect(result).toEqual({
        decision: 'allow',
        reason: `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "read-pods" to ${described}`,
      });
    }
  });

  it('a RoleBinding ServiceAccount subject without namespace means the binding namespace', () => {
    const source = new StaticPolicySource({
      clusterRoles: [readPods],
      roleBindings: [
        {
          metadata: { name: 'rb', namespace: 'ci' },
          subjects: [{ kind: 'ServiceAccount', name: 'builder' }],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'read-pods' },
        },
      ],
    });
    const authorizer = new RbacAuthorizer(source);
    expect(authorizer.authorize(getPod(sa('ci', 'builder'), 'ci'))).toEqual({
      decision: 'allow',
      reason:
        'RBAC: allowed by RoleBinding "rb/ci" of ClusterRole "read-pods" to ServiceAccount "builder/ci"',
    });
    expect(authorizer.authorize(getPod(sa('dev', 'builder'), 'ci')).decision).toBe('noOpinion');
  });
});

describe('RoleBindings', () => {
  const source = new StaticPolicySource({
    clusterRoles: [
      clusterRole('pod-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]),
    ],
    roles: [
      {
        metadata: { name: 'cm-writer', namespace: 'team' },
        rules: [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }],
      },
    ],
    roleBindings: [
      {
        metadata: { name: 'read', namespace: 'team' },
        subjects: [user('alice')],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'pod-reader' },
      },
      {
        metadata: { name: 'write', namespace: 'team' },
        subjects: [user('alice')],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-writer' },
      },
    ],
  });
  const authorizer = new RbacAuthorizer(source);

  it('grants a ClusterRole only in the binding namespace', () => {
    expect(authorizer.authorize(request('list', { resource: 'pods', namespace: 'team' }))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "read/team" of ClusterRole "pod-reader" to User "alice"',
    });
    expect(authorizer.authorize(request('list', { resource: 'pods', namespace: 'other' })).decision).toBe(
      'noOpinion',
    );
    // A list across all namespaces is cluster scope: RoleBindings do not apply.
    expect(authorizer.authorize(request('list', { resource: 'pods' })).decision).toBe('noOpinion');
  });

  it('grants a Role of the binding namespace', () => {
    expect(
      authorizer.authorize(request('create', { resource: 'configmaps', namespace: 'team' })).decision,
    ).toBe('allow');
  });

  it('reads the namespace of a namespace request from the path', () => {
    const info = parseRequestInfo('GET', '/api/v1/namespaces/team/pods', new URLSearchParams());
    expect(authorizer.authorize(requestAttributes(info, alice)).decision).toBe('allow');
    const all = parseRequestInfo('GET', '/api/v1/pods', new URLSearchParams());
    expect(authorizer.authorize(requestAttributes(all, alice)).decision).toBe('noOpinion');
  });
});

describe('missing roles', () => {
  it('reports them as the reason when nothing allows', () => {
    const source = new StaticPolicySource({
      clusterRoleBindings: [clusterBinding('gone', 'deleted-role', [user('alice')])],
      roleBindings: [
        {
          metadata: { name: 'rb', namespace: 'ns' },
          subjects: [user('alice')],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'missing' },
        },
      ],
    });
    const authorizer = new RbacAuthorizer(source);
    expect(authorizer.authorize(request('get', { resource: 'pods', namespace: 'ns' }))).toEqual({
      decision: 'noOpinion',
      reason:
        'RBAC: [clusterrole.rbac.authorization.k8s.io "deleted-role" not found, role.rbac.authorization.k8s.io "missing" not found]',
    });
    expect(authorizer.authorize(request('get', { resource: 'pods' }))).toEqual({
      decision: 'noOpinion',
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "deleted-role" not found',
    });
  });

  it('still allows by other bindings', () => {
    const source = new StaticPolicySource({
      clusterRoles: [clusterRole('ok', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])],
      clusterRoleBindings: [
        clusterBinding('gone', 'deleted-role', [user('alice')]),
        clusterBinding('fine', 'ok', [user('alice')]),
      ],
    });
    expect(new RbacAuthorizer(source).authorize(request('get', { resource: 'pods' })).decision).toBe('allow');
  });

  it('names an unsupported roleRef kind', () => {
    const binding = clusterBinding('odd', 'x', [user('alice')]);
    binding.roleRef.kind = 'Policy';
    const authorizer = new RbacAuthorizer(new StaticPolicySource({ clusterRoleBindings: [binding] }));
    expect(authorizer.authorize(request('get', { resource: 'pods' })).reason).toBe(
      'RBAC: unsupported role reference kind: "Policy"',
    );
  });
});

describe('rulesFor', () => {
  it('splits resource and non-resource rules and reports resolution errors', () => {
    const source = new StaticPolicySource({
      clusterRoles: [
        clusterRole('mixed', [
          { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] },
          { verbs: ['get'], nonResourceURLs: ['/healthz'] },
        ]),
      ],
      clusterRoleBindings: [
        clusterBinding('a', 'mixed', [user('alice')]),
        clusterBinding('b', 'gone', [user('alice')]),
      ],
      roleBindings: [
        {
          metadata: { name: 'rb', namespace: 'ns' },
          subjects: [user('alice')],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'mixed' },
        },
      ],
    });
    const authorizer = new RbacAuthorizer(source);
    expect(authorizer.rulesFor(alice, '')).toEqual({
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
      evaluationError: 'clusterrole.rbac.authorization.k8s.io "gone" not found',
    });
    expect(authorizer.rulesFor(alice, 'ns').resourceRules).toHaveLength(2);
    expect(authorizer.rulesFor({ name: 'bob', groups: [] }, 'ns')).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
      evaluationError: '',
    });
  });
});

describe('privileged groups and the union', () => {
  const nothing = new StaticPolicySource({});
  const masters: AttributesUser = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };

  it('allows system:masters anything, with no reason', () => {
    const authorizer = new PrivilegedGroupsAuthorizer();
    expect(
      authorizer.authorize(resourceAttributes(masters, 'delete', { resource: 'nodes', name: 'n1' })),
    ).toEqual({
      decision: 'allow',
      reason: '',
    });
    expect(authorizer.authorize(nonResourceAttributes(alice, 'get', '/metrics'))).toEqual({
      decision: 'noOpinion',
      reason: '',
    });
  });

  it('defaultAuthorizer: system:masters first, then RBAC', () => {
    const authorizer = defaultAuthorizer(nothing);
    expect(authorizer.authorize(nonResourceAttributes(masters, 'get', '/metrics')).decision).toBe('allow');
    expect(authorizer.authorize(nonResourceAttributes(alice, 'get', '/metrics')).decision).toBe('noOpinion');
  });

  it('the first allow or deny decides; otherwise reasons are joined', () => {
    const fixed = (decision: 'allow' | 'deny' | 'noOpinion', reason: string) => ({
      authorize: () => ({ decision, reason }),
    });
    const attributes = nonResourceAttributes(alice, 'get', '/');
    expect(
      new UnionAuthorizer(fixed('noOpinion', 'a'), fixed('deny', 'no'), fixed('allow', 'yes')).authorize(
        attributes,
      ),
    ).toEqual({
      decision: 'deny',
      reason: 'no',
    });
    expect(
      new UnionAuthorizer(fixed('noOpinion', 'a'), fixed('noOpinion', ''), fixed('noOpinion', 'b')).authorize(
        attributes,
      ),
    ).toEqual({
      decision: 'noOpinion',
      reason: 'a\nb',
    });
  });
});
