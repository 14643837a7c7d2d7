import { describe, expect, it } from 'vitest';
import {
  type AttributesUser,
  bindAttributes,
  breakdownRule,
  type ClusterRole,
  clusterRoleEscalationError,
  compactRuleString,
  compactRules,
  confirmNoEscalation,
  coversRules,
  escalateAttributes,
  escalationAllowed,
  escalationError,
  type PolicyRule,
  StaticPolicySource,
} from '../../../src/apiserver/auth/rbac/index.js';

const alice: AttributesUser = { name: 'alice', groups: ['devs', 'system:authenticated'] };

describe('coversRules', () => {
  const cases: [string, PolicyRule[], PolicyRule[], boolean][] = [
    [
      'same rule',
      [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
      [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }],
      true,
    ],
    [
      'missing verb',
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }],
      false,
    ],
    [
      'verb *',
      [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }],
      [{ verbs: ['escalate'], apiGroups: [''], resources: ['pods'] }],
      true,
    ],
    [
      'group *',
      [{ verbs: ['get'], apiGroups: ['*'], resources: ['pods'] }],
      [{ verbs: ['get'], apiGroups: ['', 'apps'], resources: ['pods'] }],
      true,
    ],
    [
      'resource * covers subresources',
      [{ verbs: ['get'], apiGroups: [''], resources: ['*'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log', 'secrets'] }],
      true,
    ],
    [
      '*/scale covers x/scale',
      [{ verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] }],
      [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/scale', 'statefulsets/scale'] }],
      true,
    ],
    [
      '*/scale does not cover the resource',
      [{ verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] }],
      [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'] }],
      false,
    ],
    [
      'unnamed covers named',
      [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s'] }],
      true,
    ],
    [
      'named does not cover unnamed',
      [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
      false,
    ],
    [
      'names must all be held',
      [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a', 'b'] }],
      false,
    ],
    [
      'URL prefix',
      [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }],
      [{ verbs: ['get'], nonResourceURLs: ['/apis/apps', '/apis/*'] }],
      true,
    ],
    [
      'URL * covers any path',
      [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      [{ verbs: ['get'], nonResourceURLs: ['/x'] }],
      true,
    ],
    [
      'resource rules do not cover URLs',
      [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      false,
    ],
    [
      'URL rules do not cover resources',
      [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      false,
    ],
    [
      'split across owner rules',
      [
        { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      ],
      [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
      true,
    ],
    ['nothing requested', [], [], true],
  ];
  it.each(cases)('%s', (_name, owner, requested, covers) => {
    expect(coversRules(owner, requested).covers).toBe(covers);
  });

  it('lists what is missing, broken down to one verb/resource/name each', () => {
    const { missing } = coversRules(
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      [{ verbs: ['get', 'delete'], apiGroups: ['', 'apps'], resources: ['pods'], resourceNames: ['a'] }],
    );
    expect(missing).toEqual([
      { verbs: ['delete'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['delete'], apiGroups: ['apps'], resources: ['pods'], resourceNames: ['a'] },
    ]);
  });
});

describe('compact rules', () => {
  it('breaks down and merges verbs of one group/resource/name', () => {
    const parts = breakdownRule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'secrets'] });
    expect(parts).toHaveLength(4);
    expect(compactRules([...parts, { verbs: ['get'], nonResourceURLs: ['/x'] }])).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/x'] },
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] },
    ]);
  });

  it('prints rules as Kubernetes does', () => {
    expect(compactRuleString({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] })).toBe(
      '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
    );
    expect(compactRuleString({ verbs: ['get'], nonResourceURLs: ['/healthz'] })).toBe(
      '{NonResourceURLs:["/healthz"], Verbs:["get"]}',
    );
    expect(
      compactRuleString({ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s'] }),
    ).toBe('{APIGroups:[""], Resources:["secrets"], ResourceNames:["s"], Verbs:["get"]}');
  });
});

describe('escalation', () => {
  it('reports missing permissions sorted, one per line', () => {
    const message = escalationError(
      alice,
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['secrets', 'pods'] },
        { verbs: ['get'], nonResourceURLs: ['/metrics'] },
      ],
    );
    expect(message).toBe(
      'user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["list" "watch"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}\n' +
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
  });

  it('is undefined when the user holds everything', () => {
    expect(
      escalationError(
        alice,
        [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] }],
      ),
    ).toBeUndefined();
  });

  it('resolves the user rules in the namespace and appends resolution errors', () => {
    const source = new StaticPolicySource({
      clusterRoles: [
        { metadata: { name: 'r' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] },
      ],
      roleBindings: [
        {
          metadata: { name: 'rb', namespace: 'ns' },
          subjects: [{ kind: 'User', name: 'alice' }],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' },
        },
        {
          metadata: { name: 'broken', namespace: 'ns' },
          subjects: [{ kind: 'User', name: 'alice' }],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gone' },
        },
      ],
    });
    const wanted = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
    expect(confirmNoEscalation(source, alice, 'ns', wanted)).toBeUndefined();
    expect(confirmNoEscalation(source, alice, 'other', wanted)).toBe(
      'user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
    );
    expect(
      confirmNoEscalation(source, alice, 'ns', [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]),
    ).toBe(
      'user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}; resolution errors: [role.rbac.authorization.k8s.io "gone" not found]',
    );
  });

  it('lets system:masters escalate, and builds the bind and escalate checks', () => {
    expect(escalationAllowed({ name: 'root', groups: ['system:masters'] })).toBe(true);
    expect(escalationAllowed(alice)).toBe(false);
    expect(
      bindAttributes(
        alice,
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
        'ns',
      ),
    ).toMatchObject({
      verb: 'bind',
      apiGroup: 'rbac.authorization.k8s.io',
      resource: 'clusterroles',
      name: 'admin',
      namespace: 'ns',
    });
    expect(bindAttributes(alice, { apiGroup: 'x', kind: 'Other', name: 'n' }, '')).toBeUndefined();
    expect(
      escalateAttributes(alice, {
        apiGroup: 'rbac.authorization.k8s.io',
        resource: 'roles',
        namespace: 'ns',
        name: 'r',
      }),
    ).toMatchObject({ verb: 'escalate', resource: 'roles', apiVersion: '*', namespace: 'ns', name: 'r' });
    expect(
      escalateAttributes(alice, { apiGroup: '', resource: 'pods', namespace: 'ns', name: 'p' }),
    ).toBeUndefined();
  });

  it('requires full authority to set or drop an aggregationRule', () => {
    const holder = (rules: PolicyRule[]) =>
      new StaticPolicySource({
        clusterRoles: [{ metadata: { name: 'r' }, rules }],
        clusterRoleBindings: [
          {
            metadata: { name: 'b' },
            subjects: [{ kind: 'User', name: 'alice' }],
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' },
          },
        ],
      });
    const aggregated: ClusterRole = {
      metadata: { name: 'agg' },
      rules: [],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] },
    };
    const plain: ClusterRole = { metadata: { name: 'agg' }, rules: [] };
    const everythingButPaths = holder([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    expect(clusterRoleEscalationError(everythingButPaths, alice, aggregated)).toBe(
      'must have cluster-admin privileges to use the aggregationRule',
    );
    expect(clusterRoleEscalationError(everythingButPaths, alice, plain)).toBeUndefined();
    expect(clusterRoleEscalationError(everythingButPaths, alice, plain, aggregated)).toBe(
      'must have cluster-admin privileges to use the aggregationRule',
    );
    const admin = holder([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]);
    expect(clusterRoleEscalationError(admin, alice, aggregated)).toBeUndefined();
  });
});
