// Defaulting of custom resources as apiextensions-apiserver's structural defaulting does it.
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../../src/api/types/apiextensions-v1.generated.js';
import { applyDefaults } from '../../../../../src/apiserver/apiextensions/schema/index.js';

const object = (
  properties: Record<string, JSONSchemaProps>,
  extra: JSONSchemaProps = {},
): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...extra,
});

describe('applyDefaults', () => {
  const schema = object({
    spec: object(
      {
        replicas: { type: 'integer', default: 1 },
        strategy: object({ type: { type: 'string', default: 'Rolling' } }, { default: {} }),
        config: object({ level: { type: 'string' } }, { default: { level: 'info' } }),
        note: { type: 'string', nullable: true, default: 'n' },
        ports: {
          type: 'array',
          items: object({ protocol: { type: 'string', default: 'TCP' } }, { default: { protocol: 'UDP' } }),
        },
        env: {
          type: 'object',
          additionalProperties: object({ secret: { type: 'boolean', default: false } }),
        },
      },
      { default: {} },
    ),
  });

  it('fills absent fields, then the defaults inside defaulted objects', () => {
    const resource: Record<string, unknown> = {};
    applyDefaults(schema, resource);
    expect(resource).toEqual({
      spec: { replicas: 1, strategy: { type: 'Rolling' }, config: { level: 'info' }, note: 'n' },
    });
  });

  it('replaces nulls where the schema is not nullable, and keeps them where it is', () => {
    const resource: Record<string, unknown> = { spec: { replicas: null, note: null } };
    applyDefaults(schema, resource);
    expect(resource.spec).toMatchObject({ replicas: 1, note: null });
  });

  it('defaults list items and map values', () => {
    const resource: Record<string, unknown> = {
      spec: { ports: [{}, null, { protocol: 'SCTP' }], env: { A: {}, B: { secret: true } } },
    };
    applyDefaults(schema, resource);
    expect(resource.spec).toMatchObject({
      ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }, { protocol: 'SCTP' }],
      env: { A: { secret: false }, B: { secret: true } },
    });
  });

  it('copies defaults, so objects never share the schema default', () => {
    const first: Record<string, unknown> = {};
    const second: Record<string, unknown> = {};
    applyDefaults(schema, first);
    applyDefaults(schema, second);
    (first.spec as { config: { level: string } }).config.level = 'debug';
    expect((second.spec as { config: { level: string } }).config.level).toBe('info');
    expect(schema.properties!.spec!.properties!.config!.default).toEqual({ level: 'info' });
  });
});
