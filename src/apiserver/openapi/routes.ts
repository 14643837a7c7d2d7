// The routes kube-apiserver registers for a resource table, described the way its API installer
// describes them to the OpenAPI builders: one route per method and path, with operation name, doc,
// parameters, media types and responses. Both document versions are rendered from this list.

import type { ResourceInfo } from '../../api/resources/types.js';
import { legacyGroupOrder } from '../discovery/group-order.js';
import { findTableGroup, type ResourceTable, servedVersions, tableResourcesOf } from '../discovery/table.js';
import { topLevelRoutes } from './resource-routes.js';
import { MEDIA_TYPES, ok, type Route, resourceContext, type WebService } from './route-types.js';
import type { SchemaSource } from './schema-source.js';
import { subresourceRoutes } from './subresource-routes.js';

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
