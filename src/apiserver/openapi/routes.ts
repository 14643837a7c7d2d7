// The routes kube-apiserver registers for a resource table, described the way its API installer
// describes them to the OpenAPI builders: one route per method and path, with operation name, doc,
// parameters, media types and responses. Both document versions are rendered from this list.

import type { ResourceInfo, SubresourceInfo } from '../../api/resources/types.js';
import { legacyGroupOrder } from '../discovery/group-order.js';
import { findTableGroup, type ResourceTable, servedVersions, tableResourcesOf } from '../discovery/table.js';
import {
  bodyParameter,
  DELETE_COLLECTION_OPTIONS,
  DELETE_OPTIONS,
  LIST_OPTIONS,
  NAMESPACE_PARAMETER,
  nameParameter,
  OPTIONS_PARAMETERS,
  PATCH_OPTIONS,
  PRETTY,
  PROXY_PATH_PARAMETER,
  type RouteParameter,
  WRITE_OPTIONS,
} from './route-parameters.js';
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

const MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const ALL_MEDIA_TYPES = [
  ...MEDIA_TYPES,
  'application/json;stream=watch',
  'application/vnd.kubernetes.protobuf;stream=watch',
];
const ANY = ['*/*'];
const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
const DELETE_OPTIONS_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
const PATCH_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';
const WATCH_EVENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent';

// Registries whose DELETE answers with the deleted object instead of a Status (ReturnDeletedObject).
const RETURNS_DELETED_OBJECT = new Set([
  '/persistentvolumeclaims',
  '/persistentvolumes',
  '/pods',
  '/podtemplates',
  '/resourcequotas',
  '/serviceaccounts',
  '/services',
  'storage.k8s.io/csidrivers',
  'storage.k8s.io/csinodes',
  'storage.k8s.io/storageclasses',
  'storage.k8s.io/volumeattachments',
]);

// pods/log reads with PodLogOptions and writes plain text before the usual media types.
const GET_WITH_OPTIONS: Readonly<Record<string, { options: string; produces: string[] }>> = {
  '/pods/log': { options: 'PodLogOptions', produces: ['text/plain'] },
};

const ok = (schema: ResponseSchema): RouteResponse => ({ code: 200, description: 'OK', schema });
const created = (schema: ResponseSchema): RouteResponse => ({ code: 201, description: 'Created', schema });
const accepted = (schema: ResponseSchema): RouteResponse => ({ code: 202, description: 'Accepted', schema });
const STRING: ResponseSchema = { type: 'string' };

function title(word: string): string {
  return word.length === 0 ? word : word[0]!.toUpperCase() + word.slice(1);
}

/** " a ", " an " or " " (plurals such as Endpoints take none), as the installer words its docs. */
function article(noun: string): string {
  if (!noun.endsWith('ss') && noun.endsWith('s')) return ' ';
  return 'aeiou'.includes(noun[0]!.toLowerCase()) ? ' an ' : ' a ';
}

function definitionFor(schemas: SchemaSource, group: string, version: string, kind: string): string {
  const name = schemas.definitionNameForKind(group, version, kind);
  if (name === undefined) throw new Error(`no OpenAPI definition for ${group}/${version}, Kind=${kind}`);
  return name;
}

interface ResourceContext {
  readonly root: string;
  readonly info: ResourceInfo;
  readonly schemas: SchemaSource;
  /** `Namespaced` or '' in operation names. */
  readonly scope: string;
  readonly collectionParams: readonly RouteParameter[];
  readonly itemPath: string;
}

function resourceContext(root: string, info: ResourceInfo, schemas: SchemaSource): ResourceContext {
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

function topLevelRoutes(ctx: ResourceContext): Route[] {
  const { root, info, schemas, scope } = ctx;
  const kind = info.kind;
  const gvk = { group: info.group, version: info.version, kind };
  const object: ResponseSchema = { definition: definitionFor(schemas, info.group, info.version, kind) };
  const verbs = new Set(info.verbs);
  const lists = verbs.has('list');
  // Only listable kinds have a List type (there is no BindingList).
  const list: ResponseSchema = lists
    ? { definition: definitionFor(schemas, info.group, info.version, `${kind}List`) }
    : object;
  const collectionPath = info.namespaced ? `namespaces/{namespace}/${info.resource}` : info.resource;
  const itemParams = [...ctx.collectionParams, nameParameter(kind)];
  const watches = verbs.has('watch');
  const listDoc = `${lists && watches ? 'list or watch' : 'list'} objects of kind ${kind}`;
  const watchListDoc = `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`;
  const routes: Route[] = [];
  const add = (route: Omit<Route, 'gvk'>, when: boolean): void => {
    if (when) routes.push({ ...route, path: `/${root}/${route.path}`, gvk });
  };

  add(
    {
      method: 'GET',
      path: collectionPath,
      operation: `list${scope}${kind}`,
      description: listDoc,
      action: 'list',
      parameters: [PRETTY, ...LIST_OPTIONS, ...ctx.collectionParams],
      consumes: ANY,
      produces: ALL_MEDIA_TYPES,
      responses: [ok(list)],
    },
    lists,
  );
  add(
    {
      method: 'POST',
      path: collectionPath,
      operation: `create${scope}${kind}`,
      description: `create${article(kind)}${kind}`,
      action: 'post',
      parameters: [PRETTY, bodyParameter(object.definition, true), ...WRITE_OPTIONS, ...ctx.collectionParams],
      consumes: ANY,
      produces: MEDIA_TYPES,
      responses: [ok(object), created(object), accepted(object)],
    },
    verbs.has('create'),
  );
  add(
    {
      method: 'DELETE',
      path: collectionPath,
      operation: `deletecollection${scope}${kind}`,
      description: `delete collection of ${kind}`,
      action: 'deletecollection',
      parameters: [
        PRETTY,
        bodyParameter(DELETE_OPTIONS_DEFINITION, false),
        ...DELETE_COLLECTION_OPTIONS,
        ...ctx.collectionParams,
      ],
      consumes: ANY,
      produces: MEDIA_TYPES,
      responses: [ok({ definition: STATUS })],
    },
    verbs.has('deletecollection'),
  );
  add(
    {
      method: 'GET',
      path: `watch/${collectionPath}`,
      operation: `watch${scope}${kind}List`,
      description: watchListDoc,
      action: 'watchlist',
      parameters: [PRETTY, ...LIST_OPTIONS, ...ctx.collectionParams],
      consumes: ANY,
      produces: ALL_MEDIA_TYPES,
      responses: [ok({ definition: WATCH_EVENT })],
    },
    lists && watches,
  );
  add(
    {
      method: 'GET',
      path: ctx.itemPath,
      operation: `read${scope}${kind}`,
      description: `read the specified ${kind}`,
      action: 'get',
      parameters: [PRETTY, ...itemParams],
      consumes: ANY,
      produces: MEDIA_TYPES,
      responses: [ok(object)],
    },
    verbs.has('get'),
  );
  add(
    {
      method: 'PUT',
      path: ctx.itemPath,
      operation: `replace${scope}${kind}`,
      description: `replace the specified ${kind}`,
      action: 'put',
      parameters: [PRETTY, bodyParameter(object.definition, true), ...WRITE_OPTIONS, ...itemParams],
      consumes: ANY,
      produces: MEDIA_TYPES,
      responses: [ok(object), created(object)],
    },
    verbs.has('update'),
  );
  add(
    {
      method: 'PATCH',
      path: ctx.itemPath,
      operation: `patch${scope}${kind}`,
      description: `partially update the specified ${kind}`,
      action: 'patch',
      parameters: [PRETTY, bodyParameter(PATCH_DEFINITION, true), ...PATCH_OPTIONS, ...itemParams],
      consumes: PATCH_TYPES,
      produces: MEDIA_TYPES,
      responses: [ok(object), created(object)],
    },
    verbs.has('patch'),
  );
  const deleted = RETURNS_DELETED_OBJECT.has(`${info.group}/${info.resource}`)
    ? object
    : { definition: STATUS };
  add(
    {
      method: 'DELETE',
      path: ctx.itemPath,
      operation: `delete${scope}${kind}`,
      description: `delete${article(kind)}${kind}`,
      action: 'delete',
      parameters: [PRETTY, bodyParameter(DELETE_OPTIONS_DEFINITION, false), ...DELETE_OPTIONS, ...itemParams],
      consumes: ANY,
      produces: MEDIA_TYPES,
      responses: [ok(deleted), accepted(deleted)],
    },
    verbs.has('delete'),
  );
  add(
    {
      method: 'GET',
      path: `watch/${ctx.itemPath}`,
      operation: `watch${scope}${kind}`,
      description: `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
      action: 'watch',
      parameters: [PRETTY, ...LIST_OPTIONS, ...itemParams],
      consumes: ANY,
      produces: ALL_MEDIA_TYPES,
      responses: [ok({ definition: WATCH_EVENT })],
    },
    watches,
  );
  if (info.namespaced) {
    add(
      {
        method: 'GET',
        path: info.resource,
        operation: `list${kind}ForAllNamespaces`,
        description: listDoc,
        action: 'list',
        parameters: [PRETTY, ...LIST_OPTIONS],
        consumes: ANY,
        produces: ALL_MEDIA_TYPES,
        responses: [ok(list)],
      },
      lists,
    );
    add(
      {
        method: 'GET',
        path: `watch/${info.resource}`,
        operation: `watch${kind}ListForAllNamespaces`,
        description: watchListDoc,
        action: 'watchlist',
        parameters: [PRETTY, ...LIST_OPTIONS],
        consumes: ANY,
        produces: ALL_MEDIA_TYPES,
        responses: [ok({ definition: WATCH_EVENT })],
      },
      lists && watches,
    );
  }
  return routes;
}

// Connect methods a subresource accepts; proxies also take HEAD and OPTIONS, which map to no verb.
function connectMethods(sub: SubresourceInfo): HttpMethod[] {
  const verbs = new Set(sub.verbs);
  const methods: HttpMethod[] = [];
  if (verbs.has('get')) methods.push('GET');
  if (verbs.has('create')) methods.push('POST');
  if (verbs.has('update')) methods.push('PUT');
  if (verbs.has('patch')) methods.push('PATCH');
  if (verbs.has('delete')) methods.push('DELETE');
  if (sub.name === 'proxy') methods.push('HEAD', 'OPTIONS');
  return methods;
}

function connectRoutes(ctx: ResourceContext, sub: SubresourceInfo, gvk: RouteGroupVersionKind): Route[] {
  const { info, scope } = ctx;
  const itemParams = [...ctx.collectionParams, nameParameter(sub.kind)];
  const options = OPTIONS_PARAMETERS[sub.kind] ?? [];
  const paths: Array<{ path: string; params: RouteParameter[]; suffix: string }> = [
    { path: `${ctx.itemPath}/${sub.name}`, params: itemParams, suffix: '' },
  ];
  // Proxies also forward everything below them: /pods/{name}/proxy/{path}.
  if (sub.name === 'proxy') {
    paths.push({
      path: `${ctx.itemPath}/${sub.name}/{path}`,
      params: [...itemParams, PROXY_PATH_PARAMETER],
      suffix: 'WithPath',
    });
  }
  return paths.flatMap(({ path, params, suffix }) =>
    connectMethods(sub).map((method) => ({
      method,
      path: `/${ctx.root}/${path}`,
      operation: `connect${title(method.toLowerCase())}${scope}${info.kind}${title(sub.name)}${suffix}`,
      description: `connect ${method} requests to ${sub.name} of ${info.kind}`,
      action: 'connect',
      gvk,
      parameters: [...options, ...params],
      consumes: ANY,
      produces: ANY,
      responses: [ok(STRING)],
    })),
  );
}

function subresourceRoutes(ctx: ResourceContext, sub: SubresourceInfo): Route[] {
  const { root, info, schemas, scope } = ctx;
  const group = sub.group ?? info.group;
  const version = sub.version ?? info.version;
  const gvk = { group, version, kind: sub.kind };
  if (OPTIONS_PARAMETERS[sub.kind] && sub.kind.endsWith('Options')) return connectRoutes(ctx, sub, gvk);

  const path = `/${root}/${ctx.itemPath}/${sub.name}`;
  const operation = (verb: string): string => `${verb}${scope}${info.kind}${title(sub.name)}`;
  const itemParams = [...ctx.collectionParams, nameParameter(sub.kind)];
  const verbs = new Set(sub.verbs);
  const withOptions = GET_WITH_OPTIONS[`${info.group}/${info.resource}/${sub.name}`];
  const object: ResponseSchema = withOptions
    ? STRING
    : { definition: definitionFor(schemas, group, version, sub.kind) };
  const routes: Route[] = [];
  if (verbs.has('create')) {
    routes.push({
      method: 'POST',
      path,
      operation: operation('create'),
      description: `create ${sub.name} of${article(info.kind)}${info.kind}`,
      action: 'post',
      gvk,
      parameters: [
        PRETTY,
        bodyParameter(definitionFor(schemas, group, version, sub.kind), true),
        ...WRITE_OPTIONS,
        ...itemParams,
      ],
      consumes: ANY,
      produces: MEDIA_TYPES,
      responses: [ok(object), created(object), accepted(object)],
    });
  }
  if (verbs.has('get')) {
    routes.push({
      method: 'GET',
      path,
      operation: operation('read'),
      description: `read ${sub.name} of the specified ${info.kind}`,
      action: 'get',
      gvk,
      parameters: [
        PRETTY,
        ...(withOptions ? (OPTIONS_PARAMETERS[withOptions.options] ?? []) : []),
        ...itemParams,
      ],
      consumes: ANY,
      produces: [...(withOptions?.produces ?? []), ...MEDIA_TYPES],
      responses: [ok(object)],
    });
  }
  if (verbs.has('update')) {
    routes.push({
      method: 'PUT',
      path,
      operation: operation('replace'),
      description: `replace ${sub.name} of the specified ${info.kind}`,
      action: 'put',
      gvk,
      parameters: [
        PRETTY,
        bodyParameter(definitionFor(schemas, group, version, sub.kind), true),
        ...WRITE_OPTIONS,
        ...itemParams,
      ],
      consumes: ANY,
      produces: MEDIA_TYPES,
      responses: [ok(object), created(object)],
    });
  }
  if (verbs.has('patch')) {
    routes.push({
      method: 'PATCH',
      path,
      operation: operation('patch'),
      description: `partially update ${sub.name} of the specified ${info.kind}`,
      action: 'patch',
      gvk,
      parameters: [PRETTY, bodyParameter(PATCH_DEFINITION, true), ...PATCH_OPTIONS, ...itemParams],
      consumes: PATCH_TYPES,
      produces: MEDIA_TYPES,
      responses: [ok(object), created(object)],
    });
  }
  return routes;
}

/** Every route of one resource and its subresources under `root` (`api/v1`, `apis/apps/v1`). */
export function resourceRoutes(root: string, info: ResourceInfo, schemas: SchemaSource): Route[] {
  const ctx = resourceContext(root, info, schemas);
  return [...topLevelRoutes(ctx), ...info.subresources.flatMap((sub) => subresourceRoutes(ctx, sub))];
}

function discoveryRoute(
  path: string,
  operation: string,
  description: string,
  definition: string,
  mediaTypes: readonly string[] = MEDIA_TYPES,
): Route {
  return {
    method: 'GET',
    path,
    operation,
    description,
    parameters: [],
    consumes: mediaTypes,
    produces: mediaTypes,
    responses: [ok({ definition })],
  };
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

function groupVersionService(
  table: ResourceTable,
  group: string,
  version: string,
  schemas: SchemaSource,
): WebService {
  const root = group === '' ? `api/${version}` : `apis/${group}/${version}`;
  return {
    root,
    routes: [
      discoveryRoute(`/${root}/`, 'getAPIResources', 'get available resources', `${META}.APIResourceList`),
      ...tableResourcesOf(table, group, version).flatMap((info) => resourceRoutes(root, info, schemas)),
    ],
  };
}

/**
 * The web services of a resource table in the order kube-apiserver installs them: /api and the core
 * versions, /apis, each group and its versions, and /version.
 */
export function webServices(table: ResourceTable, schemas: SchemaSource): WebService[] {
  const core = findTableGroup(table, '');
  const services: WebService[] = [
    {
      root: 'api',
      routes: [
        discoveryRoute('/api/', 'getAPIVersions', 'get available API versions', `${META}.APIVersions`),
      ],
    },
    ...(core ? servedVersions(table, core) : []).map((version) =>
      groupVersionService(table, '', version, schemas),
    ),
    {
      root: 'apis',
      routes: [
        discoveryRoute('/apis/', 'getAPIVersions', 'get available API versions', `${META}.APIGroupList`),
      ],
    },
  ];
  for (const { group, versions } of legacyGroupOrder(table)) {
    services.push({
      root: `apis/${group.name}`,
      routes: [
        discoveryRoute(
          `/apis/${group.name}/`,
          'getAPIGroup',
          'get information of a group',
          `${META}.APIGroup`,
        ),
      ],
    });
    for (const version of versions) services.push(groupVersionService(table, group.name, version, schemas));
  }
  services.push({
    root: 'version',
    routes: [
      discoveryRoute(
        '/version/',
        'getCodeVersion',
        'get the version information for this server',
        'io.k8s.apimachinery.pkg.version.Info',
        ['application/json'],
      ),
    ],
  });
  return services;
}
