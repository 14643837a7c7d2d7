// The routes of subresources: status-like ones (get, replace, patch), named creates (binding,
// eviction, token), connections (attach, exec, portforward, proxy) and pods/log.

import type { SubresourceInfo } from '../../api/resources/types.js';
import {
  bodyParameter,
  nameParameter,
  OPTIONS_PARAMETERS,
  PATCH_OPTIONS,
  PRETTY,
  PROXY_PATH_PARAMETER,
  type RouteParameter,
  WRITE_OPTIONS,
} from './route-parameters.js';
import {
  ANY,
  accepted,
  article,
  created,
  definitionFor,
  type HttpMethod,
  MEDIA_TYPES,
  ok,
  PATCH_DEFINITION,
  PATCH_TYPES,
  type ResourceContext,
  type ResponseSchema,
  type Route,
  type RouteGroupVersionKind,
  STRING,
  title,
} from './route-types.js';

// pods/log reads with PodLogOptions and writes plain text before the usual media types.
const GET_WITH_OPTIONS: Readonly<Record<string, { options: string; produces: string[] }>> = {
  '/pods/log': { options: 'PodLogOptions', produces: ['text/plain'] },
};

// Subresources that stream (attach, exec, portforward, proxy) have the options type they decode as kind.
const CONNECT_KINDS = new Set([
  'PodAttachOptions',
  'PodExecOptions',
  'PodPortForwardOptions',
  'PodProxyOptions',
  'NodeProxyOptions',
  'ServiceProxyOptions',
]);

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

export function subresourceRoutes(ctx: ResourceContext, sub: SubresourceInfo): Route[] {
  const { root, info, schemas, scope } = ctx;
  const group = sub.group ?? info.group;
  const version = sub.version ?? info.version;
  const gvk = { group, version, kind: sub.kind };
  if (CONNECT_KINDS.has(sub.kind)) return connectRoutes(ctx, sub, gvk);

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
