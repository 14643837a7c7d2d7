import type { KubeObject } from '../../api/object.js';
import { fieldInvalid } from '../../api/selectors/field-errors.js';
import {
  type BoundObject,
  issueServiceAccountToken,
  TokenRequestInvalidError,
} from '../../pki/service-account-tokens.js';
import type { Authenticator } from '../auth/authenticator.js';
import { readObjectBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import type { RequestContext, UserInfo } from '../http/types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { badRequest, invalid, StatusError } from '../status.js';

const AUTHENTICATION_V1 = 'authentication.k8s.io/v1';

function userInfoJson(user: UserInfo): Record<string, unknown> {
  return {
    username: user.name,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: [...user.groups],
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

/** POST selfsubjectreviews: who the caller is (`kubectl auth whoami`). */
export async function serveSelfSubjectReview(ctx: RequestContext): Promise<void> {
  await readObjectBody(
    ctx.req,
    { group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview' },
    { optional: true },
  );
  sendJson(ctx.res, 201, {
    kind: 'SelfSubjectReview',
    apiVersion: AUTHENTICATION_V1,
    metadata: { creationTimestamp: null },
    status: { userInfo: userInfoJson(ctx.user) },
  });
}

/** POST tokenreviews: whether a token authenticates, and as whom. */
export async function serveTokenReview(ctx: RequestContext, authenticator: Authenticator): Promise<void> {
  const body = await readObjectBody(ctx.req, {
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'TokenReview',
  });
  const spec = (body.spec ?? {}) as { token?: string; audiences?: string[] };
  if (!spec.token) {
    throw invalid('authentication.k8s.io', 'TokenReview', '', [
      fieldInvalid('spec.token', '', 'token is required'),
    ]);
  }
  const verdict = await authenticator.verifyToken(spec.token, spec.audiences);
  const status = verdict.ok
    ? {
        authenticated: true,
        user: userInfoJson({ ...verdict.user, groups: [...verdict.user.groups, 'system:authenticated'] }),
        audiences: verdict.audiences,
      }
    : { user: {}, error: verdict.message };
  sendJson(ctx.res, 201, {
    kind: 'TokenReview',
    apiVersion: AUTHENTICATION_V1,
    metadata: { creationTimestamp: null },
    spec,
    status,
  });
}

export interface TokenRequestContext {
  readonly signingKeyPem: string;
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly serviceAccounts: ResourceStore;
  readonly boundObjects: Readonly<Record<'Pod' | 'Secret' | 'Node', ResourceStore>>;
  /** Admission of the TokenRequest (NodeRestriction limits nodes to their own pods' tokens). */
  readonly admit?: (request: KubeObject) => Promise<void>;
}

/** POST serviceaccounts/<name>/token: a bound token (`kubectl create token`). */
export async function serveTokenRequest(
  ctx: RequestContext,
  namespace: string,
  name: string,
  tokens: TokenRequestContext,
): Promise<void> {
  const body = await readObjectBody(ctx.req, {
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'TokenRequest',
  });
  await tokens.admit?.(body);
  const serviceAccount = await tokens.serviceAccounts.get(namespace, name);
  const spec = (body.spec ?? {}) as {
    audiences?: string[];
    expirationSeconds?: number;
    boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
  };
  const boundObject = spec.boundObjectRef ? await bound(spec.boundObjectRef, namespace, tokens) : undefined;
  let issued: ReturnType<typeof issueServiceAccountToken>;
  try {
    issued = issueServiceAccountToken(
      { privateKeyPem: tokens.signingKeyPem },
      {
        issuer: tokens.issuer,
        apiAudiences: tokens.audiences,
        audiences: spec.audiences,
        expirationSeconds: spec.expirationSeconds,
        namespace,
        serviceAccount: { name, uid: serviceAccount.metadata?.uid ?? '' },
        boundObject,
      },
    );
  } catch (error) {
    if (error instanceof TokenRequestInvalidError) throw new StatusError(422, 'Invalid', error.message);
    throw error;
  }
  const headers: Record<string, string[]> = issued.warnings.length
    ? { warning: issued.warnings.map((text) => `299 - ${JSON.stringify(text)}`) }
    : {};
  sendJson(
    ctx.res,
    201,
    {
      kind: 'TokenRequest',
      apiVersion: AUTHENTICATION_V1,
      metadata: { name, namespace, creationTimestamp: null },
      spec: {
        audiences: issued.audiences,
        expirationSeconds: issued.expirationSeconds,
        boundObjectRef: spec.boundObjectRef ?? null,
      },
      status: { token: issued.token, expirationTimestamp: issued.expirationTimestamp },
    },
    headers,
  );
}

async function bound(
  ref: { kind?: string; apiVersion?: string; name?: string; uid?: string },
  namespace: string,
  tokens: TokenRequestContext,
): Promise<BoundObject> {
  const kind = ref.kind;
  if (kind !== 'Pod' && kind !== 'Secret' && kind !== 'Node') {
    throw badRequest(`cannot bind token to object of type ${kind ?? ''}`);
  }
  const store = tokens.boundObjects[kind];
  const object: KubeObject = await store.get(kind === 'Node' ? '' : namespace, ref.name ?? '');
  const uid = object.metadata?.uid ?? '';
  if (ref.uid && ref.uid !== uid) {
    throw new StatusError(
      409,
      'Conflict',
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  const nodeName = kind === 'Pod' ? (object.spec as { nodeName?: string } | undefined)?.nodeName : undefined;
  return { kind, name: ref.name ?? '', uid, ...(nodeName ? { nodeName } : {}) };
}
