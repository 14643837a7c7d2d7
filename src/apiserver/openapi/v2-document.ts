// /openapi/v2: one Swagger 2.0 document for every web service, with the definitions the paths reach.
// kubectl only falls back to it when /openapi/v3 is missing, but client generators and older tools
// still read it.

import { operationIdAndTags } from './operation-id.js';
import { groupByPath, operationParameters, type PathGroup, routesInMethodOrder } from './path-groups.js';
import type { RouteParameter } from './route-parameters.js';
import type { ResponseSchema, Route, WebService } from './route-types.js';
import { definitionClosure, orderedV2Schema, type SchemaNode } from './schema-conversion.js';
import type { SchemaSource } from './schema-source.js';
import { SharedParameters, type V2Parameter } from './shared-parameters.js';
import { OPENAPI_INFO, referencedDefinitions } from './v3-document.js';

const DEFINITIONS = '#/definitions/';

function schemaOf(schema: ResponseSchema): SchemaNode {
  return 'definition' in schema ? { $ref: DEFINITIONS + schema.definition } : { type: schema.type };
}

// Key order of spec.Parameter: validations (uniqueItems), simple schema (type), then the props.
function parameterOf(param: RouteParameter): V2Parameter {
  if (param.in === 'body') {
    return {
      name: param.name,
      in: 'body',
      ...(param.required ? { required: true } : {}),
      schema: { $ref: DEFINITIONS + param.definition },
    };
  }
  return {
    uniqueItems: true,
    type: param.type,
    ...(param.description === '' ? {} : { description: param.description }),
    name: param.name,
    in: param.in,
    ...(param.required ? { required: true } : {}),
  };
}

interface DraftOperation {
  readonly route: Route;
  readonly parameters: V2Parameter[];
}

interface DraftPath {
  readonly group: PathGroup;
  readonly operations: DraftOperation[];
  readonly parameters: V2Parameter[];
}

function operationOf({ route, parameters }: DraftOperation, shared: SharedParameters): SchemaNode {
  const { operationId, tags } = operationIdAndTags(route.operation, route.path);
  const responses: Record<string, SchemaNode> = {};
  for (const response of route.responses) {
    responses[String(response.code)] = {
      description: response.description,
      schema: schemaOf(response.schema),
    };
  }
  responses['401'] = { description: 'Unauthorized' };
  return {
    description: route.description,
    consumes: [...route.consumes],
    produces: [...route.produces],
    schemes: ['https'],
    tags,
    operationId,
    ...(parameters.length > 0 ? { parameters: parameters.map((param) => shared.refFor(param)) } : {}),
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

export function buildV2Document(services: readonly WebService[], schemas: SchemaSource): SchemaNode {
  const shared = new SharedParameters();
  const drafts: DraftPath[] = [];
  for (const service of services) {
    for (const group of groupByPath(service.routes)) {
      const operations = routesInMethodOrder(group).map((route) => ({
        route,
        parameters: operationParameters(route, group, true).map(parameterOf),
      }));
      const draft = { group, operations, parameters: group.common.map(parameterOf) };
      for (const operation of draft.operations)
        for (const param of operation.parameters) shared.collect(param);
      for (const param of draft.parameters) shared.collect(param);
      drafts.push(draft);
    }
  }
  drafts.sort((a, b) => (a.group.path < b.group.path ? -1 : a.group.path > b.group.path ? 1 : 0));

  const paths: Record<string, SchemaNode> = {};
  for (const draft of drafts) {
    const item: Record<string, unknown> = {};
    for (const operation of draft.operations) {
      item[operation.route.method.toLowerCase()] = operationOf(operation, shared);
    }
    if (draft.parameters.length > 0) item.parameters = draft.parameters.map((param) => shared.refFor(param));
    paths[draft.group.path] = item;
  }
  const definitions: Record<string, SchemaNode> = {};
  const roots = referencedDefinitions(services.flatMap((service) => service.routes));
  for (const name of definitionClosure(roots, schemas))
    definitions[name] = orderedV2Schema(schemas.v2Definition?.(name) ?? schemas.definition(name)!);

  return {
    swagger: '2.0',
    info: OPENAPI_INFO,
    paths,
    definitions,
    parameters: shared.definitions(),
    securityDefinitions: {
      BearerToken: {
        description: 'Bearer Token authentication',
        type: 'apiKey',
        name: 'authorization',
        in: 'header',
      },
    },
    security: [{ BearerToken: [] }],
  };
}
