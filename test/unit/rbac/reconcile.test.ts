import { describe, expect, it } from 'vitest';
import {
  bootstrapPolicy,
  type ClusterRole,
  type ClusterRoleBinding,
  needsWrite,
  reconcileRole,
  reconcileRoleBinding,
} from '../../../src/apiserver/auth/rbac/index.js';

const policy = bootstrapPolicy();
const expectedRole = (name: string) => policy.clusterRoles.find((role) => role.metadata.name === name)!;
const expectedBinding = (name: string) => policy.clusterRoleBindings.find((b) => b.metadata.name === name)!;

/** The object as the store would hand it back: a copy with server fields filled in. */
function stored<T extends ClusterRole | ClusterRoleBinding>(object: T): T {
  const copy = structuredClone(object);
  copy.metadata.uid = 'u-1';
  copy.metadata.resourceVersion = '42';
  return copy;
}

describe('reconcileRole', () => {
  const discovery = expectedRole('system:discovery');

  it('creates a missing role', () => {
    const result = reconcileRole(discovery, undefined);
    expect(result.operation).toBe('create');
    expect(result.object).toBe(discovery);
    expect(needsWrite(result)).toBe(true);
  });

  it('leaves an up-to-date role alone', () => {
    const result = reconcileRole(discovery, stored(discovery));
    expect(result.operation).toBe('none');
    expect(needsWrite(result)).toBe(false);
  });

  it('adds missing rules, broken down, and keeps what users added', () => {
    const existing = stored(discovery);
    existing.rules = [
      {
        verbs: ['get'],
        nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi'],
      },
      { verbs: ['get'], nonResourceURLs: ['/custom'] },
    ];
    const result = reconcileRole(discovery, existing);
    expect(result.operation).toBe('update');
    expect(result.missingRules).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/openapi/*'] },
      { verbs: ['get'], nonResourceURLs: ['/readyz'] },
      { verbs: ['get'], nonResourceURLs: ['/version'] },
      { verbs: ['get'], nonResourceURLs: ['/version/'] },
    ]);
    expect(result.extraRules).toEqual([{ verbs: ['get'], nonResourceURLs: ['/custom'] }]);
    expect(result.object.rules).toEqual([...existing.rules, ...result.missingRules]);
    expect(result.object.metadata.uid).toBe('u-1');
    // The input is not modified.
    expect(existing.rules).toHaveLength(2);
  });

  it('replaces the rules when extra permissions are to be removed', () => {
    const existing = stored(discovery);
    existing.rules!.push({ verbs: ['get'], nonResourceURLs: ['/custom'] });
    const result = reconcileRole(discovery, existing, { removeExtraPermissions: true });
    expect(result.operation).toBe('update');
    expect(result.object.rules).toEqual(discovery.rules);
  });

  it('adds missing labels and annotations, existing values win', () => {
    const existing = stored(discovery);
    existing.metadata.labels = { team: 'a', 'kubernetes.io/bootstrapping': 'custom' };
    delete existing.metadata.annotations;
    const result = reconcileRole(discovery, existing);
    expect(result.operation).toBe('update');
    expect(result.object.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'custom', team: 'a' });
    expect(result.object.metadata.annotations).toEqual({
      'rbac.authorization.kubernetes.io/autoupdate': 'true',
    });
  });

  it('reports but does not write a role opted out with autoupdate "false"', () => {
    const existing = stored(discovery);
    existing.rules = [];
    existing.metadata.annotations = { 'rbac.authorization.kubernetes.io/autoupdate': 'false' };
    const result = reconcileRole(discovery, existing);
    expect(result).toMatchObject({ operation: 'update', protected: true });
    expect(result.missingRules.length).toBeGreaterThan(0);
    expect(needsWrite(result)).toBe(false);
  });

  it('keeps the aggregated rules of an aggregated role and adds missing selectors', () => {
    const edit = expectedRole('edit');
    const existing = stored(edit);
    existing.rules = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
    expect(reconcileRole(edit, existing).operation).toBe('none');

    existing.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { custom: 'true' } }] };
    const result = reconcileRole(edit, existing);
    expect(result.operation).toBe('update');
    expect(result.object.aggregationRule).toEqual({
      clusterRoleSelectors: [
        { matchLabels: { custom: 'true' } },
        { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } },
      ],
    });
    expect(result.object.rules).toEqual(existing.rules);
  });

  it('drops an aggregationRule the bootstrap role does not have', () => {
    const existing = stored(discovery) as ClusterRole;
    existing.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] };
    const result = reconcileRole(discovery, existing);
    expect(result.operation).toBe('update');
    expect(result.object).not.toHaveProperty('aggregationRule');
  });
});

describe('reconcileRoleBinding', () => {
  const admin = expectedBinding('cluster-admin');

  it('creates, or leaves alone when up to date', () => {
    expect(reconcileRoleBinding(admin, undefined).operation).toBe('create');
    expect(reconcileRoleBinding(admin, stored(admin)).operation).toBe('none');
  });

  it('adds missing subjects and keeps extra ones', () => {
    const existing = stored(admin);
    existing.subjects = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }];
    const result = reconcileRoleBinding(admin, existing);
    expect(result.operation).toBe('update');
    expect(result.missingSubjects).toEqual(admin.subjects);
    expect(result.extraSubjects).toEqual(existing.subjects);
    expect(result.object.subjects).toEqual([...existing.subjects, ...admin.subjects!]);
    expect(reconcileRoleBinding(admin, existing, { removeExtraSubjects: true }).object.subjects).toEqual(
      admin.subjects,
    );
  });

  it('recreates a binding whose roleRef changed', () => {
    const existing = stored(admin);
    existing.roleRef = { ...existing.roleRef, name: 'view' };
    const result = reconcileRoleBinding(admin, existing);
    expect(result.operation).toBe('recreate');
    expect(result.object).toBe(admin);
  });

  it('keeps subjects added to the subjectless system:node binding', () => {
    const node = expectedBinding('system:node');
    const existing = stored(node);
    existing.subjects = [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:nodes' }];
    const result = reconcileRoleBinding(node, existing);
    expect(result.operation).toBe('none');
    expect(result.extraSubjects).toEqual(existing.subjects);
  });

  it('does not write a protected binding', () => {
    const existing = stored(admin);
    existing.subjects = [];
    existing.metadata.annotations = { 'rbac.authorization.kubernetes.io/autoupdate': 'false' };
    const result = reconcileRoleBinding(admin, existing);
    expect(result).toMatchObject({ operation: 'update', protected: true });
    expect(needsWrite(result)).toBe(false);
  });
});
