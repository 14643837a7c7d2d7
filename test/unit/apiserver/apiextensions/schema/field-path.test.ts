// fieldPath of x-kubernetes-validations rules resolved against a schema (upstream's ValidFieldPath).
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../../src/api/types/apiextensions-v1.generated.js';
import { fieldPathOf } from '../../../../../src/apiserver/apiextensions/schema/index.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        'a.b': { type: 'string' },
      },
    },
  },
};

describe('fieldPathOf', () => {
  const cases: [string, string][] = [
    ['.spec.replicas', 'spec.replicas'],
    [".spec.labels['app.kubernetes.io/name']", 'spec.labels[app.kubernetes.io/name]'],
    [".spec['a.b']", 'spec.a.b'],
  ];
  it.each(cases)('%s names %s', (jsonPath, expected) => {
    expect(fieldPathOf(schema, jsonPath)).toBe(expected);
  });

  const errors: [string, string][] = [
    ['.spec.nope', 'does not refer to a valid field'],
    ['spec', 'expected [ or . but got: spec'],
    ['.spec[replicas]', 'expected single quoted string but got replicas'],
    ['.spec.', 'unexpected end of JSON path'],
    [".spec['replicas'", 'unexpected end of JSON path'],
    [".spec['a\\qb']", 'invalid string literal: invalid escape char \\q'],
  ];
  it.each(errors)('%s is refused: %s', (jsonPath, message) => {
    const result = fieldPathOf(schema, jsonPath);
    expect(result).toBeInstanceOf(Error);
    expect((result as Error).message).toBe(message);
  });
});
