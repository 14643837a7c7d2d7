// Upstream: k8s.io/apiserver/pkg/util/flowcontrol (matching.go). Whether a FlowSchema's rules
// match a request: one subject matches the user and one resource or non-resource rule the request.
import type { RequestInfo } from '../request-info.js';

export interface FlowSubject {
  kind?: string;
  user?: { name?: string };
  group?: { name?: string };
  serviceAccount?: { namespace?: string; name?: string };
}

export interface ResourcePolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs?: string[];
  nonResourceURLs?: string[];
}

export interface PolicyRulesWithSubjects {
  subjects?: FlowSubject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface RequestUser {
  readonly name: string;
  readonly groups: readonly string[];
}

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

export function matchesRules(
  rules: readonly PolicyRulesWithSubjects[],
  user: RequestUser,
  info: RequestInfo,
): boolean {
  return rules.some(
    (rule) =>
      (rule.subjects ?? []).some((subject) => matchesSubject(subject, user)) &&
      (info.isResourceRequest
        ? (rule.resourceRules ?? []).some((resourceRule) => matchesResourceRule(resourceRule, info))
        : (rule.nonResourceRules ?? []).some((nonResourceRule) =>
            matchesNonResourceRule(nonResourceRule, info),
          )),
  );
}

function matchesSubject(subject: FlowSubject, user: RequestUser): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.user?.name === '*' || subject.user?.name === user.name;
    case 'Group': {
      const name = subject.group?.name;
      return name === '*' || (name !== undefined && user.groups.includes(name));
    }
    case 'ServiceAccount': {
      if (!user.name.startsWith(SERVICE_ACCOUNT_PREFIX)) return false;
      const [namespace, name, ...rest] = user.name.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
      if (rest.length > 0 || !namespace || !name) return false;
      const account = subject.serviceAccount;
      return account?.namespace === namespace && (account.name === '*' || account.name === name);
    }
    default:
      return false;
  }
}

const listed = (values: readonly string[] | undefined, value: string) =>
  values !== undefined && (values.includes('*') || values.includes(value));

function matchesResourceRule(
  rule: ResourcePolicyRule,
  info: RequestInfo & { isResourceRequest: true },
): boolean {
  if (!listed(rule.verbs, info.verb) || !listed(rule.apiGroups, info.group)) return false;
  const resource = info.subresource === '' ? info.resource : `${info.resource}/${info.subresource}`;
  if (!listed(rule.resources, resource)) return false;
  return info.namespace === '' ? rule.clusterScope === true : listed(rule.namespaces, info.namespace);
}

function matchesNonResourceRule(rule: NonResourcePolicyRule, info: RequestInfo): boolean {
  if (!listed(rule.verbs, info.verb)) return false;
  return (rule.nonResourceURLs ?? []).some((pattern) => {
    if (pattern === '*' || pattern === info.path) return true;
    // "/apis/*" covers "/apis" and everything below it.
    if (!pattern.endsWith('/*')) return false;
    const prefix = pattern.slice(0, -2);
    return info.path === prefix || info.path.startsWith(`${prefix}/`);
  });
}
