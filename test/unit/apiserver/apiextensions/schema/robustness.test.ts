// Malformed schemas and values (wrong JSON types where fields belong) must give field errors,
// never exceptions: the API server would answer them with a 500.
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../../src/api/types/apiextensions-v1.generated.js';
import {
  applyDefaults,
  pruneUnknownFields,
  validateCrdSchema,
  validateCustomResource,
  validateCustomResourceUpdate,
} from '../../../../../src/apiserver/apiextensions/schema/index.js';

/** A small deterministic generator (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  'type',
  'properties',
  'items',
  'additionalProperties',
  'required',
  'enum',
  'pattern',
  'format',
  'default',
  'nullable',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'minimum',
  'maximum',
  'maxLength',
  'minItems',
  'maxProperties',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
  'metadata',
  'apiVersion',
  'kind',
  'spec',
  'name',
];
const STRINGS = [
  'object',
  'array',
  'string',
  'integer',
  'number',
  'boolean',
  'map',
  'set',
  'atomic',
  '(',
  '^a+$',
  'email',
  '',
];

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 4 ? 5 : 8));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return Math.floor(next() * 10) - 2;
    case 3:
      return STRINGS[Math.floor(next() * STRINGS.length)];
    case 4:
      return next() * 3;
    case 5:
    case 6: {
      const out: Record<string, unknown> = {};
      const count = Math.floor(next() * 4);
      for (let i = 0; i < count; i++) out[KEYS[Math.floor(next() * KEYS.length)]!] = value(next, depth + 1);
      return out;
    }
    default:
      return Array.from({ length: Math.floor(next() * 3) }, () => value(next, depth + 1));
  }
}

describe('schema functions on malformed input', () => {
  it('never throw, whatever the shapes', () => {
    const next = random(19);
    for (let round = 0; round < 3000; round++) {
      const schema = value(next, 0);
      const object = value(next, 0);
      const previous = next() < 0.5 ? structuredClone(object) : value(next, 0);
      if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) continue;
      const resource =
        object !== null && typeof object === 'object' && !Array.isArray(object) ? object : { spec: object };
      const run = () => {
        validateCrdSchema(schema as JSONSchemaProps, 'spec.versions[0].schema.openAPIV3Schema');
        validateCustomResource(schema as JSONSchemaProps, resource as Record<string, unknown>);
        validateCustomResourceUpdate(schema as JSONSchemaProps, resource as Record<string, unknown>, {
          spec: previous,
        });
        applyDefaults(schema as JSONSchemaProps, resource as Record<string, unknown>);
        pruneUnknownFields(schema as JSONSchemaProps, resource as Record<string, unknown>);
      };
      expect(run, JSON.stringify({ schema, resource })).not.toThrow();
    }
  });

  it('report malformed schemas rather than accept them', () => {
    expect(
      validateCrdSchema({ type: 'object', properties: { a: { type: 'array', items: 5 as never } } }, 'p'),
    ).not.toEqual([]);
  });
});
