// Validation of custom resources against their schema (kube-openapi's SchemaValidator as
// apiextensions-apiserver maps it to field errors), with upstream's texts.
import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '../../../../../src/api/selectors/field-errors.js';
import type { JSONSchemaProps } from '../../../../../src/api/types/apiextensions-v1.generated.js';
import { validateCustomResource } from '../../../../../src/apiserver/apiextensions/schema/index.js';

const object = (
  properties: Record<string, JSONSchemaProps>,
  extra: JSONSchemaProps = {},
): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...extra,
});

/** A resource schema whose `spec` is the given schema. */
const withSpec = (spec: JSONSchemaProps): JSONSchemaProps => object({ spec });

function messages(schema: JSONSchemaProps, resource: Record<string, unknown>): string[] {
  return validateCustomResource(schema, resource).map(fieldErrorMessage);
}

const base = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };

describe('validateCustomResource: value errors', () => {
  const cases: [string, JSONSchemaProps, unknown, string[]][] = [
    [
      'integer given a string',
      object({ replicas: { type: 'integer' } }),
      { replicas: 'three' },
      ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
    ],
    [
      'integer given a fraction',
      object({ replicas: { type: 'integer' } }),
      { replicas: 1.5 },
      ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'],
    ],
    [
      'number accepts an integer, not a string',
      object({ ratio: { type: 'number' }, other: { type: 'number' } }),
      { ratio: 2, other: '2' },
      ['spec.other: Invalid value: "string": spec.other in body must be of type number: "string"'],
    ],
    [
      'null where not nullable',
      object({ name: { type: 'string' } }),
      { name: null },
      ['spec.name: Invalid value: "null": spec.name in body must be of type string: "null"'],
    ],
    [
      'null where nullable',
      object({ name: { type: 'string', nullable: true }, other: { type: 'object' } }),
      { name: null, other: null },
      ['spec.other: Invalid value: "null": spec.other in body must be of type object: "null"'],
    ],
    [
      'enum',
      object({ size: { type: 'string', enum: ['small', 'large'] } }),
      { size: 'huge' },
      ['spec.size: Unsupported value: "huge": supported values: "small", "large"'],
    ],
    [
      'enum of numbers',
      object({ level: { type: 'integer', enum: [1, 2] } }),
      { level: 3 },
      ['spec.level: Unsupported value: 3: supported values: "1", "2"'],
    ],
    [
      'minLength',
      object({ name: { type: 'string', minLength: 1 } }),
      { name: '' },
      ['spec.name: Invalid value: "": spec.name in body should be at least 1 chars long'],
    ],
    [
      'maxLength counts characters, not bytes',
      object({ name: { type: 'string', maxLength: 3 }, emoji: { type: 'string', maxLength: 1 } }),
      { name: 'äöü', emoji: '😀😀' },
      ['spec.emoji: Too long: may not be more than 1 byte'],
    ],
    [
      'maxLength',
      object({ name: { type: 'string', maxLength: 3 } }),
      { name: 'abcd' },
      ['spec.name: Too long: may not be more than 3 bytes'],
    ],
    [
      'pattern',
      object({ name: { type: 'string', pattern: '^[a-z]+$' } }),
      { name: 'ABC' },
      [`spec.name: Invalid value: "ABC": spec.name in body should match '^[a-z]+$'`],
    ],
    [
      'minimum and exclusive maximum',
      object({
        a: { type: 'integer', minimum: 1 },
        b: { type: 'integer', maximum: 10, exclusiveMaximum: true },
      }),
      { a: 0, b: 10 },
      [
        'spec.a: Invalid value: 0: spec.a in body should be greater than or equal to 1',
        'spec.b: Invalid value: 10: spec.b in body should be less than 10',
      ],
    ],
    [
      'multipleOf',
      object({ a: { type: 'integer', multipleOf: 5 } }),
      { a: 12 },
      ['spec.a: Invalid value: 12: spec.a in body should be a multiple of 5'],
    ],
    [
      'minItems and maxItems',
      object({
        a: { type: 'array', items: { type: 'string' }, minItems: 1 },
        b: { type: 'array', items: { type: 'string' }, maxItems: 1 },
      }),
      { a: [], b: ['x', 'y'] },
      [
        'spec.a: Invalid value: 0: spec.a in body should have at least 1 items',
        'spec.b: Too many: 2: must have at most 1 items',
      ],
    ],
    [
      'minProperties and maxProperties',
      object({
        a: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1 },
        b: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 },
      }),
      { a: {}, b: { x: '1', y: '2' } },
      [
        'spec.a: Invalid value: 0: spec.a in body should have at least 1 properties',
        'spec.b: Too many: 2: must have at most 1 items',
      ],
    ],
    [
      'required',
      object({ name: { type: 'string' } }, { required: ['name'] }),
      {},
      ['spec.name: Required value'],
    ],
    [
      'items are validated at their index',
      object({ ports: { type: 'array', items: object({ port: { type: 'integer' } }) } }),
      { ports: [{ port: 1 }, { port: 'x' }] },
      [
        'spec.ports[1].port: Invalid value: "string": spec.ports[1].port in body must be of type integer: "string"',
      ],
    ],
    [
      'additionalProperties schema, path joined with a dot',
      object({ labels: { type: 'object', additionalProperties: { type: 'string' } } }),
      { labels: { app: 5 } },
      [
        'spec.labels.app: Invalid value: "integer": spec.labels.app in body must be of type string: "integer"',
      ],
    ],
    [
      'int-or-string',
      object({ port: { 'x-kubernetes-int-or-string': true } }),
      { port: true },
      ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
    ],
    [
      'int-or-string accepts both, not a list',
      object({
        a: { 'x-kubernetes-int-or-string': true },
        b: { 'x-kubernetes-int-or-string': true },
        c: { 'x-kubernetes-int-or-string': true },
      }),
      { a: 1, b: '50%', c: [] },
      ['spec.c: Invalid value: "array": spec.c in body must be of type integer,string: "array"'],
    ],
    [
      'format',
      object({ email: { type: 'string', format: 'email' }, at: { type: 'string', format: 'date-time' } }),
      { email: 'nope', at: 'yesterday' },
      [
        'spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"',
        'spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"',
      ],
    ],
    [
      'unsupported formats constrain nothing (stripped as upstream)',
      object({
        a: { type: 'integer', format: 'int32' },
        b: { type: 'string', format: 'no-such-format' },
        c: { type: 'string', format: 'uuid' },
      }),
      { a: 2 ** 40, b: 'anything', c: 'not-a-uuid' },
      ['spec.c: Invalid value: "not-a-uuid": spec.c in body must be of type uuid: "not-a-uuid"'],
    ],
    [
      'oneOf reported on the whole object',
      object(
        { a: { type: 'string' }, b: { type: 'string' } },
        { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
      ),
      { a: 'x', b: 'y' },
      [
        '<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      ],
    ],
    [
      'anyOf',
      object(
        { a: { type: 'string' }, b: { type: 'string' } },
        { anyOf: [{ required: ['a'] }, { required: ['b'] }] },
      ),
      {},
      [
        '<nil>: Invalid value: "": "spec" must validate at least one schema (anyOf)',
        'spec.a: Required value',
      ],
    ],
    [
      'not',
      object({ a: { type: 'string' } }, { not: { required: ['a'] } }),
      { a: 'x' },
      ['<nil>: Invalid value: "": "spec" must not validate the schema (not)'],
    ],
    [
      'additionalProperties: false',
      object({ a: { type: 'string' } }, { additionalProperties: false }),
      { a: 'x', b: 'y' },
      ['spec: Invalid value: "b": spec.b in body is a forbidden property'],
    ],
  ];
  it.each(cases)('%s', (_name, spec, value, expected) => {
    expect(messages(withSpec(spec), { ...base, spec: value }).sort()).toEqual([...expected].sort());
  });
});

describe('validateCustomResource: list types and embedded resources', () => {
  it('reports a repeated set item as Duplicate at its index', () => {
    const schema = withSpec(
      object({ tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } }),
    );
    expect(messages(schema, { ...base, spec: { tags: ['a', 'b', 'a', 'a'] } })).toEqual([
      'spec.tags[2]: Duplicate value: "a"',
    ]);
  });

  it('reports sets inside map values at the key, as field.Path.Key prints it', () => {
    const schema = withSpec(
      object({
        groups: {
          type: 'object',
          additionalProperties: {
            type: 'array',
            items: { type: 'integer' },
            'x-kubernetes-list-type': 'set',
          },
        },
      }),
    );
    expect(messages(schema, { ...base, spec: { groups: { a: [1, 2, 1] } } })).toEqual([
      'spec.groups[a][2]: Duplicate value: 1',
    ]);
  });

  it('reports list-map items with the same key', () => {
    const schema = withSpec(
      object({
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: object({ port: { type: 'integer' }, protocol: { type: 'string' } }, { required: ['port'] }),
        },
      }),
    );
    expect(
      messages(schema, {
        ...base,
        spec: {
          ports: [
            { port: 80, protocol: 'TCP' },
            { port: 80, protocol: 'UDP' },
            { port: 80, protocol: 'TCP' },
          ],
        },
      }),
    ).toEqual(['spec.ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}']);
  });

  it('a single list-map key reports the key alone', () => {
    const schema = withSpec(
      object({
        items: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: object({ name: { type: 'string' } }, { required: ['name'] }),
        },
      }),
    );
    expect(messages(schema, { ...base, spec: { items: [{ name: 'a' }, { name: 'a' }] } })).toEqual([
      'spec.items[1]: Duplicate value: map[string]interface {}{"name":"a"}',
    ]);
  });

  it('needs apiVersion and kind in embedded resources and validates their metadata', () => {
    const schema = withSpec(
      object({
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      }),
    );
    expect(
      messages(schema, {
        ...base,
        spec: { template: { metadata: { name: 'a/b', labels: { 'bad key!': 'x' } } } },
      }).sort(),
    ).toEqual(
      [
        'spec.template.apiVersion: Required value: must not be empty',
        'spec.template.kind: Required value: must not be empty',
        `spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`,
        `spec.template.metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ].sort(),
    );
    expect(
      messages(schema, {
        ...base,
        spec: { template: { apiVersion: 'a/b/c', kind: 'Bad_Kind', metadata: {} } },
      }).sort(),
    ).toEqual(
      [
        'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        `spec.template.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ].sort(),
    );
  });

  it('validates the root metadata name against the schema', () => {
    const schema = object({
      metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } },
    });
    expect(messages(schema, { ...base, metadata: { name: 'too-long-name' } })).toEqual([
      'metadata.name: Too long: may not be more than 5 bytes',
    ]);
  });
});

describe('validateCustomResource: limits', () => {
  it('handles objects nested 10,000 levels under preserved fields without overflowing the stack', () => {
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 10_000; i++) {
      const next: Record<string, unknown> = {};
      deep.a = next;
      deep = next;
    }
    const schema = object({
      spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      replicas: { type: 'integer' },
    });
    expect(messages(schema, { ...base, spec: top, replicas: 'x' })).toEqual([
      'replicas: Invalid value: "string": replicas in body must be of type integer: "string"',
    ]);
  });

  it('refuses a schema nested beyond the limit with an error, not a crash', () => {
    let schema: JSONSchemaProps = { type: 'string' };
    let value: unknown = 'x';
    for (let i = 0; i < 5000; i++) {
      schema = object({ a: schema });
      value = { a: value };
    }
    const result = messages(withSpec(schema), { ...base, spec: value });
    expect(result).toHaveLength(1);
    expect(result[0]).toMatch(/must not be nested more than 1000 levels deep/);
  });

  it('validates a 20-field object against its compiled schema', () => {
    const properties: Record<string, JSONSchemaProps> = {};
    const spec: Record<string, unknown> = {};
    for (let i = 0; i < 20; i++) {
      properties[`field${i}`] =
        i % 2 === 0
          ? { type: 'string', maxLength: 64, pattern: '^[a-z0-9-]+$' }
          : { type: 'integer', minimum: 0 };
      spec[`field${i}`] = i % 2 === 0 ? `value-${i}` : i;
    }
    const schema = withSpec(object(properties));
    const resource = { ...base, spec };
    expect(messages(schema, resource)).toEqual([]);
    expect(messages(schema, { ...base, spec: { ...spec, field1: -1 } })).toEqual([
      'spec.field1: Invalid value: -1: spec.field1 in body should be greater than or equal to 0',
    ]);
  });
});
