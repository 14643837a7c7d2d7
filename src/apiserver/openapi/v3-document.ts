// One OpenAPI 3.0 document per web service (`/openapi/v3/api/v1`, ...): its paths, plus the
// definitions they reach under components.schemas. Keys are in the order kube-openapi's structs write
// them; maps are sorted.

import { operationIdAndTags } from './operation-id.js';
import { groupByPath, operationParameters, type PathGroup, routesInMethodOrder } from './path-groups.js';
import type { RouteParameter } from './route-parameters.js';
import type { ResponseSchema, Route, WebService } from './route-types.js';
import { COMPONENT_REF_PREFIX, definitionClosure, type SchemaNode, v3Schema } from './schema-conversion.js';
import type { SchemaSource } from './schema-source.js';

/** `info.version` is the emulated version's major.minor, which kube-apiserver uses since 1.31. */
export const OPENAPI_INFO = Object.freeze({ title: 'Kubernetes', version: '1.33' });

const UNAUTHORIZED = { description: 'Unauthorized' };

function schemaOf(schema: ResponseSchema): SchemaNode {
  return 'definition' in schema ? { $ref: COMPONENT_REF_PREFIX + schema.definition } : { type: schema.type };
}

function contentOf(
  mediaTypes: readonly string[],
  schema: SchemaNode,
): Record<string, { schema: SchemaNode }> {
  const content: Record<string, { schema: SchemaNode }> = {};
  for (const mediaType of [...mediaTypes].sort()) content[mediaType] = { schema };
  return content;
}

function parameterOf(param: RouteParameter): SchemaNode {
  return {
    name: param.name,
    in: param.in,
    ...(param.description === '' ? {} : { description: param.description }),
    ...(param.required ? { required: true } : {}),
    schema: { type: param.type, uniqueItems: true },
  };
}

function operationOf(route: Route, group: PathGroup): SchemaNode {
  const { operationId, tags } = operationIdAndTags(route.operation, route.path);
  const parameters = operationParameters(route, group, false).map(parameterOf);
  const body = route.parameters.find((param) => param.in === 'body');
  const responses: Record<string, SchemaNode> = {};
  for (const response of route.responses) {
    responses[String(response.code)] = {
      description: response.description,
      content: contentOf(route.produces, schemaOf(response.schema)),
    };
  }
  responses['401'] = UNAUTHORIZED;
  return {
    tags,
    description: route.description,
    operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body?.definition !== undefined
      ? {
          requestBody: {
            content: contentOf(route.consumes, { $ref: COMPONENT_REF_PREFIX + body.definition }),
            ...(body.required ? { required: true } : {}),
          },
        }
      : {}),
    responses,
    ...(route.action !== undefined ? { 'x-kubernetes-action': route.action } : {}),
    ...(route.gvk !== undefined
      ? {
          'x-kubernetes-group-version-kind': {
            group: route.gvk.group,
            version: route.gvk.version,
            kind: route.gvk.kind,
          },
        }
      : {}),
  };
}

function pathItemOf(group: PathGroup): SchemaNode {
  const item: Record<string, unknown> = {};
  for (const route of routesInMethodOrder(group))
    item[route.method.toLowerCase()] = operationOf(route, group);
  if (group.common.length > 0) item.parameters = group.common.map(parameterOf);
  return item;
}

/** Definition names a set of routes refers to directly (responses and bodies). */
export function referencedDefinitions(routes: readonly Route[]): Set<string> {
  const names = new Set<string>();
  for (const route of routes) {
    for (const response of route.responses)
      if ('definition' in response.schema) names.add(response.schema.definition);
    for (const param of route.parameters) if (param.definition !== undefined) names.add(param.definition);
  }
  return names;
}

export function buildV3Document(service: WebService, schemas: SchemaSource): SchemaNode {
  const paths: Record<string, SchemaNode> = {};
  for (const group of groupByPath(service.routes)) paths[group.path] = pathItemOf(group);
  const componentSchemas: Record<string, SchemaNode> = {};
  for (const name of definitionClosure(referencedDefinitions(service.routes), schemas)) {
    componentSchemas[name] = v3Schema(name, schemas.definition(name)!);
  }
  return {
    openapi: '3.0.0',
    info: OPENAPI_INFO,
    paths,
    components: {
      schemas: componentSchemas,
      securitySchemes: {
        BearerToken: {
          type: 'apiKey',
          description: 'Bearer Token authentication',
          name: 'authorization',
          in: 'header',
        },
      },
    },
  };
}
