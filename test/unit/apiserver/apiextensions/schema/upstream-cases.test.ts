// The cases of apiextensions-apiserver's TestValidateCustomResource (pkg/apiserver/validation),
// re-expressed here: objects that pass, and failing objects with the exact error lists.
import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '../../../../../src/api/selectors/field-errors.js';
import type { JSONSchemaProps } from '../../../../../src/api/types/apiextensions-v1.generated.js';
import { validateCustomResource } from '../../../../../src/apiserver/apiextensions/schema/index.js';

interface Case {
  name: string;
  field: JSONSchemaProps;
  passing: unknown[];
  failing: [unknown, string[]][];
}

const typeError = (type: string, got: string) =>
  `field: Invalid value: "${got}": field in body must be of type ${type}: "${got}"`;
const anyOfError = '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)';
const allOfError = '<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated';

const cases: Case[] = [
  {
    name: '!nullable',
    field: { type: 'object' },
    passing: [undefined, {}],
    failing: [
      ['foo', [typeError('object', 'string')]],
      [42, [typeError('object', 'integer')]],
      [true, [typeError('object', 'boolean')]],
      [1.2, [typeError('object', 'number')]],
      [[], [typeError('object', 'array')]],
      [null, [typeError('object', 'null')]],
    ],
  },
  {
    name: 'nullable',
    field: { type: 'object', nullable: true },
    passing: [undefined, {}, null],
    failing: [
      ['foo', [typeError('object', 'string')]],
      [[], [typeError('object', 'array')]],
    ],
  },
  {
    name: 'x-kubernetes-int-or-string',
    field: { 'x-kubernetes-int-or-string': true },
    passing: [undefined, 42, 'foo'],
    failing: [
      [null, [typeError('integer,string', 'null')]],
      [true, [typeError('integer,string', 'boolean')]],
      [1.2, [typeError('integer,string', 'number')]],
      [{}, [typeError('integer,string', 'object')]],
      [[], [typeError('integer,string', 'array')]],
    ],
  },
  {
    name: 'nullable and x-kubernetes-int-or-string',
    field: { nullable: true, 'x-kubernetes-int-or-string': true },
    passing: [undefined, 42, 'foo', null],
    failing: [[true, [typeError('integer,string', 'boolean')]]],
  },
  {
    name: 'nullable, x-kubernetes-int-or-string and user-provided anyOf',
    field: {
      nullable: true,
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    },
    passing: [undefined, null, 42, 'foo'],
    failing: [
      [true, [anyOfError, typeError('integer,string', 'boolean'), typeError('integer', 'boolean')]],
      [{}, [anyOfError, typeError('integer,string', 'object'), typeError('integer', 'object')]],
    ],
  },
  {
    name: 'nullable, x-kubernetes-int-or-string and user-provided allOf',
    field: {
      nullable: true,
      'x-kubernetes-int-or-string': true,
      allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }],
    },
    passing: [undefined, null, 42, 'foo'],
    failing: [
      [1.2, [allOfError, anyOfError, typeError('integer,string', 'number'), typeError('integer', 'number')]],
      [[], [allOfError, anyOfError, typeError('integer,string', 'array'), typeError('integer', 'array')]],
    ],
  },
  {
    name: 'invalid regex',
    field: { type: 'string', pattern: '+' },
    passing: [],
    failing: [
      [
        'foo',
        [
          'field: Invalid value: "foo": field in body should match \'+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`\'',
        ],
      ],
    ],
  },
  {
    name: 'maxProperties',
    field: { type: 'object', maxProperties: 2 },
    passing: [{ a: true }],
    failing: [[{ a: true, b: true, c: true }, ['field: Too many: 3: must have at most 2 items']]],
  },
  {
    name: 'maxItems',
    field: { type: 'array', maxItems: 2 },
    passing: [['a']],
    failing: [[['a', 'b', 'c'], ['field: Too many: 3: must have at most 2 items']]],
  },
  {
    name: 'maxLength',
    field: { type: 'string', maxLength: 2 },
    passing: ['ab'],
    failing: [['abc', ['field: Too long: may not be more than 2 bytes']]],
  },
  {
    name: 'enum',
    field: {
      type: 'object',
      required: ['nestedint', 'nestedstring'],
      properties: {
        nestedint: { type: 'integer', enum: [1, 2] },
        nestedstring: { type: 'string', enum: ['a', 'b'] },
      },
    },
    passing: [{ nestedint: 1, nestedstring: 'a' }],
    failing: [
      [{}, ['field.nestedint: Required value', 'field.nestedstring: Required value']],
      [
        { nestedint: 'x', nestedstring: true },
        [
          'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
          'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
          'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
          'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
        ],
      ],
    ],
  },
];

function validate(field: JSONSchemaProps, value: unknown): string[] {
  const schema: JSONSchemaProps = { type: 'object', properties: { field } };
  const object = value === undefined ? {} : { field: value };
  return validateCustomResource(schema, object).map(fieldErrorMessage).sort();
}

describe('validateCustomResource: upstream cases', () => {
  for (const testCase of cases) {
    it(testCase.name, () => {
      for (const value of testCase.passing) expect(validate(testCase.field, value)).toEqual([]);
      for (const [value, expected] of testCase.failing)
        expect(validate(testCase.field, value)).toEqual([...expected].sort());
    });
  }

  it('required at the root and below', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      required: ['field'],
      properties: { field: { type: 'object', required: ['nested'], properties: { nested: {} } } },
    };
    expect(validateCustomResource(schema, { test: 'a' }).map(fieldErrorMessage)).toEqual([
      'field: Required value',
    ]);
    expect(validateCustomResource(schema, { field: {} }).map(fieldErrorMessage)).toEqual([
      'field.nested: Required value',
    ]);
  });
});
