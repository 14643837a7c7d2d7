// A CRD version's openAPIV3Schema checks (structural schema, v1 OpenAPI rules, list/map types,
// defaults), with apiextensions-apiserver's field paths and texts.
import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '../../../../../src/api/selectors/field-errors.js';
import type { JSONSchemaProps } from '../../../../../src/api/types/apiextensions-v1.generated.js';
import { validateCrdSchema } from '../../../../../src/apiserver/apiextensions/schema/index.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const object = (
  properties: Record<string, JSONSchemaProps>,
  extra: JSONSchemaProps = {},
): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...extra,
});

function check(schema: JSONSchemaProps): string[] {
  return validateCrdSchema(schema, P).map(fieldErrorMessage);
}

describe('validateCrdSchema', () => {
  const cases: [string, JSONSchemaProps, string[]][] = [
    [
      'a field without a type',
      object({ spec: { properties: { a: { type: 'string' } } } }),
      [`${P}.properties[spec].type: Required value: must not be empty for specified object fields`],
    ],
    [
      'array items without a type',
      object({ list: { type: 'array', items: {} } }),
      [`${P}.properties[list].items.type: Required value: must not be empty for specified array items`],
    ],
    [
      'the root without a type',
      { properties: { a: { type: 'string' } } },
      [`${P}.type: Required value: must not be empty at the root`],
    ],
    [
      'the root not an object',
      { type: 'string' },
      [`${P}.type: Invalid value: "string": must be object at the root`],
    ],
    [
      'an array without items',
      object({ list: { type: 'array' } }),
      [`${P}.properties[list].items: Required value: must be specified`],
    ],
    [
      '$ref',
      object({ a: { $ref: '#/definitions/x' } }),
      [`${P}.properties[a].$ref: Forbidden: $ref is not supported`],
    ],
    [
      'a type inside anyOf',
      object({ a: { type: 'string', anyOf: [{ type: 'string' }] } }),
      [`${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`],
    ],
    [
      'anyOf constraining a field the schema does not specify',
      { type: 'object', anyOf: [{ properties: { x: { minLength: 1 } } }] },
      [`${P}.properties[x]: Required value: because it is defined in ${P}.anyOf[0].properties[x]`],
    ],
    [
      'metadata beyond name and generateName at the root',
      object({ metadata: object({ name: { type: 'string' }, labels: { type: 'object' } }) }),
      [
        `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      ],
    ],
    [
      'metadata in a nested value validation',
      object({
        spec: object({ metadata: { type: 'object' } }, { allOf: [{ properties: { metadata: {} } }] }),
      }),
      [
        `${P}.properties[spec].allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
      ],
    ],
    [
      'an embedded resource without properties',
      object({ t: { type: 'object', 'x-kubernetes-embedded-resource': true } }),
      [
        `${P}.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      ],
    ],
    [
      'an embedded resource that is no object',
      object({
        t: {
          type: 'string',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      }),
      [
        `${P}.properties[t].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
      ],
    ],
    [
      'int-or-string with preserve-unknown-fields',
      object({ p: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } }),
      [
        `${P}.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      ],
    ],
    [
      'additionalProperties at the root and beside properties',
      object({ a: { type: 'string' } }, { additionalProperties: { type: 'string' } }),
      [
        `${P}.additionalProperties: Forbidden: must not be used at the root`,
        `${P}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      ],
    ],
    [
      'a list-map without keys',
      object({
        l: { type: 'array', 'x-kubernetes-list-type': 'map', items: object({ name: { type: 'string' } }) },
      }),
      [
        `${P}.properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      ],
    ],
    [
      'list-map keys that are not scalar, or neither required nor defaulted',
      object({
        l: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'sub'],
          items: object({ name: { type: 'string' }, sub: { type: 'object' } }, { required: ['sub'] }),
        },
      }),
      [
        `${P}.properties[l].items.properties[sub].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
        `${P}.properties[l].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      ],
    ],
    [
      'list-map keys that are no item properties',
      object({
        l: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['id'],
          items: object({ name: { type: 'string' } }),
        },
      }),
      [
        `${P}.properties[l].x-kubernetes-list-map-keys: Invalid value: []string{"id"}: entries must all be names of item properties`,
      ],
    ],
    [
      'an unknown list type',
      object({ l: { type: 'array', 'x-kubernetes-list-type': 'bag', items: { type: 'string' } } }),
      [
        `${P}.properties[l].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
      ],
    ],
    [
      'a set of non-atomic objects',
      object({
        s: { type: 'array', 'x-kubernetes-list-type': 'set', items: object({ a: { type: 'string' } }) },
      }),
      [
        `${P}.properties[s].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`,
      ],
    ],
    [
      'defaults of the wrong type or with unknown fields',
      object({
        a: { type: 'integer', default: 'x' },
        b: object({ c: { type: 'string' } }, { default: { c: 'ok', d: 1 } }),
      }),
      [
        `${P}.properties[a].default: Invalid value: "string":  in body must be of type integer: "string"`,
        `${P}.properties[b].default: Invalid value: map[string]interface {}{"c":"ok", "d":1}: must not have unknown fields`,
      ],
    ],
    [
      'a default that breaks a nested constraint',
      object({ b: object({ c: { type: 'string', maxLength: 2 } }, { default: { c: 'long' } }) }),
      [`${P}.properties[b].default.c: Too long: may not be more than 2 bytes`],
    ],
    [
      'a default in top-level metadata',
      object({ metadata: { type: 'object', default: {} } }),
      [`${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`],
    ],
    [
      'an embedded default needing apiVersion and a valid name',
      object({
        t: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
          default: { kind: 'Pod', metadata: { name: 'a/b' } },
        },
      }),
      [
        `${P}.properties[t].default.apiVersion: Required value: must not be empty`,
        `${P}.properties[t].default.metadata.name: Invalid value: "a/b": may not contain '/'`,
      ],
    ],
    [
      'patterns Go does not compile',
      object({ a: { type: 'string', pattern: '(?=x)abc' }, b: { type: 'string', pattern: '[a-' } }),
      [
        `${P}.properties[a].pattern: Invalid value: "(?=x)abc": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``,
        `${P}.properties[b].pattern: Invalid value: "[a-": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: \`[a-\``,
      ],
    ],
    [
      'unknown types and type null',
      object({ a: { type: 'strin' }, b: { type: 'null' } }),
      [
        `${P}.properties[a].type: Unsupported value: "strin": supported values: "array", "boolean", "integer", "number", "object", "string"`,
        `${P}.properties[b].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
        `${P}.properties[b].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      ],
    ],
    [
      'uniqueItems',
      object({ a: { type: 'array', items: { type: 'string' }, uniqueItems: true } }),
      [
        `${P}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      ],
    ],
    [
      'nullable at the root',
      { type: 'object', nullable: true },
      [`${P}.nullable: Forbidden: nullable cannot be true at the root`],
    ],
    [
      'map types',
      object({
        m: { type: 'string', 'x-kubernetes-map-type': 'atomic' },
        n: { type: 'object', 'x-kubernetes-map-type': 'weird' },
      }),
      [
        `${P}.properties[m].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`,
        `${P}.properties[n].x-kubernetes-map-type: Unsupported value: "weird": supported values: "atomic", "granular"`,
      ],
    ],
    [
      'preserve-unknown-fields false',
      object({ a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } }),
      [
        `${P}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
      ],
    ],
    [
      'items as an array',
      object({ a: { type: 'array', items: [{ type: 'string' }] } }),
      [`${P}.properties[a].items: Forbidden: items must be a schema object and not an array`],
    ],
  ];
  it.each(cases)('%s', (_name, schema, expected) => {
    expect(check(schema)).toEqual(expected);
  });

  it('accepts a schema shaped like a widely used operator CRD', () => {
    const schema = object({
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: object({ name: { type: 'string', maxLength: 63 } }),
      spec: object(
        {
          replicas: { type: 'integer', format: 'int32', minimum: 0, default: 1 },
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
            items: object(
              { containerPort: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
              { required: ['containerPort'] },
            ),
          },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
          selector: {
            type: 'object',
            'x-kubernetes-map-type': 'atomic',
            additionalProperties: { type: 'string' },
          },
        },
        { required: ['replicas'] },
      ),
      status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    });
    expect(check(schema)).toEqual([]);
    // The same schema with one bad default is refused, so the acceptance above is not vacuous.
    const spec = schema.properties!.spec!;
    const broken = {
      ...schema,
      properties: {
        ...schema.properties,
        spec: {
          ...spec,
          properties: { ...spec.properties, replicas: { type: 'integer', minimum: 0, default: -1 } },
        },
      },
    };
    expect(check(broken)).toEqual([
      `${P}.properties[spec].properties[replicas].default: Invalid value: -1:  in body should be greater than or equal to 0`,
    ]);
  });

  it('refuses a schema nested too deep for us with an error, not a crash', () => {
    let schema: JSONSchemaProps = { type: 'string' };
    for (let i = 0; i < 20_000; i++) schema = object({ a: schema });
    expect(check(schema)).toEqual([`${P}: Invalid value: "": must not be nested more than 1000 levels deep`]);
  });
});

describe('validateCrdSchema: x-kubernetes-validations rule shapes', () => {
  const at = `${P}.properties[spec].x-kubernetes-validations`;
  const withRules = (rules: object[]): JSONSchemaProps =>
    object({
      spec: object(
        {
          replicas: { type: 'integer' },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
        },
        { 'x-kubernetes-validations': rules as never },
      ),
    });
  const cases: [string, object[], string[]][] = [
    ['a blank rule', [{ rule: '  ' }], [`${at}[0].rule: Required value: rule is not specified`]],
    [
      'a blank message',
      [{ rule: 'true', message: ' ' }],
      [`${at}[0].message: Invalid value: " ": message must be non-empty if specified`],
    ],
    [
      'a message with a line break',
      [{ rule: 'true', message: 'a\nb' }],
      [`${at}[0].message: Invalid value: "a\\nb": message must not contain line breaks`],
    ],
    [
      'a multi-line rule without message',
      [{ rule: 'true &&\ntrue' }],
      [`${at}[0].message: Required value: message must be specified if rule contains line breaks`],
    ],
    [
      'an unknown reason',
      [{ rule: 'true', reason: 'Nope' }],
      [
        `${at}[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      ],
    ],
    [
      'a fieldPath naming no field',
      [
        { rule: 'true', fieldPath: '.nope' },
        { rule: 'true', fieldPath: ".labels['app.kubernetes.io/name']" },
        { rule: 'true', fieldPath: '.replicas' },
      ],
      [`${at}[0].fieldPath: Invalid value: ".nope": fieldPath must be a valid path`],
    ],
  ];
  it.each(cases)('%s', (_name, rules, expected) => {
    expect(check(withRules(rules))).toEqual(expected);
  });
});
