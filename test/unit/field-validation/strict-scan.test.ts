import { describe, expect, it } from 'vitest';
import { ANY_SHAPE, schemaShape } from '../../../src/apiserver/field-validation/shapes.js';
import {
  MAX_STRICT_ERRORS,
  scanStrictErrors,
  strictErrorText,
} from '../../../src/apiserver/field-validation/strict-scan.js';
import type { SchemaObject } from '../../../src/apiserver/openapi/schema.js';

// A small Go-like type. The expected texts below are what sigs.k8s.io/json UnmarshalStrict prints for the
// same bodies decoded into the equivalent Go structs (checked against the library).
const port: SchemaObject = { properties: { containerPort: { type: 'integer' }, name: { type: 'string' } } };
const container: SchemaObject = {
  properties: {
    name: { type: 'string' },
    image: { type: 'string' },
    ports: { type: 'array', items: port },
    env: { type: 'object', additionalProperties: port },
  },
};
const shape = schemaShape({
  properties: {
    apiVersion: { type: 'string' },
    metadata: {
      properties: {
        name: { type: 'string' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    spec: {
      properties: {
        replicas: { type: 'integer' },
        containers: { type: 'array', items: container },
        any: { type: 'object' },
      },
    },
  },
});

function scan(body: string, root = shape): string[] {
  return scanStrictErrors(Buffer.from(body, 'utf8'), root).map(strictErrorText);
}

describe('scanStrictErrors', () => {
  it.each([
    {
      name: 'reports unknown and duplicate fields in document order, each once',
      body: `{"metadata":{"name":"a","name":"b","labels":{"x":"1","x":"2","x":"3"},"foo":1,"foo":2},
        "spec":{"replicasx":1,"containers":[{"name":"c","imagex":"i","ports":[{"containerPort":1,"bogus":{"a":1,"a":2}}]},
        {"name":"d","name":"e"}]},"bar":{"x":1,"x":1}}`,
      expected: [
        'duplicate field "metadata.name"',
        'duplicate field "metadata.labels.x"',
        'unknown field "metadata.foo"',
        'unknown field "spec.replicasx"',
        'unknown field "spec.containers[0].imagex"',
        'unknown field "spec.containers[0].ports[0].bogus"',
        'duplicate field "spec.containers[1].name"',
        'unknown field "bar"',
      ],
    },
    {
      name: 'names map keys in paths and checks interface{} values for duplicates only',
      body: '{"spec":{"containers":[{"env":{"k":{"zz":1}}}],"any":{"a":[{"b":1,"b":2}],"a":1}}}',
      expected: [
        'unknown field "spec.containers[0].env.k.zz"',
        'duplicate field "spec.any.a[0].b"',
        'duplicate field "spec.any.a"',
      ],
    },
    {
      name: 'keeps an empty key as a level of the path',
      body: '{"":{"x":1},"spec":{"":1}}',
      expected: ['unknown field ""', 'unknown field "spec."'],
    },
    {
      name: 'matches keys after unescaping and Go-quotes the path',
      body: '{"spec":{"containers":[{"na\\u006de":"x","naïve":1,"q\\"":1}]}}',
      expected: ['unknown field "spec.containers[0].naïve"', 'unknown field "spec.containers[0].q\\""'],
    },
    {
      name: 'decodes a repeated struct twice: its unknown fields from both, the repeat itself',
      body: '{"spec":{"x":1},"spec":{"x":2,"y":3}}',
      expected: ['unknown field "spec.x"', 'duplicate field "spec"', 'unknown field "spec.y"'],
    },
    {
      name: 'finds nothing in a clean body with whitespace everywhere',
      body: ' { "apiVersion" : "v1" , "metadata" : { "labels" : { } } , "spec" : { "containers" : [ ] } } ',
      expected: [],
    },
    {
      name: 'skips values of the wrong JSON type, which fail decoding on their own',
      body: '{"metadata":"x","spec":{"containers":{"a":1,"a":2},"replicas":{"b":1,"b":1}}}',
      expected: [],
    },
    {
      name: 'reads strings with escaped quotes and backslashes without losing its place',
      body: '{"metadata":{"name":"a\\"}\\\\","labels":{"k":"v\\\\"}},"spec":{"zz":"]}\\""}}',
      expected: ['unknown field "spec.zz"'],
    },
  ])('$name', ({ body, expected }) => {
    expect(scan(body)).toEqual(expected);
  });

  it('reports duplicates at every depth of an untyped value, with list indexes', () => {
    expect(scan('[{"a":{"b":[1,{"c":1,"c":2}]}},{"a":1,"a":2}]', ANY_SHAPE)).toEqual([
      'duplicate field "[0].a.b[1].c"',
      'duplicate field "[1].a"',
    ]);
  });

  it('looks nowhere inside a field whose type decodes itself', () => {
    const quantity = schemaShape({ $ref: '#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity' });
    expect(quantity.kind).toBe('opaque');
    expect(scan('{"a":1,"a":2}', quantity)).toEqual([]);
  });

  it('keeps at most 100 errors', () => {
    const keys = Array.from({ length: 150 }, (_, i) => `"f${i}":1`).join(',');
    const errors = scan(`{"spec":{${keys}}}`);
    expect(errors).toHaveLength(MAX_STRICT_ERRORS);
    expect(errors.at(-1)).toBe('unknown field "spec.f99"');
  });

  it('tracks duplicates in objects with many keys', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":"v"`).join(',');
    expect(scan(`{"metadata":{"labels":{${keys},"k3":"again","k39":"again"}}}`)).toEqual([
      'duplicate field "metadata.labels.k3"',
      'duplicate field "metadata.labels.k39"',
    ]);
  });

  it('stops at malformed input instead of running on', () => {
    expect(scan('{"spec":{"zz":1,')).toEqual(['unknown field "spec.zz"']);
    expect(scan('{"spec" 1}')).toEqual([]);
    expect(scan('')).toEqual([]);
  });
});
