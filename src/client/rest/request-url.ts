// Request paths and query strings, spelled as client-go spells them: `/api/v1` for the core
// group, `/apis/<group>/<version>` otherwise; query keys sorted and escaped as Go's
// url.Values.Encode does; zero-valued options left out.
import type {
  DeleteOptions,
  ListOptions,
  PatchOptions,
  ResourceRef,
  WatchOptions,
  WriteOptions,
} from '../types.js';

/** `/api/v1/namespaces/ns/pods/name/status`; namespace `''` addresses all namespaces. */
export function resourcePath(ref: ResourceRef, namespace: string, name = '', subresource = ''): string {
  let path = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  if (ref.namespaced && namespace !== '') path += `/namespaces/${escapePathSegment(namespace)}`;
  path += `/${ref.resource}`;
  if (name !== '') path += `/${escapePathSegment(name)}`;
  if (subresource !== '') path += `/${subresource}`;
  return path;
}

export type QueryValue = string | number | boolean | undefined;

/** `?a=1&b=x` with keys sorted and empty values dropped, or `''` when nothing is left. */
export function queryString(params: Readonly<Record<string, QueryValue>>): string {
  const pairs = Object.keys(params)
    .filter((key) => params[key] !== undefined && params[key] !== '')
    .sort()
    .map((key) => `${escapeQuery(key)}=${escapeQuery(String(params[key]))}`);
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

export function listQuery(options: ListOptions = {}): Record<string, QueryValue> {
  return {
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
    // Go omits a zero limit.
    limit: options.limit || undefined,
    continue: options.continue,
  };
}

export function watchQuery(options: WatchOptions = {}): Record<string, QueryValue> {
  return {
    watch: true,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    resourceVersion: options.resourceVersion,
    allowWatchBookmarks: options.allowWatchBookmarks || undefined,
    // A pointer in Go: 0 is sent when set.
    timeoutSeconds: options.timeoutSeconds,
  };
}

export function writeQuery(options: WriteOptions = {}): Record<string, QueryValue> {
  return {
    dryRun: options.dryRun ? 'All' : undefined,
    fieldManager: options.fieldManager,
    fieldValidation: options.fieldValidation,
  };
}

export function patchQuery(options: PatchOptions = {}): Record<string, QueryValue> {
  return { ...writeQuery(options), force: options.force };
}

/** The body of a DELETE: client-go always sends one, even for no options. */
export function deleteBody(options: DeleteOptions = {}): Record<string, unknown> {
  return {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
    ...(options.preconditions ? { preconditions: options.preconditions } : {}),
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    ...(options.dryRun ? { dryRun: ['All'] } : {}),
  };
}

const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;

/** Go's url.QueryEscape: only letters, digits and `-_.~` stay; a space becomes `+`. */
export function escapeQuery(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, hex)
    .replace(/%20/g, '+');
}

/** Go's path escaping: as a query, but `$&+,:;=@` stay and a space is `%20`. */
export function escapePathSegment(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, hex)
    .replace(/%(24|26|2B|2C|3A|3B|3D|40)/g, (_, code: string) =>
      String.fromCharCode(Number.parseInt(code, 16)),
    );
}
