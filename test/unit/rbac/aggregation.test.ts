import { describe, expect, it } from 'vitest';
import { SelectorError } from '../../../src/api/selectors/index.js';
import {
  aggregateAll,
  aggregateClusterRole,
  type ClusterRole,
  type PolicyRule,
} from '../../../src/apiserver/auth/rbac/index.js';

const get = (resource: string): PolicyRule => ({ verbs: ['get'], apiGroups: [''], resources: [resource] });

function role(name: string, labels: Record<string, string>, rules: PolicyRule[] | null): ClusterRole {
  return { metadata: { name, labels }, rules };
}

const aggregate = (name: string, ...labelSets: Record<string, string>[]): ClusterRole => ({
  metadata: { name, labels: { 'aggregate-to-top': 'true' } },
  rules: null,
  aggregationRule: { clusterRoleSelectors: labelSets.map((matchLabels) => ({ matchLabels })) },
});

describe('aggregateClusterRole', () => {
  it('ignores roles without an aggregationRule', () => {
    expect(aggregateClusterRole(role('plain', {}, [get('pods')]), [])).toBeUndefined();
  });

  it('takes matching roles in name order per selector, skipping itself, without duplicates', () => {
    const target = aggregate('target', { a: 'true' }, { b: 'true' });
    const all = [
      target,
      role('zeta', { a: 'true' }, [get('secrets'), get('pods')]),
      role('alpha', { a: 'true' }, [get('pods')]),
      role('beta', { b: 'true' }, [get('nodes'), get('pods')]),
      role('other', { c: 'true' }, [get('services')]),
      // Ordered by Go string comparison (bytes): 'Z' sorts before 'a'.
      role('Zed', { a: 'true' }, [get('events')]),
    ];
    const result = aggregateClusterRole(target, all)!;
    expect(result.rules).toEqual([get('events'), get('pods'), get('secrets'), get('nodes')]);
    expect(result.changed).toBe(true);
  });

  it('treats a rule differing only by an empty list as the same rule', () => {
    const target = aggregate('target', { a: 'true' });
    const all = [
      target,
      role('a1', { a: 'true' }, [
        { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] },
      ]),
      role('a2', { a: 'true' }, [get('pods')]),
    ];
    expect(aggregateClusterRole(target, all)!.rules).toHaveLength(1);
  });

  it('reports no change when the stored rules already match; no matches means no rules', () => {
    const target = aggregate('target', { a: 'true' });
    target.rules = [get('pods')];
    expect(aggregateClusterRole(target, [target, role('a', { a: 'true' }, [get('pods')])])).toEqual({
      rules: [get('pods')],
      changed: false,
    });
    const empty = aggregate('empty', { none: 'true' });
    expect(aggregateClusterRole(empty, [empty])).toEqual({ rules: [], changed: false });
  });

  it('supports matchExpressions and fails on an invalid selector', () => {
    const target: ClusterRole = {
      metadata: { name: 't' },
      rules: null,
      aggregationRule: {
        clusterRoleSelectors: [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['x', 'y'] }] }],
      },
    };
    const all = [target, role('y', { tier: 'y' }, [get('pods')]), role('z', { tier: 'z' }, [get('nodes')])];
    expect(aggregateClusterRole(target, all)!.rules).toEqual([get('pods')]);
    const broken: ClusterRole = {
      metadata: { name: 'b' },
      rules: null,
      aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'k', operator: 'Like' }] }] },
    };
    expect(() => aggregateClusterRole(broken, [broken])).toThrow(SelectorError);
  });

  it('aggregateAll lists only roles whose rules change', () => {
    const done = aggregate('done', { a: 'true' });
    done.rules = [get('pods')];
    const stale = aggregate('stale', { a: 'true' });
    const updates = aggregateAll([done, stale, role('a', { a: 'true' }, [get('pods')])]);
    expect([...updates.keys()]).toEqual(['stale']);
    expect(updates.get('stale')).toEqual([get('pods')]);
  });
});
