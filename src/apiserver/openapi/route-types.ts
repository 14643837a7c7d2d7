// The vocabulary of route descriptions: what a route is, the media types kube-apiserver declares,
// and the helpers both resource and subresource routes use.

import type { ResourceInfo } from '../../api/resources/types.js';
import { NAMESPACE_PARAMETER, type RouteParameter } from './route-parameters.js';
import type { SchemaSource } from './schema-source.js';

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH';

export type ResponseSchema = { readonly definition: string } | { readonly type: 'string' };

export interface RouteResponse {
  readonly code: number;
  readonly description: string;
  readonly schema: ResponseSchema;
}

export interface RouteGroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface Route {
  readonly method: HttpMethod;
  readonly path: string;
  /** The installer's operation name (`readNamespacedPod`), before group and version are worked in. */
  readonly operation: string;
  readonly description: string;
  /** `x-kubernetes-action`: get, list, put, patch, post, delete, deletecollection, watch, watchlist, connect. */
  readonly action?: string;
  readonly gvk?: RouteGroupVersionKind;
  readonly parameters: readonly RouteParameter[];
  readonly consumes: readonly string[];
  readonly produces: readonly string[];
  readonly responses: readonly RouteResponse[];
}

/** The routes under one root path; kube-apiserver publishes one OpenAPI v3 document per root. */
export interface WebService {
  /** Without the leading slash: `api/v1`, `apis/apps`, `version`. */
  readonly root: string;
  readonly routes: readonly Route[];
}

export const MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
export const ALL_MEDIA_TYPES = [
  ...MEDIA_TYPES,
  'application/json;stream=watch',
  'application/vnd.kubernetes.protobuf;stream=watch',
];
export const ANY = ['*/*'];
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

export const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
export const DELETE_OPTIONS_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
export const PATCH_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';
export const WATCH_EVENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent';

export const ok = (schema: ResponseSchema): RouteResponse => ({ code: 200, description: 'OK', schema });
export const created = (schema: ResponseSchema): RouteResponse => ({
  code: 201,
  description: 'Created',
  schema,
});
export const accepted = (schema: ResponseSchema): RouteResponse => ({
  code: 202,
  description: 'Accepted',
  schema,
});
export const STRING: ResponseSchema = { type: 'string' };

export function title(word: string): string {
  return word.length === 0 ? word : word[0]!.toUpperCase() + word.slice(1);
}

/** " a ", " an " or " " (plurals such as Endpoints take none), as the installer words its docs. */
export function article(noun: string): string {
  if (!noun.endsWith('ss') && noun.endsWith('s')) return ' ';
  return 'aeiou'.includes(noun[0]!.toLowerCase()) ? ' an ' : ' a ';
}

export function definitionFor(schemas: SchemaSource, group: string, version: string, kind: string): string {
  const name = schemas.definitionNameForKind(group, version, kind);
  if (name === undefined) throw new Error(`no OpenAPI definition for ${group}/${version}, Kind=${kind}`);
  return name;
}

export interface ResourceContext {
  readonly root: string;
  readonly info: ResourceInfo;
  readonly schemas: SchemaSource;
  /** `Namespaced` or '' in operation names. */
  readonly scope: string;
  readonly collectionParams: readonly RouteParameter[];
  readonly itemPath: string;
}

export function resourceContext(root: string, info: ResourceInfo, schemas: SchemaSource): ResourceContext {
  const collection = info.namespaced ? `namespaces/{namespace}/${info.resource}` : info.resource;
  return {
    root,
    info,
    schemas,
    scope: info.namespaced ? 'Namespaced' : '',
    collectionParams: info.namespaced ? [NAMESPACE_PARAMETER] : [],
    itemPath: `${collection}/{name}`,
  };
}
