/**
 * ClusterRole aggregation (the clusterrole-aggregation controller): an aggregated role's rules
 * are the rules of every other ClusterRole its selectors match.
 */
import { compareGoStrings } from '../../../api/selectors/go-text.js';
import { labelSelectorFromObject } from '../../../api/selectors/index.js';
import type { ClusterRole, PolicyRule } from './types.js';

function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && left.every((value, i) => value === right[i]);
}

/** Semantic equality: an absent list and an empty one are the same, order matters. */
export function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  return (
    sameStrings(a.verbs, b.verbs) &&
    sameStrings(a.apiGroups, b.apiGroups) &&
    sameStrings(a.resources, b.resources) &&
    sameStrings(a.resourceNames, b.resourceNames) &&
    sameStrings(a.nonResourceURLs, b.nonResourceURLs)
  );
}

export function sameRules(
  a: readonly PolicyRule[] | null | undefined,
  b: readonly PolicyRule[] | null | undefined,
) {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && left.every((rule, i) => sameRule(rule, right[i]!));
}

export interface AggregationResult {
  readonly rules: PolicyRule[];
  /** Whether the role's stored rules differ, so the controller would write them. */
  readonly changed: boolean;
}

/**
 * The rules of an aggregated ClusterRole, or undefined for a role without an aggregationRule.
 * For each selector in order, matching roles are taken by name (Go string order), the role
 * itself skipped, and each rule added unless an equal rule is already there. An invalid
 * selector throws the SelectorError the controller would fail with.
 */
export function aggregateClusterRole(
  role: ClusterRole,
  allClusterRoles: readonly ClusterRole[],
): AggregationResult | undefined {
  if (!role.aggregationRule) return undefined;
  const rules: PolicyRule[] = [];
  for (const selectorObject of role.aggregationRule.clusterRoleSelectors ?? []) {
    const selector = labelSelectorFromObject(selectorObject);
    const matching = allClusterRoles
      .filter((candidate) => selector.matches(candidate.metadata.labels ?? {}))
      .sort((a, b) => compareGoStrings(a.metadata.name, b.metadata.name));
    for (const candidate of matching) {
      if (candidate.metadata.name === role.metadata.name) continue;
      for (const rule of candidate.rules ?? []) {
        if (!rules.some((existing) => sameRule(existing, rule))) rules.push(rule);
      }
    }
  }
  return { rules, changed: !sameRules(rules, role.rules) };
}

/** The aggregated roles whose rules are out of date, with their new rules. */
export function aggregateAll(allClusterRoles: readonly ClusterRole[]): Map<string, PolicyRule[]> {
  const updates = new Map<string, PolicyRule[]>();
  for (const role of allClusterRoles) {
    const result = aggregateClusterRole(role, allClusterRoles);
    if (result?.changed) updates.set(role.metadata.name, result.rules);
  }
  return updates;
}
