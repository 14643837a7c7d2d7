import { type Attributes, nonResourceAttributes, resourceAttributes } from '../auth/rbac/attributes.js';
import { type Authorizer, RbacAuthorizer, type ResourceRuleInfo } from '../auth/rbac/authorizer.js';
import type { PolicySource } from '../auth/rbac/rule-resolver.js';
import { readObjectBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import type { RequestContext, UserInfo } from '../http/types.js';
import { badRequest } from '../status.js';

const AUTHORIZATION_V1 = 'authorization.k8s.io/v1';
const PRIVILEGED_GROUP = 'system:masters';

interface ReviewSpec {
  resourceAttributes?: {
    namespace?: string;
    verb?: string;
    group?: string;
    version?: string;
    resource?: string;
    subresource?: string;
    name?: string;
  };
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

function attributesOf(spec: ReviewSpec, user: UserInfo, namespace?: string): Attributes {
  if (spec.resourceAttributes) {
    const r = spec.resourceAttributes;
    return resourceAttributes(user, r.verb ?? '', {
      namespace: namespace ?? r.namespace ?? '',
      apiGroup: r.group ?? '',
      apiVersion: r.version ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      name: r.name ?? '',
    });
  }
  if (spec.nonResourceAttributes) {
    return nonResourceAttributes(
      user,
      spec.nonResourceAttributes.verb ?? '',
      spec.nonResourceAttributes.path ?? '',
    );
  }
  throw badRequest('exactly one of nonResourceAttributes or resourceAttributes must be specified');
}

/**
 * SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectAccessReview (`kubectl auth
 * can-i`): the authorizer's verdict for the given user (or the caller) and attributes.
 */
export async function serveAccessReview(
  ctx: RequestContext,
  kind: 'SubjectAccessReview' | 'LocalSubjectAccessReview' | 'SelfSubjectAccessReview',
  authorizer: Authorizer,
  namespace: string,
): Promise<void> {
  const body = await readObjectBody(ctx.req, { group: 'authorization.k8s.io', version: 'v1', kind });
  const spec = (body.spec ?? {}) as ReviewSpec;
  const user: UserInfo =
    kind === 'SelfSubjectAccessReview'
      ? ctx.user
      : { name: spec.user ?? '', uid: spec.uid, groups: spec.groups ?? [], extra: spec.extra };
  if (kind !== 'SelfSubjectAccessReview' && !spec.user && (spec.groups ?? []).length === 0) {
    throw badRequest('at least one of user or group must be specified');
  }
  const result = authorizer.authorize(
    attributesOf(spec, user, kind === 'LocalSubjectAccessReview' ? namespace : undefined),
  );
  const status: Record<string, unknown> = { allowed: result.decision === 'allow' };
  if (result.decision === 'deny') status.denied = true;
  if (result.reason) status.reason = result.reason;
  sendJson(ctx.res, 201, {
    kind,
    apiVersion: AUTHORIZATION_V1,
    metadata: { ...(kind === 'LocalSubjectAccessReview' ? { namespace } : {}), creationTimestamp: null },
    spec,
    status,
  });
}

/** SelfSubjectRulesReview (`kubectl auth can-i --list`): what the caller may do in a namespace. */
export async function serveRulesReview(ctx: RequestContext, policy: PolicySource): Promise<void> {
  const body = await readObjectBody(ctx.req, {
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectRulesReview',
  });
  const spec = (body.spec ?? {}) as { namespace?: string };
  const rules = new RbacAuthorizer(policy).rulesFor(ctx.user, spec.namespace ?? '');
  let resourceRules: ResourceRuleInfo[] = rules.resourceRules;
  let nonResourceRules = rules.nonResourceRules;
  if (ctx.user.groups.includes(PRIVILEGED_GROUP)) {
    // The privileged-groups authorizer's own rules come first, as kube-apiserver lists them.
    resourceRules = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, ...resourceRules];
    nonResourceRules = [{ verbs: ['*'], nonResourceURLs: ['*'] }, ...nonResourceRules];
  }
  sendJson(ctx.res, 201, {
    kind: 'SelfSubjectRulesReview',
    apiVersion: AUTHORIZATION_V1,
    metadata: { creationTimestamp: null },
    spec,
    status: { resourceRules, nonResourceRules, incomplete: rules.incomplete },
  });
}
