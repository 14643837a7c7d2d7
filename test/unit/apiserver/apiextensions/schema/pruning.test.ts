// Pruning of unknown fields from custom resources, as apiextensions-apiserver prunes them, with
// the removed paths fieldValidation reports (`unknown field "spec.foo"`).
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../../src/api/types/apiextensions-v1.generated.js';
import { pruneUnknownFields } from '../../../../../src/apiserver/apiextensions/schema/index.js';

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
    name: { type: 'string' },
    items: { type: 'array', items: object({ id: { type: 'string' } }) },
    labels: { type: 'object', additionalProperties: object({ value: { type: 'string' } }) },
    free: object(
      { known: object({ a: { type: 'string' } }) },
      { 'x-kubernetes-preserve-unknown-fields': true },
    ),
    template: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      properties: { spec: object({ image: { type: 'string' } }) },
    },
    optional: { type: 'string', nullable: true },
    defaulted: { type: 'string', default: 'x' },
  }),
});

function prune(resource: Record<string, unknown>): { removed: string[]; resource: Record<string, unknown> } {
  const removed = pruneUnknownFields(schema, resource);
  return { removed, resource };
}

describe('pruneUnknownFields', () => {
  it('removes undeclared fields and reports their paths, sorted', () => {
    const { removed, resource } = prune({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', bogus: true, labels: { a: 'b' } },
      extra: 1,
      spec: {
        name: 'n',
        foo: 'bar',
        items: [{ id: 'a', bar: 1 }, { id: 'b' }],
        labels: { x: { value: 'v', junk: 2 } },
      },
    });
    expect(removed).toEqual([
      'metadata.bogus',
      'extra',
      'spec.foo',
      'spec.items[0].bar',
      'spec.labels.x.junk',
    ]);
    expect(resource).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', labels: { a: 'b' } },
      spec: { name: 'n', items: [{ id: 'a' }, { id: 'b' }], labels: { x: { value: 'v' } } },
    });
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields but prunes declared ones', () => {
    const { removed, resource } = prune({
      spec: { free: { anything: { deep: [1] }, known: { a: 'x', b: 'y' } } },
    });
    expect(removed).toEqual(['spec.free.known.b']);
    expect(resource).toEqual({ spec: { free: { anything: { deep: [1] }, known: { a: 'x' } } } });
  });

  it('keeps apiVersion, kind and ObjectMeta of embedded resources and prunes the rest', () => {
    const { removed, resource } = prune({
      spec: {
        template: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p', unknown: 1 },
          spec: { image: 'i', other: true },
          status: {},
        },
      },
    });
    expect(removed).toEqual([
      'spec.template.metadata.unknown',
      'spec.template.spec.other',
      'spec.template.status',
    ]);
    expect(resource).toEqual({
      spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { image: 'i' } } },
    });
  });

  it('drops nulls of fields that are neither nullable nor defaulted, without reporting them', () => {
    const { removed, resource } = prune({ spec: { name: null, optional: null, defaulted: null } });
    expect(removed).toEqual([]);
    expect(resource).toEqual({ spec: { optional: null, defaulted: null } });
  });

  it('prunes deeply nested undeclared values without overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const closed = object({ spec: object({ sealed: { type: 'object', additionalProperties: false } }) });
    const resource = { spec: { sealed: { k: deep, m: { x: 1 } } } };
    expect(pruneUnknownFields(closed, resource)).toEqual(['spec.sealed.m.x']);
  });
});
