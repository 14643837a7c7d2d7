/**
 * Which rules apply to a user in a namespace: every ClusterRoleBinding naming the user, then
 * (for a namespaced request) every RoleBinding in that namespace naming the user, each
 * contributing the rules of the role it references (Kubernetes' DefaultRuleResolver).
 */
import { goQuote } from '../../../api/selectors/go-text.js';
import type { AttributesUser } from './attributes.js';
import type { ClusterRole, PolicyRule, Role, RoleBinding, RoleRef, Subject } from './types.js';

/**
 * Where roles and bindings come from: a cache kept current by watches. Lookups return
 * undefined for objects that do not exist.
 */
export interface PolicySource {
  clusterRoles(): readonly ClusterRole[];
  clusterRoleBindings(): readonly RoleBinding[];
  roles(namespace: string): readonly Role[];
  roleBindings(namespace: string): readonly RoleBinding[];
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
}

export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';

/** The username a service account authenticates as. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

/**
 * A binding subject applies to the user by name (User), by one of the user's groups (Group),
 * or as the service account's username (ServiceAccount; an empty subject namespace means the
 * binding's own, which a ClusterRoleBinding does not have).
 */
export function subjectAppliesTo(user: AttributesUser, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && isServiceAccountUsername(user.name, namespace, subject.name);
    }
    default:
      return false;
  }
}

/**
 * `name === serviceAccountUsername(namespace, account)` without building the string: every
 * request is checked against every binding's service account subjects.
 */
function isServiceAccountUsername(name: string, namespace: string, account: string): boolean {
  const prefix = SERVICE_ACCOUNT_USER_PREFIX.length;
  return (
    name.length === prefix + namespace.length + 1 + account.length &&
    name.startsWith(SERVICE_ACCOUNT_USER_PREFIX) &&
    name.startsWith(namespace, prefix) &&
    name.charCodeAt(prefix + namespace.length) === COLON &&
    name.endsWith(account)
  );
}

const COLON = 0x3a;

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    // Kubernetes prints name/namespace, in that order.
    return `${subject.kind} ${goQuote(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  }
  return `${subject.kind} ${goQuote(subject.name)}`;
}

/** How a rule's source is named in "RBAC: allowed by ..." reasons. */
export function describeBinding(binding: RoleBinding, subject: Subject): string {
  const namespace = binding.metadata.namespace ?? '';
  const ref = `${binding.roleRef.kind} ${goQuote(binding.roleRef.name)}`;
  if (namespace === '') {
    const name = goQuote(binding.metadata.name);
    return `ClusterRoleBinding ${name} of ${ref} to ${describeSubject(subject, '')}`;
  }
  const name = goQuote(`${binding.metadata.name}/${namespace}`);
  return `RoleBinding ${name} of ${ref} to ${describeSubject(subject, namespace)}`;
}

export type RoleReferenceRules = { rules: readonly PolicyRule[]; error?: never } | { error: string };

/** The rules a role reference grants, or the error Kubernetes' listers give for a missing role. */
export function roleReferenceRules(
  source: PolicySource,
  roleRef: RoleRef,
  bindingNamespace: string,
): RoleReferenceRules {
  switch (roleRef.kind) {
    case 'Role': {
      const role = source.getRole(bindingNamespace, roleRef.name);
      if (!role) return { error: `role.rbac.authorization.k8s.io ${goQuote(roleRef.name)} not found` };
      return { rules: role.rules ?? [] };
    }
    case 'ClusterRole': {
      const role = source.getClusterRole(roleRef.name);
      if (!role) return { error: `clusterrole.rbac.authorization.k8s.io ${goQuote(roleRef.name)} not found` };
      return { rules: role.rules ?? [] };
    }
    default:
      return { error: `unsupported role reference kind: ${goQuote(roleRef.kind)}` };
  }
}

/**
 * Where an applicable rule comes from: a binding and the subject in it that names the user. Its
 * text ("ClusterRoleBinding ... of ClusterRole ... to Group ...") is built only when asked for,
 * as upstream's fmt.Stringer describers are: most requests never need it.
 */
export class RuleSource {
  constructor(
    readonly binding: RoleBinding,
    readonly subject: Subject,
  ) {}

  toString(): string {
    return describeBinding(this.binding, this.subject);
  }
}

/** One applicable rule with its source, or one resolution error. */
export type VisitedRule = { rule: PolicyRule; source: RuleSource; error?: never } | { error: string };

/**
 * Visits the applicable rules in Kubernetes' order; `visit` returns false to stop early.
 * A binding whose role is missing contributes an error and no rules.
 */
export function visitRulesFor(
  source: PolicySource,
  user: AttributesUser,
  namespace: string,
  visit: (visited: VisitedRule) => boolean,
): void {
  const visitBindings = (bindings: readonly RoleBinding[], bindingNamespace: string): boolean => {
    for (const binding of bindings) {
      const subject = binding.subjects?.find((candidate) =>
        subjectAppliesTo(user, candidate, bindingNamespace),
      );
      if (!subject) continue;
      const resolved = roleReferenceRules(source, binding.roleRef, bindingNamespace);
      if (resolved.error !== undefined) {
        if (!visit({ error: resolved.error })) return false;
        continue;
      }
      const ruleSource = new RuleSource(binding, subject);
      for (const rule of resolved.rules) {
        if (!visit({ rule, source: ruleSource })) return false;
      }
    }
    return true;
  };
  if (!visitBindings(source.clusterRoleBindings(), '')) return;
  if (namespace !== '') visitBindings(source.roleBindings(namespace), namespace);
}

/** Kubernetes' aggregate error text: one error as is, several deduplicated in `[a, b]`. */
export function aggregateErrors(errors: readonly string[]): string {
  if (errors.length === 0) return '';
  if (errors.length === 1) return errors[0]!;
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

export interface ResolvedRules {
  readonly rules: PolicyRule[];
  /** Errors met while resolving; the rules found are still valid (rules only add). */
  readonly errors: string[];
}

/** All rules that apply to the user in the namespace ('' for cluster scope only). */
export function rulesFor(source: PolicySource, user: AttributesUser, namespace: string): ResolvedRules {
  const rules: PolicyRule[] = [];
  const errors: string[] = [];
  visitRulesFor(source, user, namespace, (visited) => {
    if (visited.error !== undefined) errors.push(visited.error);
    else rules.push(visited.rule);
    return true;
  });
  return { rules, errors };
}
