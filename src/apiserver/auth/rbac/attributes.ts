/**
 * What an authorizer decides on: who asks, and what the request is about (Kubernetes'
 * authorizer.Attributes, filled from the request info the way WithAuthorization does).
 */
import {
  type FieldRequirement,
  type FieldSelector,
  parseFieldSelector,
} from '../../../api/selectors/fields.js';
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
  /**
   * The request's field selector terms, for list, watch and deletecollection (the Node
   * authorizer lets a node list only its own pods). Absent when there is none or it does not parse.
   */
  readonly fieldSelector?: readonly FieldRequirement[];
}

/**
 * The attributes of one request, from its parsed request info and authenticated user. With the
 * query, a list or watch pinned to one object by `metadata.name=<name>` is about that name, as
 * kube-apiserver's request info says (so resourceNames rules and the Node authorizer apply).
 */
export function requestAttributes(
  info: RequestInfo,
  user: UserInfo | AttributesUser,
  query?: URLSearchParams,
): Attributes {
  if (!info.isResourceRequest) return nonResourceAttributes(user, info.verb, info.path);
  const attributes = {
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
  const selector = query?.get('fieldSelector');
  if (!selector || !LISTING_VERBS.has(info.verb)) return attributes;
  let parsed: FieldSelector;
  try {
    parsed = parseFieldSelector(selector);
  } catch {
    return attributes; // the list handler answers the parse error
  }
  const pinned = info.verb === 'deletecollection' ? undefined : parsed.requiresExactMatch('metadata.name');
  const name =
    attributes.name === '' && pinned !== undefined && isPathSegmentName(pinned) ? pinned : attributes.name;
  return { ...attributes, name, fieldSelector: parsed.requirements() };
}

const LISTING_VERBS: ReadonlySet<string> = new Set(['list', 'watch', 'deletecollection']);

/** path.IsValidPathSegmentName: a name that could appear as one URL path segment. */
function isPathSegmentName(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
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
