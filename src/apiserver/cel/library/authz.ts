// Kubernetes' authorizer library for admission CEL (k8s.io/apiserver/pkg/cel/library/authz.go):
// `authorizer.group('apps').resource('deployments').namespace('ns').check('create').allowed()`
// and `authorizer.path('/healthz').check('get')`, answered by the apiserver's authorizer for the
// requesting user (or a service account, `authorizer.serviceAccount(ns, name)`).
import type { Environment } from '@marcbachmann/cel-js';

/** What a check asks: the fields of an authorization request (authorizer.AttributesRecord). */
export interface AuthzCheckAttributes {
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** Who is asking, and how the apiserver answers for them. */
export interface AuthzUser {
  readonly name: string;
  readonly groups: readonly string[];
  readonly uid?: string;
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export type AuthorizeFunction = (
  user: AuthzUser,
  attributes: AuthzCheckAttributes,
) => { decision: 'allow' | 'deny' | 'noOpinion'; reason: string; error?: string };

/** The resource of the request being admitted, for `authorizer.requestResource`. */
export interface RequestResource {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** The `authorizer` variable's value; `requestResource` is a check already aimed at the request's resource. */
export class CelAuthorizer {
  readonly requestResource?: CelResourceCheck;

  constructor(
    readonly authorize: AuthorizeFunction,
    readonly user: AuthzUser,
    request?: RequestResource,
  ) {
    if (request !== undefined)
      this.requestResource = new CelResourceCheck(
        this,
        request.group,
        request.resource,
        request.subresource,
        request.namespace,
        request.name,
      );
  }
}

export class CelPathCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {}
}

export class CelGroupCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {}
}

export class CelResourceCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
  ) {}

  with(change: Partial<Pick<CelResourceCheck, 'subresource' | 'namespace' | 'name'>>): CelResourceCheck {
    return new CelResourceCheck(
      this.authorizer,
      this.group,
      this.resource,
      change.subresource ?? this.subresource,
      change.namespace ?? this.namespace,
      change.name ?? this.name,
    );
  }
}

export class CelDecision {
  constructor(
    readonly decision: 'allow' | 'deny' | 'noOpinion',
    readonly reason: string,
    readonly error: string,
  ) {}
}

function decide(authorizer: CelAuthorizer, attributes: AuthzCheckAttributes): CelDecision {
  try {
    const result = authorizer.authorize(authorizer.user, attributes);
    return new CelDecision(result.decision, result.reason, result.error ?? '');
  } catch (error) {
    return new CelDecision('noOpinion', '', error instanceof Error ? error.message : String(error));
  }
}

const PREFIX = 'kubernetes.authorization';
const AUTHORIZER = `${PREFIX}.Authorizer`;
const PATH_CHECK = `${PREFIX}.PathCheck`;
const GROUP_CHECK = `${PREFIX}.GroupCheck`;
const RESOURCE_CHECK = `${PREFIX}.ResourceCheck`;
const DECISION = `${PREFIX}.Decision`;

/** The library's types and functions; declare `authorizer` as `kubernetes.authorization.Authorizer`. */
export function registerAuthz(env: Environment): void {
  env.registerType(RESOURCE_CHECK, CelResourceCheck);
  // `authorizer.requestResource` reads as a field of the authorizer (cel-go declares it as a variable).
  env.registerType(AUTHORIZER, { ctor: CelAuthorizer, fields: { requestResource: RESOURCE_CHECK } });
  env.registerType(PATH_CHECK, CelPathCheck);
  env.registerType(GROUP_CHECK, CelGroupCheck);
  env.registerType(DECISION, CelDecision);
  env.registerFunction(
    `${AUTHORIZER}.path(string): ${PATH_CHECK}`,
    (authorizer: CelAuthorizer, path: string) => new CelPathCheck(authorizer, path),
  );
  env.registerFunction(
    `${AUTHORIZER}.group(string): ${GROUP_CHECK}`,
    (authorizer: CelAuthorizer, group: string) => new CelGroupCheck(authorizer, group),
  );
  env.registerFunction(
    `${AUTHORIZER}.serviceAccount(string, string): ${AUTHORIZER}`,
    (authorizer: CelAuthorizer, namespace: string, name: string) =>
      new CelAuthorizer(authorizer.authorize, {
        name: `system:serviceaccount:${namespace}:${name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
      }),
  );
  env.registerFunction(
    `${GROUP_CHECK}.resource(string): ${RESOURCE_CHECK}`,
    (check: CelGroupCheck, resource: string) => new CelResourceCheck(check.authorizer, check.group, resource),
  );
  env.registerFunction(
    `${RESOURCE_CHECK}.subresource(string): ${RESOURCE_CHECK}`,
    (check: CelResourceCheck, subresource: string) => check.with({ subresource }),
  );
  env.registerFunction(
    `${RESOURCE_CHECK}.namespace(string): ${RESOURCE_CHECK}`,
    (check: CelResourceCheck, namespace: string) => check.with({ namespace }),
  );
  env.registerFunction(
    `${RESOURCE_CHECK}.name(string): ${RESOURCE_CHECK}`,
    (check: CelResourceCheck, name: string) => check.with({ name }),
  );
  env.registerFunction(
    `${RESOURCE_CHECK}.check(string): ${DECISION}`,
    (check: CelResourceCheck, verb: string) =>
      decide(check.authorizer, {
        verb,
        isResourceRequest: true,
        path: '',
        apiGroup: check.group,
        resource: check.resource,
        subresource: check.subresource,
        namespace: check.namespace,
        name: check.name,
      }),
  );
  env.registerFunction(`${PATH_CHECK}.check(string): ${DECISION}`, (check: CelPathCheck, verb: string) =>
    decide(check.authorizer, {
      verb: verb.toLowerCase(),
      isResourceRequest: false,
      path: check.path,
      apiGroup: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
    }),
  );
  env.registerFunction(`${DECISION}.allowed(): bool`, (d: CelDecision) => d.decision === 'allow');
  env.registerFunction(`${DECISION}.reason(): string`, (d: CelDecision) => d.reason);
  env.registerFunction(`${DECISION}.errored(): bool`, (d: CelDecision) => d.error !== '');
  env.registerFunction(`${DECISION}.error(): string`, (d: CelDecision) => d.error);
}

export const AUTHORIZER_TYPE = AUTHORIZER;
