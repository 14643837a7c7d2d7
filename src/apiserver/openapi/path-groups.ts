// Routes sharing a path become one path item. A parameter every route of the path declares (other
// than the body) moves up to the path item; the rest stay on their operations. Both lists are sorted
// by name, then location, as kube-openapi's builders sort them.

import type { RouteParameter } from './route-parameters.js';
import type { HttpMethod, Route } from './route-types.js';

export interface PathGroup {
  readonly path: string;
  readonly routes: readonly Route[];
  /** The parameters of the path item itself. */
  readonly common: readonly RouteParameter[];
}

/** OpenAPI's path item slots, in the order the Go structs write them. */
export const METHOD_ORDER: readonly HttpMethod[] = [
  'GET',
  'PUT',
  'POST',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'PATCH',
];

const parameterKey = (param: RouteParameter): string => `${param.in}:${param.name}`;

export function sortParameters(params: readonly RouteParameter[]): RouteParameter[] {
  return [...params].sort((a, b) =>
    a.name !== b.name ? (a.name < b.name ? -1 : 1) : a.in < b.in ? -1 : a.in > b.in ? 1 : 0,
  );
}

function commonParameters(routes: readonly Route[]): RouteParameter[] {
  const [first, ...rest] = routes;
  if (!first) return [];
  return sortParameters(
    first.parameters.filter(
      (param) =>
        param.in !== 'body' &&
        rest.every((route) => route.parameters.some((other) => parameterKey(other) === parameterKey(param))),
    ),
  );
}

export function groupByPath(routes: readonly Route[]): PathGroup[] {
  const byPath = new Map<string, Route[]>();
  for (const route of routes) {
    const list = byPath.get(route.path);
    if (list) list.push(route);
    else byPath.set(route.path, [route]);
  }
  return [...byPath.keys()].sort().map((path) => {
    const pathRoutes = byPath.get(path)!;
    return { path, routes: pathRoutes, common: commonParameters(pathRoutes) };
  });
}

/** The parameters an operation keeps for itself; v3 moves the body out to requestBody. */
export function operationParameters(route: Route, group: PathGroup, includeBody: boolean): RouteParameter[] {
  const common = new Set(group.common.map(parameterKey));
  return sortParameters(
    route.parameters.filter(
      (param) => !common.has(parameterKey(param)) && (includeBody || param.in !== 'body'),
    ),
  );
}

/** The route of each method on a path, in path-item order. */
export function routesInMethodOrder(group: PathGroup): Route[] {
  return METHOD_ORDER.flatMap((method) => group.routes.filter((route) => route.method === method));
}
