/**
 * Builders for the bootstrap policy objects, shaped as Kubernetes' rbac helpers build them:
 * every list in a rule sorted, the rbac-defaults label and autoupdate annotation on every
 * object, users and groups with the rbac API group, service accounts without.
 */
import { compareGoStrings } from '../../../api/selectors/go-text.js';
import {
  AUTO_UPDATE_ANNOTATION,
  type ClusterRole,
  type ClusterRoleBinding,
  type PolicyRule,
  RBAC_API_VERSION,
  RBAC_GROUP,
  type RbacObjectMeta,
  type Role,
  type RoleBinding,
  type RoleRef,
  type Subject,
} from './types.js';

export const BOOTSTRAP_LABEL = 'kubernetes.io/bootstrapping';
export const BOOTSTRAP_LABEL_VALUE = 'rbac-defaults';

export const READ = ['get', 'list', 'watch'];
export const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
export const READ_WRITE = [...READ, ...WRITE];
export const READ_UPDATE = ['get', 'list', 'watch', 'update', 'patch'];

const sorted = (values: readonly string[]) => [...values].sort(compareGoStrings);

/** A list, or its items separated by whitespace (keeps long resource lists readable). */
export type Words = readonly string[] | string;

const words = (values: Words) => (typeof values === 'string' ? values.split(/\s+/).filter(Boolean) : values);

/** A resource rule: verbs on resources of API groups, optionally only the named objects. */
export function rule(
  verbs: Words,
  apiGroups: readonly string[],
  resources: Words,
  resourceNames?: Words,
): PolicyRule {
  const built: PolicyRule = {
    verbs: sorted(words(verbs)),
    apiGroups: sorted(apiGroups),
    resources: sorted(words(resources)),
  };
  const names = resourceNames === undefined ? [] : words(resourceNames);
  if (names.length > 0) built.resourceNames = sorted(names);
  return built;
}

/** A non-resource rule: verbs on URL paths (a trailing `*` is a prefix). */
export function urlRule(verbs: Words, urls: Words): PolicyRule {
  return { verbs: sorted(words(verbs)), nonResourceURLs: sorted(words(urls)) };
}

/** What controllers and components use to record events, in both event APIs. */
export function eventsRule(): PolicyRule {
  return rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);
}

function metadata(
  name: string,
  namespace: string | undefined,
  labels: Record<string, string>,
): RbacObjectMeta {
  const all: Record<string, string> = { ...labels, [BOOTSTRAP_LABEL]: BOOTSTRAP_LABEL_VALUE };
  const orderedLabels: Record<string, string> = {};
  for (const key of sorted(Object.keys(all))) orderedLabels[key] = all[key]!;
  const meta: RbacObjectMeta = { name };
  if (namespace !== undefined) meta.namespace = namespace;
  meta.labels = orderedLabels;
  meta.annotations = { [AUTO_UPDATE_ANNOTATION]: 'true' };
  return meta;
}

export function clusterRole(
  name: string,
  rules: PolicyRule[],
  options: { labels?: Record<string, string>; aggregateLabel?: string } = {},
): ClusterRole {
  const role: ClusterRole = {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRole',
    metadata: metadata(name, undefined, options.labels ?? {}),
    // An aggregated role is created without rules; the aggregation controller fills them in.
    rules: options.aggregateLabel === undefined ? rules : null,
  };
  if (options.aggregateLabel !== undefined) {
    role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [options.aggregateLabel]: 'true' } }] };
  }
  return role;
}

export function namespacedRole(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: metadata(name, namespace, {}), rules };
}

export const users = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'User', apiGroup: RBAC_GROUP, name }));
export const groups = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name }));
export const serviceAccounts = (namespace: string, ...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', name, namespace }));

function roleRef(kind: 'Role' | 'ClusterRole', name: string): RoleRef {
  return { apiGroup: RBAC_GROUP, kind, name };
}

/** A ClusterRoleBinding named after its ClusterRole; no subjects leaves `subjects` out. */
export function clusterRoleBinding(roleName: string, subjects: Subject[]): ClusterRoleBinding {
  const binding: ClusterRoleBinding = {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: metadata(roleName, undefined, {}),
  } as ClusterRoleBinding;
  if (subjects.length > 0) binding.subjects = subjects;
  binding.roleRef = roleRef('ClusterRole', roleName);
  return binding;
}

/** A RoleBinding of the Role `roleName`, named `bindingName` (by default the role's name). */
export function namespacedRoleBinding(
  namespace: string,
  roleName: string,
  subjects: Subject[],
  bindingName = roleName,
): RoleBinding {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'RoleBinding',
    metadata: metadata(bindingName, namespace, {}),
    subjects,
    roleRef: roleRef('Role', roleName),
  };
}
