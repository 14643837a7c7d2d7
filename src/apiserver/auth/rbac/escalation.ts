/**
 * RBAC's escalation prevention: a user may create or update a role, or bind one, only with
 * permissions they already hold, unless they may `escalate` (roles) or `bind` (bindings), or
 * are in system:masters. Storage for roles and bindings applies these before writing.
 */
import { compareGoStrings, goQuote } from '../../../api/selectors/go-text.js';
import { type Attributes, type AttributesUser, resourceAttributes } from './attributes.js';
import { PRIVILEGED_GROUP } from './authorizer.js';
import { aggregateErrors, type PolicySource, rulesFor } from './rule-resolver.js';
import { compactRuleString, compactRules, coversRules, goQuotedList } from './rules.js';
import { type ClusterRole, type PolicyRule, RBAC_GROUP, type RoleRef } from './types.js';

/** system:masters may always write roles and bindings (the apiserver's loopback is one). */
export function escalationAllowed(user: AttributesUser): boolean {
  return user.groups.includes(PRIVILEGED_GROUP);
}

/**
 * The `bind` check for a binding's role reference, in the binding's namespace ('' for a
 * ClusterRoleBinding); undefined for a kind that cannot be bound.
 */
export function bindAttributes(
  user: AttributesUser,
  roleRef: RoleRef,
  namespace: string,
): Attributes | undefined {
  const resource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : '';
  if (resource === '') return undefined;
  return resourceAttributes(user, 'bind', {
    namespace,
    apiGroup: roleRef.apiGroup,
    resource,
    name: roleRef.name,
  });
}

/** The `escalate` check for a write to roles or clusterroles; undefined for other resources. */
export function escalateAttributes(
  user: AttributesUser,
  request: { apiGroup: string; resource: string; namespace: string; name: string },
): Attributes | undefined {
  if (request.apiGroup !== RBAC_GROUP) return undefined;
  if (request.resource !== 'roles' && request.resource !== 'clusterroles') return undefined;
  return resourceAttributes(user, 'escalate', { ...request, apiVersion: '*' });
}

/**
 * The error text when the owner's rules do not cover the requested ones, or undefined when
 * they do: `user "u" (groups=["g"]) is attempting to grant RBAC permissions not currently
 * held:` and one compact rule per line, sorted, then any rule resolution errors.
 */
export function escalationError(
  user: AttributesUser,
  ownerRules: readonly PolicyRule[],
  requestedRules: readonly PolicyRule[],
  resolutionErrors: readonly string[] = [],
): string | undefined {
  const { covers, missing } = coversRules(ownerRules, requestedRules);
  if (covers) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactRuleString))].sort(compareGoStrings);
  let message =
    `user ${goQuote(user.name)} (groups=${goQuotedList(user.groups)}) ` +
    `is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (resolutionErrors.length > 0) message += `; resolution errors: [${aggregateErrors(resolutionErrors)}]`;
  return message;
}

/**
 * ConfirmNoEscalation: resolves the user's own rules in the namespace of the write ('' for
 * cluster-scoped objects) and checks they cover the rules being granted.
 */
export function confirmNoEscalation(
  source: PolicySource,
  user: AttributesUser,
  namespace: string,
  requestedRules: readonly PolicyRule[],
): string | undefined {
  const owner = rulesFor(source, user, namespace);
  return escalationError(user, owner.rules, requestedRules, owner.errors);
}

/** What setting an aggregationRule requires: everything, since it can gather anything. */
export const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export const AGGREGATION_RULE_FORBIDDEN = 'must have cluster-admin privileges to use the aggregationRule';

export function hasAggregationRule(role: ClusterRole | undefined): boolean {
  return (role?.aggregationRule?.clusterRoleSelectors ?? []).length > 0;
}

/**
 * The ClusterRole write check (after escalationAllowed and the `escalate` check failed): the
 * rules must be held, and a role that has or had an aggregationRule needs full authority.
 */
export function clusterRoleEscalationError(
  source: PolicySource,
  user: AttributesUser,
  role: ClusterRole,
  oldRole?: ClusterRole,
): string | undefined {
  const owner = rulesFor(source, user, '');
  const missing = escalationError(user, owner.rules, role.rules ?? [], owner.errors);
  if (missing !== undefined) return missing;
  if (!hasAggregationRule(role) && !hasAggregationRule(oldRole)) return undefined;
  return coversRules(owner.rules, FULL_AUTHORITY).covers ? undefined : AGGREGATION_RULE_FORBIDDEN;
}
