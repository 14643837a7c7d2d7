// The clusterrole-aggregation controller: aggregated ClusterRoles (the bootstrap admin/edit/view
// and user-made ones) carry the rules of the roles their selectors match, following changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterRole, PolicyRule } from '../../../src/api/types/rbac-v1.generated.js';
import { CLUSTER_ROLES } from '../../../src/client/resources.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane();
}, 30_000);
afterAll(() => cp?.stop());

const roles = () => cp.admin.resource<ClusterRole>(CLUSTER_ROLES);

function rulesBecome(name: string, check: (rules: PolicyRule[]) => boolean): Promise<PolicyRule[]> {
  return eventually(async () => {
    const rules = (await roles().get('', name)).rules ?? [];
    return check(rules) ? rules : undefined;
  });
}

const WIDGETS: PolicyRule = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] };
const hasWidgets = (rules: PolicyRule[]) => rules.some((rule) => rule.resources?.includes('widgets'));

describe('clusterrole aggregation controller', () => {
  it('fills the bootstrap aggregated roles, through chains (view into edit into admin)', async () => {
    const readsPods = (rules: PolicyRule[]) =>
      rules.some((rule) => rule.resources?.includes('pods') && rule.verbs.includes('get'));
    for (const name of ['admin', 'edit', 'view']) await rulesBecome(name, readsPods);
    // Only admin has what only system:aggregate-to-admin grants.
    const bindsRoles = (rules: PolicyRule[]) =>
      rules.some((rule) => rule.resources?.includes('rolebindings'));
    expect(bindsRoles(await rulesBecome('admin', bindsRoles))).toBe(true);
    expect(bindsRoles((await roles().get('', 'view')).rules ?? [])).toBe(false);
  });

  it('adds and removes the rules of roles matching an aggregation rule', async () => {
    await roles().create({
      metadata: { name: 'widgets-aggregate' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate': 'true' } }] },
    });
    await roles().create({
      metadata: { name: 'widgets-a', labels: { 'example.com/aggregate': 'true' } },
      rules: [WIDGETS],
    });
    await roles().create({
      metadata: { name: 'widgets-b', labels: { 'example.com/aggregate': 'true' } },
      // A rule equal to one already taken is not repeated.
      rules: [WIDGETS, { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
    });
    const rules = await rulesBecome('widgets-aggregate', (r) => r.length === 2);
    expect(rules).toEqual([WIDGETS, { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]);

    await roles().delete('', 'widgets-a');
    await roles().delete('', 'widgets-b');
    await rulesBecome('widgets-aggregate', (r) => r.length === 0);
  });

  it('follows view into edit and admin', async () => {
    await roles().create({
      metadata: { name: 'widgets-viewer', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
      rules: [WIDGETS],
    });
    for (const name of ['view', 'edit', 'admin']) await rulesBecome(name, hasWidgets);
    await roles().delete('', 'widgets-viewer');
    for (const name of ['view', 'edit', 'admin']) await rulesBecome(name, (rules) => !hasWidgets(rules));
  });
});
