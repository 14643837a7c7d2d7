// Validation ratcheting on updates (apiextensions-apiserver's RatchetingSchemaValidator): errors
// of values an update leaves as they were are dropped; changed values are validated.
import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '../../../../../src/api/selectors/field-errors.js';
import type { JSONSchemaProps } from '../../../../../src/api/types/apiextensions-v1.generated.js';
import { validateCustomResourceUpdate } from '../../../../../src/apiserver/apiextensions/schema/index.js';

const object = (
  properties: Record<string, JSONSchemaProps>,
  extra: JSONSchemaProps = {},
): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...extra,
});

const schema = object({
  spec: object({
    name: { type: 'string', maxLength: 3 },
    size: { type: 'string', enum: ['small', 'large'] },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: object(
        { name: { type: 'string' }, port: { type: 'integer', maximum: 100 } },
        { required: ['name'] },
      ),
    },
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 2 } },
  }),
});

function update(next: object, old: object): string[] {
  return validateCustomResourceUpdate(
    schema,
    next as Record<string, unknown>,
    old as Record<string, unknown>,
  ).map(fieldErrorMessage);
}

describe('validateCustomResourceUpdate', () => {
  it('lets an invalid value stay while other fields change, and validates changed ones', () => {
    const old = { spec: { name: 'toolong', size: 'huge' } };
    expect(update({ spec: { name: 'toolong', size: 'small' } }, old)).toEqual([]);
    expect(update({ spec: { name: 'toolonger', size: 'huge' } }, old)).toEqual([
      'spec.name: Too long: may not be more than 3 bytes',
    ]);
  });

  it('correlates list-map items by key, wherever they moved', () => {
    const old = { spec: { ports: [{ name: 'a', port: 500 }] } };
    expect(
      update(
        {
          spec: {
            ports: [
              { name: 'b', port: 1 },
              { name: 'a', port: 500 },
            ],
          },
        },
        old,
      ),
    ).toEqual([]);
    expect(update({ spec: { ports: [{ name: 'a', port: 501 }] } }, old)).toEqual([
      'spec.ports[0].port: Invalid value: 501: spec.ports[0].port in body should be less than or equal to 100',
    ]);
  });

  it('does not correlate set items, so they are validated even when kept', () => {
    const old = { spec: { tags: ['long'] } };
    expect(update({ spec: { tags: ['long', 'x'] } }, old)).toEqual([
      'spec.tags[0]: Too long: may not be more than 2 bytes',
    ]);
  });
});
