// The routes of a resource itself, as kube-apiserver's installer registers them from the verbs its
// storage supports: list, create and collection delete on the collection, get, replace, patch and delete
// on an item, the deprecated watch paths, and lists across namespaces.

import {
  bodyParameter,
  DELETE_COLLECTION_OPTIONS,
  DELETE_OPTIONS,
  LIST_OPTIONS,
  nameParameter,
  PATCH_OPTIONS,
  PRETTY,
  WRITE_OPTIONS,
} from './route-parameters.js';
import {
  ALL_MEDIA_TYPES,
  ANY,
  accepted,
  article,
  created,
  DELETE_OPTIONS_DEFINITION,
  definitionFor,
  MEDIA_TYPES,
  ok,
  PATCH_DEFINITION,
  PATCH_TYPES,
  type ResourceContext,
  type ResponseSchema,
  type Route,
  STATUS,
  WATCH_EVENT,
} from './route-types.js';

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

export function topLevelRoutes(ctx: ResourceContext): Route[] {
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
