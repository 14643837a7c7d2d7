/**
 * Authorizers as kube-apiserver chains them: system:masters first (always allowed), then RBAC.
 * RBAC only ever allows or has no opinion; a request no authorizer allows gets a 403.
 */
import type { Attributes, AttributesUser } from './attributes.js';
import {
  aggregateErrors,
  type PolicySource,
  type RuleSource,
  rulesFor,
  visitRulesFor,
} from './rule-resolver.js';
import { ruleAllows } from './rules.js';

export { forbiddenMessage, forbiddenReason, forbiddenStatus } from './forbidden.js';

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface AuthorizationResult {
  readonly decision: Decision;
  /** Why, for allows and for the 403 text (`''` when the authorizer says nothing). */
  readonly reason: string;
}

export interface Authorizer {
  authorize(attributes: Attributes): AuthorizationResult;
}

/** The group whose members may do anything, checked before any policy. */
export const PRIVILEGED_GROUP = 'system:masters';

/** Allows every request from a member of the privileged groups, with no reason. */
export class PrivilegedGroupsAuthorizer implements Authorizer {
  private readonly groups: readonly string[];

  constructor(groups: readonly string[] = [PRIVILEGED_GROUP]) {
    this.groups = groups;
  }

  authorize(attributes: Attributes): AuthorizationResult {
    const allowed = attributes.user.groups.some((group) => this.groups.includes(group));
    return { decision: allowed ? 'allow' : 'noOpinion', reason: '' };
  }
}

/**
 * Asks each authorizer in turn: the first allow or deny decides, with its own reason; if
 * none decides, the reasons collected so far are joined with newlines.
 */
export class UnionAuthorizer implements Authorizer {
  private readonly authorizers: readonly Authorizer[];

  constructor(...authorizers: Authorizer[]) {
    this.authorizers = authorizers;
  }

  authorize(attributes: Attributes): AuthorizationResult {
    const reasons: string[] = [];
    for (const authorizer of this.authorizers) {
      const result = authorizer.authorize(attributes);
      if (result.decision !== 'noOpinion') return result;
      if (result.reason !== '') reasons.push(result.reason);
    }
    return { decision: 'noOpinion', reason: reasons.join('\n') };
  }
}

/** authorization.k8s.io ResourceRule, as SelfSubjectRulesReview reports it. */
export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface UserRules {
  readonly resourceRules: ResourceRuleInfo[];
  readonly nonResourceRules: NonResourceRuleInfo[];
  /** RBAC enumerates everything it grants, so this is always false. */
  readonly incomplete: boolean;
  /** The resolution errors as one text (SelfSubjectRulesReview's evaluationError), or ''. */
  readonly evaluationError: string;
}

export class RbacAuthorizer implements Authorizer {
  private readonly source: PolicySource;

  constructor(source: PolicySource) {
    this.source = source;
  }

  authorize(attributes: Attributes): AuthorizationResult {
    let allowedBy: RuleSource | undefined;
    const errors: string[] = [];
    visitRulesFor(this.source, attributes.user, attributes.namespace, (visited) => {
      if (visited.error !== undefined) {
        errors.push(visited.error);
        return true;
      }
      if (!ruleAllows(attributes, visited.rule)) return true;
      allowedBy = visited.source;
      return false;
    });
    if (allowedBy !== undefined) {
      const source = allowedBy;
      // Read only by audit and SubjectAccessReview: built when read.
      return {
        decision: 'allow',
        get reason() {
          return `RBAC: allowed by ${source.toString()}`;
        },
      };
    }
    return { decision: 'noOpinion', reason: errors.length > 0 ? `RBAC: ${aggregateErrors(errors)}` : '' };
  }

  /**
   * The rules the user holds in the namespace, split as SelfSubjectRulesReview reports them: a
   * rule with resources is a resource rule, one with non-resource URLs a non-resource rule.
   */
  rulesFor(user: AttributesUser, namespace: string): UserRules {
    const { rules, errors } = rulesFor(this.source, user, namespace);
    const resourceRules: ResourceRuleInfo[] = [];
    const nonResourceRules: NonResourceRuleInfo[] = [];
    for (const rule of rules) {
      if ((rule.resources ?? []).length > 0) {
        const info: ResourceRuleInfo = { verbs: [...rule.verbs] };
        if ((rule.apiGroups ?? []).length > 0) info.apiGroups = [...rule.apiGroups!];
        info.resources = [...rule.resources!];
        if ((rule.resourceNames ?? []).length > 0) info.resourceNames = [...rule.resourceNames!];
        resourceRules.push(info);
      }
      if ((rule.nonResourceURLs ?? []).length > 0) {
        nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs!] });
      }
    }
    return { resourceRules, nonResourceRules, incomplete: false, evaluationError: aggregateErrors(errors) };
  }
}

/** kube-apiserver's chain without the node authorizer: system:masters, then RBAC. */
export function defaultAuthorizer(source: PolicySource): UnionAuthorizer {
  return new UnionAuthorizer(new PrivilegedGroupsAuthorizer(), new RbacAuthorizer(source));
}
