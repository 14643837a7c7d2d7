/**
 * What a request is about, parsed from method and path the way kube-apiserver's
 * RequestInfoFactory does: resource requests under /api and /apis, everything else a
 * non-resource path.
 */
import { queryBool } from './http/query-bool.js';

export type ResourceVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection'
  // OPTIONS through a proxy subresource: no verb, so only `*` rules allow it, as upstream.
  | '';

export interface ResourceRequestInfo {
  readonly isResourceRequest: true;
  readonly verb: ResourceVerb;
  readonly group: string;
  readonly version: string;
  /** '' for cluster-scoped requests or lists across all namespaces. */
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly path: string;
  /**
   * What follows a proxy subresource (`/nodes/n/proxy/metrics` → `/metrics`), as NodeProxyOptions'
   * path: '' or starting with '/', with the request's trailing slash kept.
   */
  readonly proxyPath?: string;
  /**
   * The path names an object by an empty name (`/configmaps/`, `/pods//status`): upstream's
   * routes take it for the object named "", which no request may address.
   */
  readonly emptyName?: true;
}

export interface NonResourceRequestInfo {
  readonly isResourceRequest: false;
  readonly verb: string;
  readonly path: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

const NON_RESOURCE_VERBS: Record<string, string> = {
  GET: 'get',
  HEAD: 'head',
  POST: 'post',
  PUT: 'put',
  PATCH: 'patch',
  DELETE: 'delete',
  OPTIONS: 'options',
};

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const nonResource: NonResourceRequestInfo = {
    isResourceRequest: false,
    verb: NON_RESOURCE_VERBS[method] ?? method.toLowerCase(),
    path,
  };
  // As splitPath, but empty segments are kept: `//` addresses nothing, never the collection.
  const parts = path.startsWith('/') ? path.slice(1).split('/') : path.split('/');
  const trailingSlash = parts.length > 1 && parts[parts.length - 1] === '';
  if (trailingSlash) parts.pop();
  let rest: string[];
  let group: string;
  if (parts[0] === 'api') {
    if (parts.length < 3) return nonResource;
    group = '';
    rest = parts.slice(1);
  } else if (parts[0] === 'apis') {
    if (parts.length < 4) return nonResource;
    group = parts[1]!;
    rest = parts.slice(2);
    if (group === '') return nonResource;
  } else {
    return nonResource;
  }
  const version = rest[0]!;
  if (version === '') return nonResource;
  rest = rest.slice(1);

  let watchPath = false;
  if (rest[0] === 'watch') {
    // Deprecated /watch/ paths: still served, as a watch.
    watchPath = true;
    rest = rest.slice(1);
  }

  let namespace = '';
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      namespace = rest[1]!;
      // /namespaces/<name> and /namespaces/<name>/{status,finalize} address the namespace itself.
      if (rest.length === 2 || (rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
        rest = ['namespaces', namespace, ...rest.slice(2)];
      } else {
        rest = rest.slice(2);
      }
    }
  }
  const [resource = '', name = '', subresource = '', ...extra] = rest;
  // Only a proxy subresource has a path of its own (`/nodes/<name>/proxy/metrics`).
  const proxy = subresource === 'proxy';
  if (resource === '' || (extra.length > 0 && !proxy)) return nonResource;
  const emptyName = name === '' && (rest.length > 1 || (trailingSlash && !proxy));
  // The namespace of a namespace is the namespace itself, as kube-apiserver reports it.

  let verb: ResourceVerb;
  switch (method) {
    case 'GET':
    case 'HEAD':
      // A proxied request's query belongs to the backend: ?watch there is no watch here.
      if (watchPath || (!proxy && queryBool(query, 'watch'))) verb = 'watch';
      else verb = name === '' ? 'list' : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === '' ? 'deletecollection' : 'delete';
      break;
    case 'OPTIONS':
      if (!proxy) return nonResource;
      verb = '';
      break;
    default:
      return nonResource;
  }
  const info: ResourceRequestInfo = {
    isResourceRequest: true,
    verb,
    group,
    version,
    namespace,
    resource,
    subresource,
    name,
    path,
    ...(emptyName ? { emptyName: true as const } : {}),
  };
  if (!proxy) return info;
  const below = extra.some((part) => part !== '') ? `/${extra.filter((part) => part !== '').join('/')}` : '';
  return { ...info, proxyPath: path.endsWith('/') ? `${below}/` : below };
}
