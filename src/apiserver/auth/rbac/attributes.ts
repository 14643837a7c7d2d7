/**
 * What an authorizer decides on: who asks, and what the request is about (Kubernetes'
 * authorizer.Attributes, filled from the request info the way WithAuthorization does).
 */
import type { UserInfo } from '../../http/types.js';
import type { RequestInfo } from '../../request-info.js';

export interface AttributesUser {
  readonly name: string;
  readonly groups: readonly string[];
  readonly uid?: string;
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface Attributes {
  readonly user: AttributesUser;
  readonly verb: string;
  readonly isResourceRequest: boolean;
  /** '' for cluster-scoped requests, lists across all namespaces and non-resource paths. */
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly path: string;
}

/** The attributes of one request, from its parsed request info and authenticated user. */
export function requestAttributes(info: RequestInfo, user: UserInfo | AttributesUser): Attributes {
  if (!info.isResourceRequest) return nonResourceAttributes(user, info.verb, info.path);
  return {
    user,
    verb: info.verb,
    isResourceRequest: true,
    namespace: info.namespace,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
    path: info.path,
  };
}

/** Attributes of a resource check made in code (bind, escalate, access reviews). */
export function resourceAttributes(
  user: AttributesUser,
  verb: string,
  fields: Partial<
    Pick<Attributes, 'namespace' | 'apiGroup' | 'apiVersion' | 'resource' | 'subresource' | 'name' | 'path'>
  >,
): Attributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    namespace: fields.namespace ?? '',
    apiGroup: fields.apiGroup ?? '',
    apiVersion: fields.apiVersion ?? '',
    resource: fields.resource ?? '',
    subresource: fields.subresource ?? '',
    name: fields.name ?? '',
    path: fields.path ?? '',
  };
}

export function nonResourceAttributes(user: AttributesUser, verb: string, path: string): Attributes {
  return {
    user,
    verb,
    isResourceRequest: false,
    namespace: '',
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
    path,
  };
}
