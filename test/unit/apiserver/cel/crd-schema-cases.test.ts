// Cases of apiextensions-apiserver's TestValidateCustomResourceDefinitionValidation that concern
// x-kubernetes-validations: which rules are refused, at which path, with which error type.
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../src/api/types/apiextensions-v1.generated.js';
import { compileSchemaValidations } from '../../../../src/apiserver/cel/index.js';

const ROOT = 'spec.validation.openAPIV3Schema';

function root(properties: Record<string, JSONSchemaProps>): JSONSchemaProps {
  return { type: 'object', properties };
}

const doubleNested = (keyMaxLength?: number, maxItems?: number, maxProperties?: number): JSONSchemaProps =>
  root({
    value: {
      type: 'array',
      ...(maxItems !== undefined && { maxItems }),
      items: {
        type: 'object',
        ...(maxProperties !== undefined && { maxProperties }),
        additionalProperties: {
          type: 'object',
          required: ['key'],
          properties: {
            key: { type: 'string', ...(keyMaxLength !== undefined && { maxLength: keyMaxLength }) },
          },
        },
      },
      'x-kubernetes-validations': [{ rule: 'self.all(x, x.all(y, x[y].key == x[y].key))' }],
    },
  });

const transitionOnItems = (listType?: string): JSONSchemaProps =>
  root({
    value: {
      type: 'array',
      maxItems: 10,
      ...(listType !== undefined && { 'x-kubernetes-list-type': listType }),
      ...(listType === 'map' && { 'x-kubernetes-list-map-keys': ['name'] }),
      items:
        listType === 'map'
          ? {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string', maxLength: 10 } },
              'x-kubernetes-validations': [{ rule: 'self == oldSelf' }],
            }
          : { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
    },
  });

const transitionUnderMap = (mapType?: string): JSONSchemaProps =>
  root({
    value: {
      type: 'object',
      ...(mapType !== undefined && { 'x-kubernetes-map-type': mapType }),
      properties: {
        subfield: {
          type: 'string',
          maxLength: 10,
          'x-kubernetes-validations': [{ rule: 'self == oldSelf' }],
        },
      },
    },
  });

const RULE = (path: string, i = 0): string => `${ROOT}.${path}x-kubernetes-validations[${i}].rule`;

const cases: [string, JSONSchemaProps, [string, string][]][] = [
  [
    'forbid double-nested rule with no limit set',
    doubleNested(),
    [
      ['FieldValueForbidden', RULE('properties[value].')],
      ['FieldValueForbidden', RULE('properties[value].')],
      ['FieldValueForbidden', ROOT],
    ],
  ],
  [
    'forbid double-nested rule with one limit set',
    doubleNested(10),
    [
      ['FieldValueForbidden', RULE('properties[value].')],
      ['FieldValueForbidden', RULE('properties[value].')],
      ['FieldValueForbidden', ROOT],
    ],
  ],
  ['allow double-nested rule with three limits set', doubleNested(10, 10, 10), []],
  [
    'allow double-nested rule with one limit set on outermost array',
    root({
      value: {
        type: 'array',
        maxItems: 4,
        items: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['key'],
            properties: { key: { type: 'number' } },
          },
        },
        'x-kubernetes-validations': [{ rule: 'self.all(x, x.all(y, x[y].key == x[y].key))' }],
      },
    }),
    [],
  ],
  [
    'check for cardinality of 1 under root object',
    root({ value: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 1024' }] } }),
    [],
  ],
  [
    'forbid validation rules where cost total exceeds total limit',
    root({
      list: {
        type: 'array',
        maxItems: 100000,
        items: {
          type: 'string',
          maxLength: 5000,
          'x-kubernetes-validations': [{ rule: "self.contains('keyword')" }],
        },
      },
      map: {
        type: 'object',
        maxProperties: 1000,
        additionalProperties: {
          type: 'string',
          maxLength: 5000,
          'x-kubernetes-validations': [{ rule: "self.contains('keyword')" }],
        },
      },
      field: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 50 && self < 100' }] },
    }),
    [
      ['FieldValueForbidden', RULE('properties[list].items.')],
      ['FieldValueForbidden', RULE('properties[list].items.')],
      ['FieldValueForbidden', RULE('properties[map].additionalProperties.')],
      ['FieldValueForbidden', ROOT],
    ],
  ],
  [
    'rule validated for an escaped property name',
    {
      type: 'object',
      properties: { 'f/2': { type: 'string' } },
      'x-kubernetes-validations': [{ rule: 'self.f__slash__2 == 1' }],
    },
    [['FieldValueInvalid', RULE('')]],
  ],
  [
    'rule validated under array items, parent has rule',
    root({
      a: {
        type: 'array',
        items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == 1' }] },
        'x-kubernetes-validations': [{ rule: '1 == 1' }],
      },
    }),
    [['FieldValueInvalid', RULE('properties[a].items.')]],
  ],
  [
    'rule validated under additionalProperties',
    root({
      a: {
        type: 'object',
        additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == 1' }] },
      },
    }),
    [['FieldValueInvalid', RULE('properties[a].additionalProperties.')]],
  ],
  [
    'do not skip rules below an invalid structural level',
    root({
      a: {
        type: 'object',
        properties: { b: { type: 'integer', 'x-kubernetes-validations': [{ rule: "self == 'abc'" }] } },
        additionalProperties: { type: 'string' },
      },
    }),
    [['FieldValueInvalid', RULE('properties[a].properties[b].')]],
  ],
  [
    'forbid transition rule on items of an atomic list',
    transitionOnItems('atomic'),
    [['FieldValueInvalid', RULE('properties[value].items.')]],
  ],
  [
    'forbid transition rule on items of a list defaulting to atomic',
    transitionOnItems(),
    [['FieldValueInvalid', RULE('properties[value].items.')]],
  ],
  [
    'forbid transition rule on items of a set',
    transitionOnItems('set'),
    [['FieldValueInvalid', RULE('properties[value].items.')]],
  ],
  ['allow transition rule on items of a map list', transitionOnItems('map'), []],
  ['allow transition rule under a granular map', transitionUnderMap('granular'), []],
  ['allow transition rule under an atomic map', transitionUnderMap('atomic'), []],
  ['allow transition rule under a map of default type', transitionUnderMap(), []],
  [
    'forbid transition rule under a map of unknown type',
    transitionUnderMap('future'),
    [['FieldValueInvalid', RULE('properties[value].properties[subfield].')]],
  ],
  [
    'allow transition rule on an atomic list itself',
    root({
      value: {
        type: 'array',
        maxItems: 10,
        items: { type: 'string', maxLength: 10 },
        'x-kubernetes-validations': [{ rule: 'self == oldSelf' }],
      },
    }),
    [],
  ],
];

describe('CRD schema cases of upstream', () => {
  it.each(cases)('%s', (_name, schema, expected) => {
    const { errors } = compileSchemaValidations(schema, ROOT);
    expect(errors.map((e) => [e.type, e.field])).toEqual(expected);
  });
});
