import { describe, expect, it } from 'vitest';
import { openAPIDocuments } from '../../../src/apiserver/openapi/documents.js';
import {
  encodeOpenApiV2Protobuf,
  openAPIV2Protobuf,
} from '../../../src/apiserver/openapi/protobuf/encode.js';
import { ProtoMessage } from './proto-reader.js';

// Field numbers from gnostic-models openapiv2/OpenAPIv2.proto.
const Document = {
  swagger: 1,
  info: 2,
  paths: 8,
  definitions: 9,
  parameters: 10,
  security: 12,
  securityDefinitions: 13,
  ext: 16,
};
const Info = { title: 1, version: 2 };
const Paths = { ext: 1, path: 2 };
const PathItem = { get: 2, put: 3, delete: 5, parameters: 9 };
const Operation = {
  tags: 1,
  description: 3,
  operationId: 5,
  produces: 6,
  parameters: 8,
  responses: 9,
  ext: 13,
};
const Schema = {
  ref: 1,
  description: 4,
  required: 19,
  enum: 20,
  additionalProperties: 21,
  type: 22,
  items: 23,
  properties: 25,
  ext: 31,
};

const json = openAPIDocuments().v2();
const swagger = JSON.parse(json.body.toString('utf8')) as Record<string, unknown>;
const document = ProtoMessage.decode(openAPIV2Protobuf(json).body);

/** The YAML text of the vendor extension `name` among a message's `repeated NamedAny` field. */
function extension(message: ProtoMessage, field: number, name: string): string | undefined {
  return message.named(field, name).string(2);
}

describe('encodeOpenApiV2Protobuf on the built-in /openapi/v2', () => {
  it('carries the version, info and security', () => {
    expect(document.string(Document.swagger)).toBe('2.0');
    const info = document.message(Document.info);
    expect(info.string(Info.title)).toBe('Kubernetes');
    expect(info.string(Info.version)).toBe('1.33');
    // security: [{BearerToken: []}] -> SecurityRequirement{NamedStringArray{name, StringArray{}}}
    const requirement = document.message(Document.security);
    expect(requirement.names(1)).toEqual(['BearerToken']);
    expect(requirement.named(1, 'BearerToken').fields).toEqual([]);
    // securityDefinitions.BearerToken is the ApiKeySecurity choice (2) of SecurityDefinitionsItem.
    const bearer = document.message(Document.securityDefinitions).named(1, 'BearerToken').message(2);
    expect([bearer.string(1), bearer.string(2), bearer.string(3)]).toEqual([
      'apiKey',
      'authorization',
      'header',
    ]);
  });

  it('keeps every path and definition in document order', () => {
    const paths = document.message(Document.paths);
    expect(paths.names(Paths.path)).toEqual(Object.keys(swagger.paths as object));
    expect(document.message(Document.definitions).names(1)).toEqual(
      Object.keys(swagger.definitions as object),
    );
    expect(document.message(Document.parameters).names(1)).toEqual(Object.keys(swagger.parameters as object));
  });

  it('encodes an operation with its parameters, responses and extensions', () => {
    const item = document
      .message(Document.paths)
      .named(Paths.path, '/api/v1/namespaces/{namespace}/configmaps/{name}');
    const get = item.message(PathItem.get);
    expect(get.string(Operation.operationId)).toBe('readCoreV1NamespacedConfigMap');
    expect(get.strings(Operation.tags)).toEqual(['core_v1']);
    expect(get.strings(Operation.produces)).toContain('application/json');
    expect(extension(get, Operation.ext, 'x-kubernetes-action')).toBe('get\n');
    expect(extension(get, Operation.ext, 'x-kubernetes-group-version-kind')).toBe(
      'group: ""\nversion: v1\nkind: ConfigMap\n',
    );
    // responses."200" -> ResponseValue.response(1) -> Response.schema(2) -> SchemaItem.schema(1)
    const ok = get.message(Operation.responses).named(1, '200').message(1);
    expect(ok.string(1)).toBe('OK');
    expect(ok.message(2).message(1).string(Schema.ref)).toBe('#/definitions/io.k8s.api.core.v1.ConfigMap');

    // put: a body parameter (Parameter.body_parameter = 1), a query parameter
    // (Parameter.non_body_parameter = 2 -> query_parameter_sub_schema = 3) and a $ref (ParametersItem = 2).
    const put = item.message(PathItem.put).messages(Operation.parameters);
    const body = put[0]!.message(1).message(1);
    expect([body.string(2), body.string(3), body.varint(4)]).toEqual(['body', 'body', 1n]);
    expect(body.message(5).string(Schema.ref)).toBe('#/definitions/io.k8s.api.core.v1.ConfigMap');
    const dryRun = put[1]!.message(1).message(2).message(3);
    expect([dryRun.string(2), dryRun.string(4), dryRun.string(6), dryRun.varint(20)]).toEqual([
      'query',
      'dryRun',
      'string',
      1n,
    ]);
    expect(put[2]!.message(2).string(1)).toMatch(/^#\/parameters\/fieldManager-/);

    // Path-level parameters: the name path parameter (path_parameter_sub_schema = 4), then references.
    const [name, namespace, pretty] = item.messages(PathItem.parameters);
    const nameParameter = name!.message(1).message(2).message(4);
    expect([nameParameter.varint(1), nameParameter.string(2), nameParameter.string(4)]).toEqual([
      1n,
      'path',
      'name',
    ]);
    expect(namespace!.message(2).string(1)).toMatch(/^#\/parameters\/namespace-/);
    expect(pretty!.message(2).string(1)).toMatch(/^#\/parameters\/pretty-/);
    // The shared namespace parameter itself is a NamedParameter holding a Parameter.
    const shared = namespace!.message(2).string(1)!.slice('#/parameters/'.length);
    const sharedNamespace = document.message(Document.parameters).named(1, shared).message(2).message(4);
    expect(sharedNamespace.string(4)).toBe('namespace');
  });

  it('encodes a definition with properties, types, references and extensions', () => {
    const definitions = document.message(Document.definitions);
    const configMap = definitions.named(1, 'io.k8s.api.core.v1.ConfigMap');
    expect(configMap.string(Schema.description)).toBe(
      'ConfigMap holds configuration data for pods to consume.',
    );
    expect(configMap.message(Schema.type).strings(1)).toEqual(['object']);
    expect(extension(configMap, Schema.ext, 'x-kubernetes-group-version-kind')).toBe(
      '- group: ""\n  kind: ConfigMap\n  version: v1\n',
    );
    const properties = configMap.message(Schema.properties);
    expect(properties.names(1)).toEqual(
      Object.keys(
        (swagger.definitions as Record<string, { properties: object }>)['io.k8s.api.core.v1.ConfigMap']!
          .properties,
      ),
    );
    expect(properties.named(1, 'metadata').string(Schema.ref)).toBe(
      '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    );
    // data: {type: object, additionalProperties: {type: string}} -> AdditionalPropertiesItem.schema = 1
    const data = properties.named(1, 'data');
    expect(data.message(Schema.additionalProperties).message(1).message(Schema.type).strings(1)).toEqual([
      'string',
    ]);

    const podSpec = definitions.named(1, 'io.k8s.api.core.v1.PodSpec');
    expect(podSpec.strings(Schema.required)).toEqual(['containers']);
    const containers = podSpec.message(Schema.properties).named(1, 'containers');
    expect(containers.message(Schema.items).message(1).string(Schema.ref)).toBe(
      '#/definitions/io.k8s.api.core.v1.Container',
    );
    expect(extension(containers, Schema.ext, 'x-kubernetes-patch-merge-key')).toBe('name\n');
    expect(extension(containers, Schema.ext, 'x-kubernetes-patch-strategy')).toBe('merge\n');
    expect(extension(containers, Schema.ext, 'x-kubernetes-list-map-keys')).toBe('- name\n');
  });

  it('is computed once per document', () => {
    const first = openAPIV2Protobuf(json);
    expect(openAPIV2Protobuf(json)).toBe(first);
    expect(first.etag).toBe(json.etag);
    expect(first.hash).toBe(json.hash);
  });
});

describe('encodeOpenApiV2Protobuf oneofs and values', () => {
  const bytes = encodeOpenApiV2Protobuf({
    swagger: '2.0',
    info: { title: 't', version: '1', 'x-info': { a: [1, 2] } },
    'x-top': 'yes',
    paths: {
      'x-paths': true,
      '/files': {
        get: {
          parameters: [
            { name: 'h', in: 'header', type: 'string' },
            { name: 'f', in: 'formData', type: 'file' },
          ],
          responses: {
            '200': { description: 'OK', schema: { type: 'file' } },
            default: { $ref: '#/responses/Failure' },
            'x-r': 1,
          },
        },
      },
    },
    definitions: {
      Thing: {
        type: ['object', 'null'],
        additionalProperties: false,
        enum: ['a', { b: 1 }],
        default: { c: 'd' },
        minimum: -1.5,
        maxLength: 9,
      },
    },
    securityDefinitions: {
      oauth: {
        type: 'oauth2',
        flow: 'accessCode',
        authorizationUrl: 'a',
        tokenUrl: 't',
        scopes: { read: 'Read' },
      },
      basic: { type: 'basic' },
    },
  });
  const doc = ProtoMessage.decode(bytes);

  it('stores x- keys as NamedAny with YAML text', () => {
    expect(extension(doc, Document.ext, 'x-top')).toBe('"yes"\n');
    expect(extension(doc.message(Document.info), 7, 'x-info')).toBe('a:\n    - 1\n    - 2\n');
    expect(extension(doc.message(Document.paths), Paths.ext, 'x-paths')).toBe('true\n');
  });

  it('chooses header, formData, file-schema and reference branches', () => {
    const get = doc.message(Document.paths).named(Paths.path, '/files').message(PathItem.get);
    const [header, formData] = get.messages(Operation.parameters).map((p) => p.message(1).message(2));
    expect(header!.message(1).string(4)).toBe('h');
    expect(formData!.message(2).string(6)).toBe('file');
    const responses = get.message(Operation.responses);
    expect(responses.names(1)).toEqual(['200', 'default']);
    expect(responses.named(1, '200').message(1).message(2).message(2).string(6)).toBe('file');
    expect(responses.named(1, 'default').message(2).string(1)).toBe('#/responses/Failure');
    expect(extension(responses, 2, 'x-r')).toBe('1\n');
  });

  it('encodes schema scalars, type lists, boolean additionalProperties and Any values', () => {
    const thing = doc.message(Document.definitions).named(1, 'Thing');
    expect(thing.message(Schema.type).strings(1)).toEqual(['object', 'null']);
    // additionalProperties: false is the oneof's boolean member (2), present though false.
    expect(thing.message(Schema.additionalProperties).fields).toEqual([
      { field: 2, wireType: 0, varint: 0n },
    ]);
    expect(thing.messages(Schema.enum).map((any) => any.string(2))).toEqual(['a\n', 'b: 1\n']);
    expect(thing.message(5).string(2)).toBe('c: d\n');
    expect(thing.double(9)).toBe(-1.5);
    expect(thing.varint(11)).toBe(9n);
  });

  it('chooses the security scheme by type and flow', () => {
    const definitions = doc.message(Document.securityDefinitions);
    const accessCode = definitions.named(1, 'oauth').message(6);
    expect([accessCode.string(2), accessCode.string(4), accessCode.string(5)]).toEqual([
      'accessCode',
      'a',
      't',
    ]);
    expect(
      accessCode
        .message(3)
        .messages(1)
        .map((scope) => [scope.string(1), scope.string(2)]),
    ).toEqual([['read', 'Read']]);
    expect(definitions.named(1, 'basic').message(1).string(1)).toBe('basic');
  });
});
