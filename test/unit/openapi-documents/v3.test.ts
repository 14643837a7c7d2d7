import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BUILTIN_TABLE } from '../../../src/apiserver/discovery/table.js';
import { answerV3, OpenAPIDocuments, openAPIDocuments } from '../../../src/apiserver/openapi/documents.js';
import { at, type JsonObject, parse, refsIn, walkObjects } from './walk.js';

const documents = openAPIDocuments();
const coreV1 = parse(documents.v3('api/v1')!.body);
const appsV1 = parse(documents.v3('apis/apps/v1')!.body);

describe('/openapi/v3 index', () => {
  const index = parse(documents.v3Index().body);
  const paths = at(index, 'paths') as JsonObject;

  it('links one document per root path, sorted', () => {
    const names = Object.keys(paths);
    expect(names).toEqual([...names].sort());
    for (const name of [
      'api',
      'api/v1',
      'apis',
      'apis/apps',
      'apis/apps/v1',
      'apis/autoscaling/v2',
      'version',
    ]) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain('apis/resource.k8s.io/v1beta1');
  });

  it('puts the SHA-512 of each document in its URL', () => {
    const document = documents.v3('apis/apps/v1')!;
    const hash = createHash('sha512').update(document.body).digest('hex').toUpperCase();
    expect(document.hash).toBe(hash);
    expect(document.etag).toBe(`"${hash}"`);
    expect(at(paths, 'apis/apps/v1', 'serverRelativeURL')).toBe(`/openapi/v3/apis/apps/v1?hash=${hash}`);
  });

  it('is stable: a fresh build gives the same hashes and bytes', () => {
    const again = new OpenAPIDocuments(BUILTIN_TABLE);
    expect(again.v3Index().body.equals(documents.v3Index().body)).toBe(true);
    expect(again.v3Index().hash).toBe(documents.v3Index().hash);
  });

  it('is built once and kept', () => {
    expect(documents.v3('api/v1')).toBe(documents.v3('api/v1'));
    expect(openAPIDocuments()).toBe(documents);
    expect(documents.v3('apis/nothing/v1')).toBeUndefined();
  });
});

describe('/openapi/v3/api/v1', () => {
  it('is an OpenAPI 3.0 document titled Kubernetes', () => {
    expect(Object.keys(coreV1)).toEqual(['openapi', 'info', 'paths', 'components']);
    expect(coreV1.openapi).toBe('3.0.0');
    expect(coreV1.info).toEqual({ title: 'Kubernetes', version: '1.33' });
  });

  it('holds io.k8s.api.core.v1.Pod with its group-version-kind', () => {
    const pod = at(coreV1, 'components', 'schemas', 'io.k8s.api.core.v1.Pod') as JsonObject;
    expect(pod['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Pod', version: 'v1' }]);
    expect(Object.keys(at(pod, 'properties') as JsonObject)).toEqual([
      'apiVersion',
      'kind',
      'metadata',
      'spec',
      'status',
    ]);
  });

  it('resolves every reference within its own components', () => {
    const schemas = at(coreV1, 'components', 'schemas') as JsonObject;
    const refs = refsIn(coreV1);
    expect(refs.length).toBeGreaterThan(1000);
    for (const ref of refs) {
      expect(ref.startsWith('#/components/schemas/')).toBe(true);
      expect(schemas[ref.slice('#/components/schemas/'.length)]).toBeDefined();
    }
  });

  it('carries no definition nothing refers to', () => {
    const referenced = new Set(refsIn(coreV1).map((ref) => ref.slice('#/components/schemas/'.length)));
    for (const name of Object.keys(at(coreV1, 'components', 'schemas') as JsonObject)) {
      expect(referenced.has(name), name).toBe(true);
    }
  });

  it('wraps a reference that has sibling fields in allOf', () => {
    walkObjects(coreV1, (node, path) => {
      if ('$ref' in node) expect(Object.keys(node), path).toEqual(['$ref']);
    });
    const metadata = at(coreV1, 'components', 'schemas', 'io.k8s.api.core.v1.Pod', 'properties', 'metadata');
    expect(metadata).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
    });
    expect(Object.keys(metadata as JsonObject)).toEqual(['description', 'allOf']);
  });

  it('gives IntOrString and Quantity their v3 shapes', () => {
    const schemas = at(coreV1, 'components', 'schemas') as JsonObject;
    const intOrString = schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString'] as JsonObject;
    expect(intOrString.format).toBe('int-or-string');
    expect(intOrString.oneOf).toEqual([{ type: 'integer' }, { type: 'string' }]);
    expect(intOrString.type).toBeUndefined();
    const quantity = schemas['io.k8s.apimachinery.pkg.api.resource.Quantity'] as JsonObject;
    expect(quantity.oneOf).toEqual([{ type: 'string' }, { type: 'number' }]);
    expect(quantity.type).toBeUndefined();
  });

  it('describes listing pods in a namespace like kube-apiserver', () => {
    const item = at(coreV1, 'paths', '/api/v1/namespaces/{namespace}/pods') as JsonObject;
    expect(Object.keys(item)).toEqual(['get', 'post', 'delete', 'parameters']);
    expect((item.parameters as JsonObject[]).map((param) => [param.name, param.in])).toEqual([
      ['namespace', 'path'],
      ['pretty', 'query'],
    ]);
    const list = item.get as JsonObject;
    expect(list.operationId).toBe('listCoreV1NamespacedPod');
    expect(list.tags).toEqual(['core_v1']);
    expect(list.description).toBe('list or watch objects of kind Pod');
    expect(list['x-kubernetes-action']).toBe('list');
    expect(list['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    expect((list.parameters as JsonObject[]).map((param) => param.name)).toEqual([
      'allowWatchBookmarks',
      'continue',
      'fieldSelector',
      'labelSelector',
      'limit',
      'resourceVersion',
      'resourceVersionMatch',
      'sendInitialEvents',
      'timeoutSeconds',
      'watch',
    ]);
    expect(Object.keys(at(list, 'responses', '200', 'content') as JsonObject)).toEqual([
      'application/json',
      'application/json;stream=watch',
      'application/vnd.kubernetes.protobuf',
      'application/vnd.kubernetes.protobuf;stream=watch',
      'application/yaml',
    ]);
    expect(at(list, 'responses', '200', 'content', 'application/json', 'schema')).toEqual({
      $ref: '#/components/schemas/io.k8s.api.core.v1.PodList',
    });
    expect(at(list, 'responses', '401')).toEqual({ description: 'Unauthorized' });
  });

  it('creates with a required body and deletes a pod answering the deleted Pod', () => {
    const create = at(coreV1, 'paths', '/api/v1/namespaces/{namespace}/pods', 'post') as JsonObject;
    expect(create.requestBody).toEqual({
      content: { '*/*': { schema: { $ref: '#/components/schemas/io.k8s.api.core.v1.Pod' } } },
      required: true,
    });
    expect(Object.keys(create.responses as JsonObject)).toEqual(['200', '201', '202', '401']);
    const remove = at(coreV1, 'paths', '/api/v1/namespaces/{namespace}/pods/{name}', 'delete') as JsonObject;
    expect(remove.operationId).toBe('deleteCoreV1NamespacedPod');
    expect(at(remove, 'requestBody')).toEqual({
      content: {
        '*/*': {
          schema: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions' },
        },
      },
    });
    expect(at(remove, 'responses', '202', 'content', 'application/json', 'schema')).toEqual({
      $ref: '#/components/schemas/io.k8s.api.core.v1.Pod',
    });
  });

  it('connects exec with GET and POST and proxies every method, also below a path', () => {
    const exec = at(coreV1, 'paths', '/api/v1/namespaces/{namespace}/pods/{name}/exec') as JsonObject;
    expect(Object.keys(exec)).toEqual(['get', 'post', 'parameters']);
    expect(at(exec, 'get', 'operationId')).toBe('connectCoreV1GetNamespacedPodExec');
    expect(at(exec, 'post', 'x-kubernetes-group-version-kind')).toEqual({
      group: '',
      version: 'v1',
      kind: 'PodExecOptions',
    });
    expect((exec.parameters as JsonObject[]).map((param) => param.name)).toEqual([
      'command',
      'container',
      'name',
      'namespace',
      'stderr',
      'stdin',
      'stdout',
      'tty',
    ]);
    const proxy = at(coreV1, 'paths', '/api/v1/nodes/{name}/proxy/{path}') as JsonObject;
    expect(Object.keys(proxy)).toEqual([
      'get',
      'put',
      'post',
      'delete',
      'options',
      'head',
      'patch',
      'parameters',
    ]);
    expect(at(proxy, 'head', 'operationId')).toBe('connectCoreV1HeadNodeProxyWithPath');
  });

  it('reads pod logs as text with the PodLogOptions parameters', () => {
    const log = at(coreV1, 'paths', '/api/v1/namespaces/{namespace}/pods/{name}/log', 'get') as JsonObject;
    expect(log.operationId).toBe('readCoreV1NamespacedPodLog');
    expect(at(log, 'responses', '200', 'content', 'text/plain', 'schema')).toEqual({ type: 'string' });
  });

  it('posts evictions as policy/v1 Eviction', () => {
    const eviction = at(
      coreV1,
      'paths',
      '/api/v1/namespaces/{namespace}/pods/{name}/eviction',
      'post',
    ) as JsonObject;
    expect(eviction.operationId).toBe('createCoreV1NamespacedPodEviction');
    expect(eviction['x-kubernetes-group-version-kind']).toEqual({
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
    });
    expect(at(coreV1, 'components', 'schemas', 'io.k8s.api.policy.v1.Eviction')).toBeDefined();
  });

  it('lists componentstatuses without watch paths and namespaces without a collection delete', () => {
    const paths = Object.keys(at(coreV1, 'paths') as JsonObject);
    expect(paths).toContain('/api/v1/componentstatuses');
    expect(paths).not.toContain('/api/v1/watch/componentstatuses');
    expect(Object.keys(at(coreV1, 'paths', '/api/v1/namespaces') as JsonObject)).toEqual([
      'get',
      'post',
      'parameters',
    ]);
  });
});

describe('/openapi/v3/apis/apps/v1', () => {
  it('scales deployments through autoscaling/v1 Scale', () => {
    const scale = at(
      appsV1,
      'paths',
      '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale',
    ) as JsonObject;
    expect(Object.keys(scale)).toEqual(['get', 'put', 'patch', 'parameters']);
    expect(at(scale, 'put', 'operationId')).toBe('replaceAppsV1NamespacedDeploymentScale');
    expect(at(scale, 'put', 'x-kubernetes-group-version-kind')).toEqual({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    expect(at(scale, 'put', 'requestBody', 'content', '*/*', 'schema')).toEqual({
      $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale',
    });
    expect(Object.keys(at(scale, 'patch', 'requestBody', 'content') as JsonObject)).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
  });

  it('deletes deployments answering a Status and lists them across namespaces', () => {
    expect(
      at(
        appsV1,
        'paths',
        '/apis/apps/v1/namespaces/{namespace}/deployments/{name}',
        'delete',
        'responses',
        '200',
        'content',
        'application/json',
        'schema',
      ),
    ).toEqual({ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status' });
    expect(at(appsV1, 'paths', '/apis/apps/v1/deployments', 'get', 'operationId')).toBe(
      'listAppsV1DeploymentForAllNamespaces',
    );
    expect(
      at(
        appsV1,
        'paths',
        '/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}',
        'get',
        'x-kubernetes-action',
      ),
    ).toBe('watch');
  });

  it('answers its own discovery path', () => {
    expect(at(appsV1, 'paths', '/apis/apps/v1/', 'get', 'operationId')).toBe('getAppsV1APIResources');
  });
});

describe('root documents', () => {
  it('describe /api, /apis, /apis/<group> and /version', () => {
    const operation = (path: string, url: string): JsonObject =>
      at(parse(documents.v3(path)!.body), 'paths', url, 'get') as JsonObject;
    expect(operation('api', '/api/').operationId).toBe('getCoreAPIVersions');
    expect(operation('apis', '/apis/').operationId).toBe('getAPIVersions');
    expect(operation('apis/apps', '/apis/apps/').operationId).toBe('getAppsAPIGroup');
    const version = operation('version', '/version/');
    expect(version.operationId).toBe('getCodeVersion');
    expect(at(version, 'responses', '200', 'content', 'application/json', 'schema')).toEqual({
      $ref: '#/components/schemas/io.k8s.apimachinery.pkg.version.Info',
    });
  });
});

describe('answerV3', () => {
  const current = documents.v3('api/v1')!;

  it('makes a hashed URL immutable for a year', () => {
    const answer = answerV3(documents, 'api/v1', current.hash, new Date('2025-01-01T00:00:00Z'));
    expect(answer).toMatchObject({
      kind: 'document',
      headers: {
        ETag: current.etag,
        'Cache-Control': 'public, immutable',
        Expires: 'Thu, 01 Jan 2026 00:00:00 GMT',
      },
    });
  });

  it('redirects a stale hash to the current URL', () => {
    expect(answerV3(documents, 'api/v1', 'ABC')).toEqual({
      kind: 'redirect',
      location: `/openapi/v3/api/v1?hash=${current.hash}`,
    });
  });

  it('leaves an unhashed request cacheable only by ETag', () => {
    const answer = answerV3(documents, 'api/v1', null);
    if (answer?.kind !== 'document') throw new Error('expected the document');
    expect(answer.headers.ETag).toBe(current.etag);
    expect(answer.headers['Cache-Control']).toBeUndefined();
  });
});
