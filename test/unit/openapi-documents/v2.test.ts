import { describe, expect, it } from 'vitest';
import { openAPIDocuments } from '../../../src/apiserver/openapi/documents.js';
import { at, type JsonObject, parse, refsIn } from './walk.js';

const swagger = parse(openAPIDocuments().v2().body);
const definitions = at(swagger, 'definitions') as JsonObject;
const sharedParameters = at(swagger, 'parameters') as JsonObject;
const paths = at(swagger, 'paths') as JsonObject;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function resolveParameter(param: JsonObject): JsonObject {
  if (typeof param.$ref !== 'string') return param;
  return sharedParameters[param.$ref.slice('#/parameters/'.length)] as JsonObject;
}

describe('/openapi/v2', () => {
  it('is Swagger 2.0 with bearer-token security', () => {
    expect(Object.keys(swagger)).toEqual([
      'swagger',
      'info',
      'paths',
      'definitions',
      'parameters',
      'securityDefinitions',
      'security',
    ]);
    expect(swagger.swagger).toBe('2.0');
    expect(swagger.info).toEqual({ title: 'Kubernetes', version: '1.33' });
    expect(swagger.security).toEqual([{ BearerToken: [] }]);
  });

  it('resolves every reference to a definition or a shared parameter', () => {
    for (const ref of refsIn(swagger)) {
      if (ref.startsWith('#/definitions/'))
        expect(definitions[ref.slice('#/definitions/'.length)], ref).toBeDefined();
      else expect(sharedParameters[ref.slice('#/parameters/'.length)], ref).toBeDefined();
    }
  });

  it('keeps only definitions of served APIs', () => {
    expect(definitions['io.k8s.api.core.v1.Pod']).toBeDefined();
    expect(definitions['io.k8s.api.autoscaling.v1.Scale']).toBeDefined();
    expect(Object.keys(definitions).some((name) => /\.v\d+(alpha|beta)\d+\./.test(name))).toBe(false);
  });

  it('declares every templated path segment and gives every operation a unique id', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(paths) as Array<[string, JsonObject]>) {
      const shared = (item.parameters as JsonObject[] | undefined) ?? [];
      for (const method of METHODS.filter((name) => name in item)) {
        const operation = item[method] as JsonObject;
        const id = operation.operationId as string;
        expect(ids.has(id), id).toBe(false);
        ids.add(id);
        const params = [...shared, ...((operation.parameters as JsonObject[] | undefined) ?? [])].map(
          resolveParameter,
        );
        for (const [, segment] of path.matchAll(/\{(\w+)\}/g)) {
          expect(
            params.some((param) => param.in === 'path' && param.name === segment && param.required),
            `${path} ${segment}`,
          ).toBe(true);
        }
      }
    }
    expect(ids.size).toBeGreaterThan(700);
  });

  it('names shared parameters as kube-openapi does: name, dash, FNV hash of the JSON', () => {
    // The Patch body carries no tkube wording, so its name matches the one Kubernetes publishes.
    expect(sharedParameters['body-78PwaGsr']).toEqual({
      name: 'body',
      in: 'body',
      required: true,
      schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' },
    });
    for (const name of Object.keys(sharedParameters)) expect(name).toMatch(/^[A-Za-z]+-[A-Za-z0-9_-]{8}$/);
  });

  it('keeps name, dryRun, fieldValidation and kind-specific bodies inline', () => {
    const replace = at(paths, '/apis/apps/v1/namespaces/{namespace}/deployments/{name}', 'put') as JsonObject;
    const params = replace.parameters as JsonObject[];
    expect(params.find((param) => param.name === 'body')).toEqual({
      name: 'body',
      in: 'body',
      required: true,
      schema: { $ref: '#/definitions/io.k8s.api.apps.v1.Deployment' },
    });
    expect(params.find((param) => param.name === 'dryRun')).toMatchObject({
      uniqueItems: true,
      type: 'string',
      in: 'query',
    });
    expect(params.find((param) => param.name === 'fieldValidation')).toBeDefined();
    expect(params.some((param) => typeof param.$ref === 'string')).toBe(true);
    const item = at(paths, '/apis/apps/v1/namespaces/{namespace}/deployments/{name}') as JsonObject;
    expect((item.parameters as JsonObject[])[0]).toEqual({
      uniqueItems: true,
      type: 'string',
      description: 'name of the Deployment',
      name: 'name',
      in: 'path',
      required: true,
    });
  });

  it('writes operations with the Swagger fields kube-apiserver sets', () => {
    const read = at(paths, '/api/v1/namespaces/{namespace}/pods/{name}/log', 'get') as JsonObject;
    expect(Object.keys(read)).toEqual([
      'description',
      'consumes',
      'produces',
      'schemes',
      'tags',
      'operationId',
      'responses',
      'x-kubernetes-action',
      'x-kubernetes-group-version-kind',
    ]);
    expect(read.produces).toEqual([
      'text/plain',
      'application/json',
      'application/yaml',
      'application/vnd.kubernetes.protobuf',
    ]);
    expect(at(read, 'responses', '200')).toEqual({ description: 'OK', schema: { type: 'string' } });
  });
});
